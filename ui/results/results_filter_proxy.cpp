#include "ui/results/results_filter_proxy.h"

namespace gconv::ui {

ResultsFilterProxy::ResultsFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    // Live rows arrive in bursts; the best-per-problem view is recomputed once per burst.
    bestRefresh_.setSingleShot(true);
    bestRefresh_.setInterval(50);
    connect(&bestRefresh_, &QTimer::timeout, this, &ResultsFilterProxy::refilter);
}

void ResultsFilterProxy::setSourceModel(QAbstractItemModel* model) {
    if (model_) disconnect(model_, nullptr, this, nullptr);
    model_ = qobject_cast<ResultsModel*>(model);
    Q_ASSERT(model_ || !model);
    mask_.clear();
    rebind_ = true;
    if (model_) {
        // Before QSortFilterProxyModel rebuilds its mapping after the reset, the mask is stale.
        connect(model_, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
            mask_.clear();
            rebind_ = true;
        });
        connect(model_, &QAbstractItemModel::modelReset, this, [this] { emit filterApplied(); });
        connect(model_, &QAbstractItemModel::rowsInserted, this, [this] {
            if (best_) bestRefresh_.start();
            emit filterApplied();
        });
    }
    QSortFilterProxyModel::setSourceModel(model);
}

ResultsFilterProxy::ExpressionError ResultsFilterProxy::toError(const FilterError& error) {
    return {QString::fromStdString(error.what()), QString::fromStdString(error.reason),
            error.column};
}

void ResultsFilterProxy::fillMask(RowMask& mask, size_t first, size_t last) const {
    const ResultTable& table = model_->store()->table();
    evaluate_filter(table, expression_, first, last, mask);
    apply_text_search(table, textFilter_.toStdString(), first, last, mask);
    apply_status_set(table, statuses_, first, last, mask);
}

void ResultsFilterProxy::ensureMask() const {
    if (!model_) return;
    const ResultTable& table = model_->store()->table();
    if (rebind_) {
        rebind_ = false;
        auto* self = const_cast<ResultsFilterProxy*>(this);
        try {
            self->expression_.bind(result_filter_schema(table));
        } catch (const FilterError& e) {
            // The new column set lacks a field the filter names: show every row, say why.
            const ExpressionError error = toError(e);
            self->expression_ = FilterExpression();
            QMetaObject::invokeMethod(
                self, [self, error] { emit self->expressionFailed(error); }, Qt::QueuedConnection);
        }
    }
    const size_t first = mask_.size();
    const size_t last = table.rows();
    if (first >= last) return;
    try {
        fillMask(mask_, first, last);
    } catch (const FilterError& e) {
        std::fill(mask_.begin() + static_cast<std::ptrdiff_t>(first), mask_.end(), uint8_t{0});
        auto* self = const_cast<ResultsFilterProxy*>(this);
        const ExpressionError error = toError(e);
        QMetaObject::invokeMethod(
            self, [self, error] { emit self->expressionFailed(error); }, Qt::QueuedConnection);
    }
    if (best_ && first == 0) keep_best_per_problem(table, mask_);
}

bool ResultsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
    const size_t row = model_->storeRow(sourceRow);
    if (row >= mask_.size()) ensureMask();
    return row < mask_.size() && mask_[row] != 0;
}

void ResultsFilterProxy::refilter() {
    mask_.clear();
    if (model_) {
        rebind_ = false;
        ensureMask();
    }
    invalidate();
    emit filterApplied();
}

std::optional<ResultsFilterProxy::ExpressionError>
ResultsFilterProxy::setFilterExpression(const QString& text) {
    FilterExpression next;
    try {
        next = FilterExpression::parse(text.toStdString());
        if (model_) next.bind(result_filter_schema(model_->store()->table()));
    } catch (const FilterError& e) {
        return toError(e);
    }
    if (!model_) {
        expression_ = std::move(next);
        return std::nullopt;
    }
    // Evaluate before committing: an evaluation error (x / 0) keeps the previous filter.
    std::swap(expression_, next);
    RowMask mask;
    const ResultTable& table = model_->store()->table();
    try {
        fillMask(mask, 0, table.rows());
    } catch (const FilterError& e) {
        std::swap(expression_, next);
        return toError(e);
    }
    if (best_) keep_best_per_problem(table, mask);
    mask_ = std::move(mask);
    rebind_ = false;
    invalidate();
    emit filterApplied();
    return std::nullopt;
}

void ResultsFilterProxy::setTextFilter(const QString& needle) {
    if (needle == textFilter_) return;
    textFilter_ = needle;
    refilter();
}

void ResultsFilterProxy::setStatusFilter(StatusSet allowed) {
    if (allowed == statuses_) return;
    statuses_ = allowed;
    refilter();
}

void ResultsFilterProxy::setBestPerProblem(bool on) {
    if (on == best_) return;
    best_ = on;
    refilter();
}

size_t ResultsFilterProxy::storeRow(int proxyRow) const {
    const QModelIndex source = mapToSource(index(proxyRow, 0));
    return model_->storeRow(source.row());
}

int ResultsFilterProxy::proxyRow(size_t storeRow) const {
    if (!model_) return -1;
    const int row = model_->modelRow(storeRow);
    if (row < 0) return -1;
    return mapFromSource(model_->index(row, 0)).row();
}

std::vector<size_t> ResultsFilterProxy::visibleStoreRows() const {
    std::vector<size_t> rows;
    const int n = rowCount();
    rows.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) rows.push_back(storeRow(i));
    return rows;
}

void ResultsFilterProxy::sort(int column, Qt::SortOrder order) {
    // Ordered in the model (core radix sort); this proxy's own sort column stays -1 so that
    // it never re-sorts on a filter change.
    if (model_) model_->sort(column, order);
}

} // namespace gconv::ui
