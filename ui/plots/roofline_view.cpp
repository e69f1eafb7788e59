#include "ui/plots/roofline_view.h"

#include "ui/results/result_store.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>

#include <algorithm>

namespace gconv::ui {
namespace {

QDoubleSpinBox* ceiling_box(QWidget* parent, const QString& suffix, double value) {
    auto* box = new QDoubleSpinBox(parent);
    box->setRange(0.1, 1e6);
    box->setDecimals(1);
    box->setSuffix(suffix);
    box->setValue(value);
    box->setAlignment(Qt::AlignRight);
    box->setKeyboardTracking(false);
    return box;
}

} // namespace

RooflineView::RooflineView(const PlotContext& context, QWidget* parent)
    : PlotView(context, parent),
      bandwidth_(ceiling_box(options_, tr(" GB/s"), k_default_bandwidth_gbps)),
      compute_(ceiling_box(options_, tr(" TFLOP/s"), k_default_compute_tflops)),
      allRows_(new QCheckBox(tr("&All ok rows"), options_)) {
    bandwidth_->setToolTip(tr("Memory ceiling: achievable DRAM bandwidth (H200 measured: "
                              "%1 GB/s)")
                               .arg(k_default_bandwidth_gbps));
    compute_->setToolTip(tr("Compute ceiling (H200 measured: %1 TFLOP/s bf16 matmul, about "
                            "%2 TFLOP/s fp32 SIMT; follows the data's dtype until edited)")
                             .arg(k_default_compute_tflops)
                             .arg(k_fp32_compute_tflops));
    allRows_->setToolTip(tr("Also draw every ok row as a faint point"));
    auto* bandwidth_label = new QLabel(tr("&Bandwidth:"), options_);
    bandwidth_label->setBuddy(bandwidth_);
    auto* compute_label = new QLabel(tr("Com&pute:"), options_);
    compute_label->setBuddy(compute_);
    for (QWidget* w : {static_cast<QWidget*>(bandwidth_label), static_cast<QWidget*>(bandwidth_),
                       static_cast<QWidget*>(compute_label), static_cast<QWidget*>(compute_),
                       static_cast<QWidget*>(allRows_)})
        options_->layout()->addWidget(w);
    connect(bandwidth_, &QDoubleSpinBox::valueChanged, this, &PlotView::optionsChanged);
    connect(compute_, &QDoubleSpinBox::valueChanged, this, [this] {
        computeEdited_ = true;
        emit optionsChanged();
    });
    connect(allRows_, &QCheckBox::toggled, this, &PlotView::optionsChanged);

    ceiling_ = plot_->addGraph();
    ceiling_->setPen(QPen(QColor(60, 60, 60), 2));
    faint_ = addPointGraph(QColor(120, 120, 120, 50), 3, QCPScatterStyle::ssDisc);
    best_ = addPointGraph(QColor(40, 90, 160), 7, QCPScatterStyle::ssDisc);
    best_->setName(tr("best kernel per problem"));
    highlight_ = addHighlightGraph();

    setLogAxis(plot_->xAxis, true);
    setLogAxis(plot_->yAxis, true);
    plot_->xAxis->setLabel(tr("arithmetic intensity (FLOP / minimal byte)"));
    plot_->yAxis->setLabel(tr("achieved TFLOP/s"));
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    QFont small = plot_->legend->font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1));
    plot_->legend->setFont(small);
}

double RooflineView::bandwidthGbps() const {
    return bandwidth_->value();
}
double RooflineView::computeTflops() const {
    return compute_->value();
}

void RooflineView::setCeilings(double bandwidthGbps, double computeTflops) {
    bandwidth_->setValue(bandwidthGbps);
    compute_->setValue(computeTflops);
    computeEdited_ = true;
}

bool RooflineView::allRowsShown() const {
    return allRows_->isChecked();
}
void RooflineView::setAllRowsShown(bool shown) {
    allRows_->setChecked(shown);
}

double RooflineView::attainable(double intensity) const {
    // GB/s x FLOP/B = GFLOP/s.
    return std::min(computeTflops(), bandwidthGbps() * intensity / 1000.0);
}

void RooflineView::compute() {
    const auto& problems = context_.index.problems();
    const auto& best = context_.best;
    bestKeys_.clear();
    bestValues_.clear();
    bestRows_.clear();
    bool all_fp32 = false;
    double x_low = 1e300, x_high = 0.0, y_low = 1e300, y_high = 0.0;
    auto extend = [&](double x, double y) {
        x_low = std::min(x_low, x), x_high = std::max(x_high, x);
        y_low = std::min(y_low, y), y_high = std::max(y_high, y);
    };
    problemOrder_.clear();
    for (uint32_t p = 0; p < problems.size(); ++p)
        if (problems[p].intensity() > 0.0) problemOrder_.push_back(p);
    std::stable_sort(problemOrder_.begin(), problemOrder_.end(), [&](uint32_t a, uint32_t b) {
        return problems[a].intensity() < problems[b].intensity();
    });
    for (uint32_t p : problemOrder_) {
        if (best[p].row < 0 || !(best[p].tflops > 0.0)) continue;
        all_fp32 = bestRows_.empty() ? problems[p].data_type == DataType::FP32
                                     : all_fp32 && problems[p].data_type == DataType::FP32;
        bestKeys_.push_back(problems[p].intensity());
        bestValues_.push_back(best[p].tflops);
        bestRows_.push_back(best[p].row);
        extend(problems[p].intensity(), best[p].tflops);
    }
    best_->setData(bestKeys_, bestValues_, true);

    byProblem_.clear();
    QVector<double> keys, values;
    if (allRows_->isChecked()) {
        byProblem_ = tflops_by_problem(context_.store->table(), context_.index);
        // Thin every column alike (keeping its extremes): what is drawn is what can be hit.
        size_t total = 0;
        for (const auto& column : byProblem_) total += column.size();
        const size_t stride = std::max<size_t>(1, (total + k_max_points - 1) / k_max_points);
        if (stride > 1)
            for (auto& column : byProblem_) {
                std::vector<RowValue> kept;
                for (size_t i = 0; i < column.size(); ++i)
                    if (i % stride == 0 || i + 1 == column.size()) kept.push_back(column[i]);
                column = std::move(kept);
            }
        faint_->setName(stride > 1 ? tr("ok rows (every %1th of %2)").arg(stride).arg(total)
                                   : tr("ok rows"));
        for (uint32_t p : problemOrder_)
            for (const RowValue& v : byProblem_[p]) {
                if (!(v.value > 0.0)) continue;
                keys.push_back(problems[p].intensity());
                values.push_back(v.value);
                extend(problems[p].intensity(), v.value);
            }
    }
    faint_->setData(keys, values, true);
    faint_->setVisible(allRows_->isChecked());
    faint_->removeFromLegend();
    if (allRows_->isChecked()) faint_->addToLegend();

    if (!computeEdited_) {
        const QSignalBlocker block(compute_);
        compute_->setValue(all_fp32 ? k_fp32_compute_tflops : k_default_compute_tflops);
    }
    if (x_high <= 0.0) x_low = 1.0, x_high = 1000.0, y_low = 1.0, y_high = 1.0;
    y_high = std::max(y_high, computeTflops());
    plot_->xAxis->setRange(x_low / 2.0, x_high * 2.0);
    plot_->yAxis->setRange(y_low / 2.0, y_high * 2.0);

    // The ceilings reach far beyond the data so that zooming out keeps them.
    const double ridge = computeTflops() * 1000.0 / bandwidthGbps();
    const double from = std::min(x_low, ridge) / 1000.0, to = std::max(x_high, ridge) * 1000.0;
    ceiling_->setData({from, ridge, to}, {attainable(from), computeTflops(), computeTflops()},
                      true);
    ceiling_->setName(tr("ceilings: %1 GB/s, %2 TFLOP/s (ridge at %3 FLOP/B)")
                          .arg(bandwidthGbps(), 0, 'f', 0)
                          .arg(computeTflops(), 0, 'f', 0)
                          .arg(ridge, 0, 'f', 0));
}

std::optional<QPointF> RooflineView::coordsOf(qint64 row) const {
    const PlotIndex& index = context_.index;
    if (!index.ok(size_t(row))) return std::nullopt;
    const uint32_t p = index.problemOf(size_t(row));
    const bool is_best = context_.best[p].row == row;
    if (!is_best && !allRows_->isChecked()) return std::nullopt;
    const double* tflops = PlotIndex::numbers(context_.store->table(), "tflops");
    const double intensity = index.problems()[p].intensity();
    if (!(intensity > 0.0) || !(tflops[row] > 0.0)) return std::nullopt;
    return QPointF(intensity, tflops[row]);
}

void RooflineView::drawHighlight(std::optional<QPointF> at) {
    highlight_->data()->clear();
    if (at) highlight_->addData(at->x(), at->y());
}

qint64 RooflineView::rowAt(const QPointF& pixel) const {
    if (const int i = nearest(pixel, bestKeys_, bestValues_); i >= 0) return bestRows_[size_t(i)];
    if (!allRows_->isChecked()) return -1;
    // Faint points stand in one column per problem: find the columns near the cursor, then
    // the TFLOPS range within reach by binary search.
    const QCPAxis* x = plot_->xAxis;
    const QCPAxis* y = plot_->yAxis;
    const double v_low = y->pixelToCoord(pixel.y() + k_hit_pixels);
    const double v_high = y->pixelToCoord(pixel.y() - k_hit_pixels);
    qint64 found = -1;
    double closest = k_hit_pixels * k_hit_pixels;
    for (uint32_t p : problemOrder_) {
        const double dx = x->coordToPixel(context_.index.problems()[p].intensity()) - pixel.x();
        if (std::abs(dx) > k_hit_pixels) continue;
        const auto& column = byProblem_[p];
        auto it = std::lower_bound(column.begin(), column.end(), std::min(v_low, v_high),
                                   [](const RowValue& r, double v) { return r.value < v; });
        for (; it != column.end() && it->value <= std::max(v_low, v_high); ++it) {
            const double dy = y->coordToPixel(it->value) - pixel.y();
            if (dx * dx + dy * dy <= closest) closest = dx * dx + dy * dy, found = it->row;
        }
    }
    return found;
}

QString RooflineView::toolTipExtra(qint64 row) const {
    const auto at = coordsOf(row);
    if (!at) return {};
    const double roof = attainable(at->x());
    return tr("intensity %1 FLOP/B, %2 % of the roof (%3 TFLOP/s attainable)")
        .arg(at->x(), 0, 'f', 1)
        .arg(100.0 * at->y() / roof, 0, 'f', 1)
        .arg(roof, 0, 'f', 1);
}

} // namespace gconv::ui
