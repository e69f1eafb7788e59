#include "ui/plots/heatmap_view.h"

#include "ui/results/result_store.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

#include <algorithm>
#include <cmath>

namespace gconv::ui {
namespace {

constexpr int k_label_chars = 56;
constexpr int k_max_labels = 120;

// A perceptually even dark-to-bright ramp (viridis-like), so that grey reads as "missing".
QCPColorGradient efficiency_gradient() {
    QCPColorGradient g;
    g.clearColorStops();
    g.setColorStopAt(0.0, QColor(68, 1, 84));
    g.setColorStopAt(0.25, QColor(59, 82, 139));
    g.setColorStopAt(0.5, QColor(33, 145, 140));
    g.setColorStopAt(0.75, QColor(94, 201, 98));
    g.setColorStopAt(1.0, QColor(253, 231, 37));
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(HeatmapView::missingColor());
    return g;
}

// gconv kernel names share a long prefix (variant, dtype, ndim): drop what all shown ones
// share, up to a '_', and elide the middle of what stays long. Other names stay whole.
std::vector<QString> kernel_labels(const std::vector<std::string>& names) {
    const std::string_view gconv = "grouped_conv_";
    const std::string* first = nullptr;
    size_t common = 0;
    size_t gconv_names = 0;
    for (const auto& n : names) {
        if (n.compare(0, gconv.size(), gconv) != 0) continue;
        ++gconv_names;
        if (!first) first = &n, common = n.size();
        size_t i = 0;
        while (i < common && i < n.size() && n[i] == (*first)[i]) ++i;
        common = i;
    }
    if (gconv_names > 1) {
        const size_t cut = first->rfind('_', common);
        common = cut == std::string::npos ? 0 : cut + 1;
    } else {
        common = 0;
    }
    std::vector<QString> out;
    for (const auto& n : names) {
        const bool ours = n.compare(0, gconv.size(), gconv) == 0;
        QString label = QString::fromStdString(ours ? n.substr(std::min(common, n.size())) : n);
        if (label.size() > k_label_chars)
            label =
                label.left(k_label_chars / 2 - 1) + QChar(0x2026) + label.right(k_label_chars / 2);
        out.push_back(label);
    }
    return out;
}

} // namespace

HeatmapView::HeatmapView(const PlotContext& context, QWidget* parent)
    : PlotView(context, parent), kernels_(new QSpinBox(options_)) {
    auto* label = new QLabel(tr("&Kernels:"), options_);
    label->setBuddy(kernels_);
    kernels_->setRange(1, 5000);
    kernels_->setValue(k_default_kernels);
    kernels_->setAlignment(Qt::AlignRight);
    kernels_->setKeyboardTracking(false);
    kernels_->setToolTip(tr("Show only this many kernels: those with the best mean efficiency "
                            "over all problems (a problem a kernel has no ok row for counts 0)"));
    auto* legend = new QLabel(tr("grey: no ok row"), options_);
    legend->setToolTip(tr("Cells without an ok measurement (missing, failed or not run)"));
    options_->layout()->addWidget(label);
    options_->layout()->addWidget(kernels_);
    options_->layout()->addWidget(legend);
    connect(kernels_, &QSpinBox::valueChanged, this, &PlotView::optionsChanged);

    map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
    map_->setName(tr("efficiency"));
    map_->setInterpolate(false);
    map_->setTightBoundary(false);
    scale_ = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(0, 1, scale_);
    scale_->setType(QCPAxis::atRight);
    scale_->axis()->setLabel(tr("TFLOPS / best of the problem"));
    map_->setColorScale(scale_);
    map_->setGradient(efficiency_gradient());
    map_->setDataRange(QCPRange(0.0, 1.0));
    auto* margins = new QCPMarginGroup(plot_);
    plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

    highlight_ = new QCPItemRect(plot_);
    highlight_->setPen(QPen(QColor(230, 30, 30), 2.5));
    highlight_->setBrush(Qt::NoBrush);
    highlight_->setVisible(false);

    plot_->xAxis->setLabel(tr("problem"));
    plot_->yAxis->setLabel(tr("kernel (best mean efficiency first)"));
    plot_->xAxis->setTickLabelRotation(-60);
    plot_->yAxis->setRangeReversed(true);
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setSubTicks(false);
        axis->grid()->setVisible(false);
    }
    QFont small = plot_->yAxis->tickLabelFont();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 2));
    plot_->yAxis->setTickLabelFont(small);
}

int HeatmapView::maxKernels() const {
    return kernels_->value();
}

void HeatmapView::setMaxKernels(int kernels) {
    kernels_->setValue(kernels);
}

void HeatmapView::compute() {
    matrix_ = efficiency_matrix(context_.store->table(), context_.index, context_.best,
                                size_t(kernels_->value()));
    const int problems = int(matrix_.problems);
    const int kernels = int(matrix_.kernelCount());
    slotOfKernel_.assign(context_.index.kernels().size(), PlotIndex::k_none);
    for (size_t k = 0; k < matrix_.kernels.size(); ++k)
        slotOfKernel_[matrix_.kernels[k]] = uint32_t(k);

    // One cell per unit. A single row or column would have an empty range: add a NaN one
    // beyond it, outside the axis range.
    map_->data()->setSize(std::max(problems, 2), std::max(kernels, 2));
    map_->data()->setRange(QCPRange(0, std::max(problems - 1, 1)),
                           QCPRange(0, std::max(kernels - 1, 1)));
    map_->data()->fill(std::nan(""));
    for (int k = 0; k < kernels; ++k)
        for (int p = 0; p < problems; ++p)
            map_->data()->setCell(p, k, matrix_.at(size_t(k), size_t(p)));
    map_->setDataRange(QCPRange(0.0, 1.0));

    auto x_ticks = QSharedPointer<QCPAxisTickerText>::create();
    const int x_step = std::max(1, (problems + k_max_labels - 1) / k_max_labels);
    for (int p = 0; p < problems; p += x_step)
        x_ticks->addTick(p, QString::fromStdString(context_.index.problems()[size_t(p)].label));
    plot_->xAxis->setTicker(x_ticks);

    std::vector<std::string> names;
    for (uint32_t k : matrix_.kernels) names.push_back(context_.index.kernels()[k].name);
    const auto labels = kernel_labels(names);
    auto y_ticks = QSharedPointer<QCPAxisTickerText>::create();
    const int y_step = std::max(1, (kernels + k_max_labels - 1) / k_max_labels);
    for (int k = 0; k < kernels; k += y_step) y_ticks->addTick(k, labels[size_t(k)]);
    plot_->yAxis->setTicker(y_ticks);

    plot_->xAxis->setRange(-0.5, std::max(problems, 1) - 0.5);
    plot_->yAxis->setRange(-0.5, std::max(kernels, 1) - 0.5);
}

std::optional<QPointF> HeatmapView::coordsOf(qint64 row) const {
    const uint32_t kernel = context_.index.kernelOf(size_t(row));
    if (kernel >= slotOfKernel_.size() || slotOfKernel_[kernel] == PlotIndex::k_none)
        return std::nullopt;
    return QPointF(context_.index.problemOf(size_t(row)), slotOfKernel_[kernel]);
}

void HeatmapView::drawHighlight(std::optional<QPointF> at) {
    highlight_->setVisible(bool(at));
    if (!at) return;
    highlight_->topLeft->setCoords(at->x() - 0.5, at->y() - 0.5);
    highlight_->bottomRight->setCoords(at->x() + 0.5, at->y() + 0.5);
}

qint64 HeatmapView::rowAt(const QPointF& pixel) const {
    if (!plot_->axisRect()->rect().contains(pixel.toPoint())) return -1;
    const long p = std::lround(plot_->xAxis->pixelToCoord(pixel.x()));
    const long k = std::lround(plot_->yAxis->pixelToCoord(pixel.y()));
    if (p < 0 || k < 0 || size_t(p) >= matrix_.problems || size_t(k) >= matrix_.kernelCount())
        return -1;
    return matrix_.rowAt(size_t(k), size_t(p));
}

QString HeatmapView::toolTipExtra(qint64 row) const {
    const auto at = coordsOf(row);
    if (!at) return {};
    const auto k = size_t(at->y());
    const double e = matrix_.at(k, size_t(at->x()));
    return tr("efficiency %1 % of the problem's best\nkernel rank %2 of %3 shown (mean %4 %)")
        .arg(has_value(e) ? QString::number(100.0 * e, 'f', 1) : tr("N/A"))
        .arg(k + 1)
        .arg(matrix_.kernelCount())
        .arg(100.0 * matrix_.scores[k], 0, 'f', 1);
}

} // namespace gconv::ui
