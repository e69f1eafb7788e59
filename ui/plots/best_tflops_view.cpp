#include "ui/plots/best_tflops_view.h"

#include "ui/results/result_store.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QHBoxLayout>

#include <algorithm>
#include <numeric>

namespace gconv::ui {
namespace {

constexpr double k_bar_width = 0.7;
// More tick labels than this overlap even when rotated: label every n-th bar then.
constexpr int k_max_labels = 120;

} // namespace

BestTflopsView::BestTflopsView(const PlotContext& context, QWidget* parent)
    : PlotView(context, parent), sorted_(new QCheckBox(tr("&Sort by TFLOPS"), options_)) {
    sorted_->setToolTip(tr("Order the bars by their TFLOPS instead of the order in which the "
                           "problems first appear in the results"));
    options_->layout()->addWidget(sorted_);
    connect(sorted_, &QCheckBox::toggled, this, &PlotView::optionsChanged);

    bars_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    bars_->setName(tr("best TFLOP/s"));
    bars_->setWidth(k_bar_width);
    bars_->setPen(QPen(QColor(40, 90, 160)));
    bars_->setBrush(QColor(70, 130, 200));
    highlightBar_ = new QCPBars(plot_->xAxis, plot_->yAxis);
    highlightBar_->setName(tr("current row"));
    highlightBar_->setWidth(k_bar_width);
    highlightBar_->setPen(QPen(QColor(160, 20, 20), 2));
    highlightBar_->setBrush(QColor(230, 80, 60));
    marker_ = addHighlightGraph();

    plot_->xAxis->setLabel(tr("problem"));
    plot_->yAxis->setLabel(tr("best TFLOP/s (ok rows)"));
    // Negative: each label ends at its tick, so the last one stays inside the widget.
    plot_->xAxis->setTickLabelRotation(-60);
    plot_->xAxis->setSubTicks(false);
    plot_->xAxis->grid()->setVisible(false);
}

void BestTflopsView::setSortedByTflops(bool sorted) {
    sorted_->setChecked(sorted);
}

void BestTflopsView::compute() {
    const auto& problems = context_.index.problems();
    const auto& best = context_.best;
    std::vector<uint32_t> order;
    for (uint32_t p = 0; p < best.size(); ++p)
        if (best[p].row >= 0) order.push_back(p);
    if (sorted_->isChecked())
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return best[a].tflops > best[b].tflops; });

    keys_.clear();
    values_.clear();
    rows_.clear();
    barOfProblem_.assign(problems.size(), -1);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const int step = std::max<int>(1, int((order.size() + k_max_labels - 1) / k_max_labels));
    double top = 0.0;
    for (size_t i = 0; i < order.size(); ++i) {
        const uint32_t p = order[i];
        keys_.push_back(double(i));
        values_.push_back(best[p].tflops);
        rows_.push_back(best[p].row);
        barOfProblem_[p] = int(i);
        top = std::max(top, best[p].tflops);
        if (int(i) % step == 0)
            ticker->addTick(double(i), QString::fromStdString(problems[p].label));
    }
    bars_->setData(keys_, values_, true);
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setRange(-0.7, std::max<double>(1.0, double(order.size())) - 0.3);
    plot_->yAxis->setRange(0.0, top > 0.0 ? top * 1.08 : 1.0);
}

std::optional<QPointF> BestTflopsView::coordsOf(qint64 row) const {
    const PlotIndex& index = context_.index;
    if (!index.ok(size_t(row))) return std::nullopt;
    const int bar = barOfProblem_.empty() ? -1 : barOfProblem_[index.problemOf(size_t(row))];
    if (bar < 0) return std::nullopt;
    const double* tflops = PlotIndex::numbers(context_.store->table(), "tflops");
    return QPointF(bar, tflops[row]);
}

void BestTflopsView::drawHighlight(std::optional<QPointF> at) {
    highlightBar_->data()->clear();
    marker_->data()->clear();
    if (!at) return;
    // The best row of its problem is the bar itself; any other row is a marker on that bar.
    if (rows_[size_t(at->x())] == highlightedRow())
        highlightBar_->addData(at->x(), at->y());
    else
        marker_->addData(at->x(), at->y());
}

qint64 BestTflopsView::rowAt(const QPointF& pixel) const {
    const QCPAxis* x = plot_->xAxis;
    const QCPAxis* y = plot_->yAxis;
    if (!marker_->data()->isEmpty()) {
        const auto point = marker_->data()->begin();
        if (std::hypot(x->coordToPixel(point->key) - pixel.x(),
                       y->coordToPixel(point->value) - pixel.y()) <= k_hit_pixels)
            return highlightedRow();
    }
    const double base = y->coordToPixel(0.0);
    for (int i = 0; i < keys_.size(); ++i) {
        const double center = x->coordToPixel(keys_[i]);
        const double half =
            std::max(3.0, std::abs(x->coordToPixel(keys_[i] + k_bar_width / 2) - center));
        if (std::abs(pixel.x() - center) > half) continue;
        const double top = y->coordToPixel(values_[i]);
        if (pixel.y() >= std::min(top, base) - k_hit_pixels &&
            pixel.y() <= std::max(top, base) + k_hit_pixels)
            return rows_[size_t(i)];
    }
    return -1;
}

QString BestTflopsView::toolTipExtra(qint64 row) const {
    const PlotIndex& index = context_.index;
    const ProblemBest& b = context_.best[index.problemOf(size_t(row))];
    if (b.row == row) return tr("best of %n ok kernel(s) on this problem", nullptr, int(b.okRows));
    const double* tflops = PlotIndex::numbers(context_.store->table(), "tflops");
    return tr("%1 % of the best (%2 TFLOP/s)")
        .arg(100.0 * tflops[row] / b.tflops, 0, 'f', 1)
        .arg(b.tflops, 0, 'f', 1);
}

} // namespace gconv::ui
