#include "ui/plots/latency_view.h"

#include "ui/results/result_store.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include <algorithm>

namespace gconv::ui {

LatencyView::LatencyView(const PlotContext& context, QWidget* parent)
    : PlotView(context, parent), problemBox_(new QComboBox(options_)) {
    auto* label = new QLabel(tr("P&roblem:"), options_);
    label->setBuddy(problemBox_);
    problemBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    problemBox_->setMinimumContentsLength(24);
    problemBox_->setToolTip(tr("The problem whose kernels are plotted (a row selected elsewhere "
                               "switches to its problem)"));
    options_->layout()->addWidget(label);
    options_->layout()->addWidget(problemBox_);
    connect(problemBox_, &QComboBox::activated, this, [this](int i) {
        problem_ = problemBox_->itemData(i).toUInt();
        emit optionsChanged();
    });

    points_ = plot_->addGraph();
    points_->setName(tr("kernels"));
    points_->setPen(QPen(QColor(70, 130, 200, 160)));
    points_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(40, 90, 160), 5));
    best_ = addPointGraph(QColor(20, 150, 60), 14, QCPScatterStyle::ssStar);
    best_->setName(tr("fastest"));
    highlight_ = addHighlightGraph();
    auto ranks = QSharedPointer<QCPAxisTickerFixed>::create();
    ranks->setTickStep(1.0);
    ranks->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    plot_->xAxis->setTicker(ranks);
    plot_->xAxis->setLabel(tr("kernel rank (by latency)"));
    plot_->yAxis->setLabel(tr("latency (ms)"));
}

void LatencyView::setProblem(uint32_t problem) {
    if (problem >= context_.index.problems().size() || problem == problem_) return;
    problem_ = problem;
    emit optionsChanged();
}

void LatencyView::fillProblemBox() {
    const auto& problems = context_.index.problems();
    const QSignalBlocker block(problemBox_);
    if (problemBox_->count() != int(problems.size())) {
        problemBox_->clear();
        for (uint32_t p = 0; p < problems.size(); ++p)
            problemBox_->addItem(QString::fromStdString(problems[p].label), p);
    }
    // Kernel counts change as a sweep runs: keep them in the tooltips, not in the items.
    for (uint32_t p = 0; p < problems.size(); ++p)
        problemBox_->setItemData(
            int(p), tr("%n ok kernel(s)", nullptr, int(context_.best[p].okRows)), Qt::ToolTipRole);
    if (problem_ >= problems.size()) {
        problem_ = PlotIndex::k_none;
        // Start on the problem of the current row, else on the first one that has ok rows.
        const qint64 current = context_.store ? context_.store->currentRow() : -1;
        if (current >= 0 && size_t(current) < context_.index.rows())
            problem_ = context_.index.problemOf(size_t(current));
        for (uint32_t p = 0; p < problems.size() && problem_ == PlotIndex::k_none; ++p)
            if (context_.best[p].row >= 0) problem_ = p;
    }
    problemBox_->setCurrentIndex(problem_ == PlotIndex::k_none ? -1 : int(problem_));
}

void LatencyView::compute() {
    fillProblemBox();
    series_.clear();
    rankOfRow_.clear();
    if (problem_ != PlotIndex::k_none)
        series_ = latency_of_problem(context_.store->table(), context_.index, problem_);
    keys_.clear();
    values_.clear();
    for (size_t i = 0; i < series_.size(); ++i) {
        keys_.push_back(double(i + 1));
        values_.push_back(series_[i].value);
        rankOfRow_[series_[i].row] = int(i + 1);
    }
    points_->setData(keys_, values_, true);
    best_->data()->clear();
    if (!series_.empty()) best_->addData(1.0, series_.front().value);

    const double low = series_.empty() ? 1.0 : series_.front().value;
    const double high = series_.empty() ? 1.0 : series_.back().value;
    const bool log = low > 0.0 && high / low > k_log_span;
    setLogAxis(plot_->yAxis, log);
    plot_->xAxis->setRange(0.0, double(std::max<size_t>(series_.size(), 1)) + 1.0);
    if (log)
        plot_->yAxis->setRange(low / 1.3, high * 1.3);
    else
        plot_->yAxis->setRange(0.0, high * 1.08);
}

std::optional<QPointF> LatencyView::coordsOf(qint64 row) const {
    auto it = rankOfRow_.find(uint32_t(row));
    if (it == rankOfRow_.end()) return std::nullopt;
    return QPointF(it->second, series_[size_t(it->second - 1)].value);
}

bool LatencyView::follow(qint64 row) {
    if (row < 0 || size_t(row) >= context_.index.rows()) return false;
    const uint32_t problem = context_.index.problemOf(size_t(row));
    if (problem == problem_) return false;
    problem_ = problem;
    return true;
}

void LatencyView::drawHighlight(std::optional<QPointF> at) {
    highlight_->data()->clear();
    if (at) highlight_->addData(at->x(), at->y());
}

qint64 LatencyView::rowAt(const QPointF& pixel) const {
    const int i = nearest(pixel, keys_, values_);
    return i < 0 ? -1 : qint64(series_[size_t(i)].row);
}

QString LatencyView::toolTipExtra(qint64 row) const {
    auto it = rankOfRow_.find(uint32_t(row));
    if (it == rankOfRow_.end() || series_.empty()) return {};
    const double fastest = series_.front().value;
    return tr("rank %1 of %2, %3x the fastest")
        .arg(it->second)
        .arg(series_.size())
        .arg(series_[size_t(it->second - 1)].value / fastest, 0, 'f', 2);
}

} // namespace gconv::ui
