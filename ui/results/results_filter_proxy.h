#pragma once
// The rows a user asked for: the filter language over rows (`tflops > 100 and G == 32`), a
// free-text search over kernel / problem / error, a status set and the best-kernel-per-problem
// view. All of it is evaluated over the columnar table in core into one byte per store row;
// filterAcceptsRow only looks the byte up, so a change re-filters 1,000,000 rows in tens of
// milliseconds. A change rebuilds the mapping in one go (invalidate(): one layout change)
// rather than through invalidateFilter(), whose row-range removals are quadratic on scattered
// changes. sort() is delegated to ResultsModel (ordered in core); see results_model.h.
#include "csv/result_filter.h"
#include "ui/results/results_model.h"

#include <QSortFilterProxyModel>
#include <QTimer>

#include <optional>

namespace gconv::ui {

class ResultsFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    struct ExpressionError {
        QString message; // ready to show: reason, expression, caret line
        QString reason;
        int column = -1; // 0-based byte offset into the expression, -1 if none
    };

    explicit ResultsFilterProxy(QObject* parent = nullptr);

    // The source must be a ResultsModel.
    void setSourceModel(QAbstractItemModel* model) override;
    ResultsModel* resultsModel() const { return model_; }

    // Parses, binds and evaluates `text`; on an error the previous filter stays and the error
    // is returned. An empty text matches every row.
    std::optional<ExpressionError> setFilterExpression(const QString& text);
    QString filterExpression() const { return QString::fromStdString(expression_.text()); }
    void setTextFilter(const QString& needle);
    QString textFilter() const { return textFilter_; }
    void setStatusFilter(StatusSet allowed);
    StatusSet statusFilter() const { return statuses_; }
    void setBestPerProblem(bool on);
    bool bestPerProblem() const { return best_; }

    // Proxy row <-> store row (through the model's order); -1 when the store row is hidden.
    size_t storeRow(int proxyRow) const;
    int proxyRow(size_t storeRow) const;
    // Store rows in view order.
    std::vector<size_t> visibleStoreRows() const;

    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

signals:
    // The filter expression no longer applies (a reset removed a column it names, or an
    // evaluation error in rows that arrived later); it was cleared or those rows hidden.
    void expressionFailed(const ExpressionError& error);
    // The set of visible rows changed (after a filter change or a reset).
    void filterApplied();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    void refilter();
    // Grows the mask to cover every store row (rows appended since, or all after a reset).
    void ensureMask() const;
    void fillMask(RowMask& mask, size_t first, size_t last) const;
    static ExpressionError toError(const FilterError& error);

    ResultsModel* model_ = nullptr;
    FilterExpression expression_;
    QString textFilter_;
    StatusSet statuses_ = k_all_statuses;
    bool best_ = false;
    mutable RowMask mask_;
    mutable bool rebind_ = false;
    QTimer bestRefresh_;
};

} // namespace gconv::ui

Q_DECLARE_METATYPE(gconv::ui::ResultsFilterProxy::ExpressionError)
