#include "ui/plots/trait_view.h"

#include "ui/results/result_store.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include <algorithm>
#include <unordered_map>

namespace gconv::ui {
namespace {

constexpr double k_box_width = 0.6;
constexpr double k_log_span = 10.0;

// A fixed horizontal offset per row in [-0.25, 0.25], so that points do not dance on replot.
double jitter(uint32_t row) {
    uint64_t h = row * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (double(h % 10007) / 10006.0 - 0.5) * 0.5;
}

QString metric_axis_label(PlotMetric metric) {
    switch (metric) {
    case PlotMetric::Tflops:
        return QObject::tr("TFLOP/s");
    case PlotMetric::LatencyMs:
        return QObject::tr("latency (ms)");
    case PlotMetric::Efficiency:
        return QObject::tr("efficiency (TFLOPS / best of the problem)");
    }
    return {};
}

} // namespace

TraitView::TraitView(const PlotContext& context, QWidget* parent)
    : PlotView(context, parent), trait_(new QComboBox(options_)), metric_(new QComboBox(options_)) {
    for (KernelTrait t : kernel_traits())
        trait_->addItem(QString::fromUtf8(to_string(t).data(), qsizetype(to_string(t).size())),
                        int(t));
    for (PlotMetric m : plot_metrics())
        metric_->addItem(QString::fromUtf8(to_string(m).data(), qsizetype(to_string(m).size())),
                         int(m));
    trait_->setToolTip(tr("The kernel trait to group by, read from the kernel name; names "
                          "that are not gconv kernel names go to \"other\""));
    metric_->setToolTip(tr("The value of each ok row; efficiency is its TFLOPS over the best "
                           "TFLOPS of its problem"));
    auto* trait_label = new QLabel(tr("&Trait:"), options_);
    trait_label->setBuddy(trait_);
    auto* metric_label = new QLabel(tr("&Metric:"), options_);
    metric_label->setBuddy(metric_);
    options_->layout()->addWidget(trait_label);
    options_->layout()->addWidget(trait_);
    options_->layout()->addWidget(metric_label);
    options_->layout()->addWidget(metric_);
    connect(trait_, &QComboBox::currentIndexChanged, this, &PlotView::optionsChanged);
    connect(metric_, &QComboBox::currentIndexChanged, this, &PlotView::optionsChanged);

    points_ = addPointGraph(QColor(50, 110, 190, 120), 3, QCPScatterStyle::ssDisc);
    points_->setName(tr("ok rows"));
    boxes_ = new QCPStatisticalBox(plot_->xAxis, plot_->yAxis);
    boxes_->setName(tr("distribution"));
    boxes_->setWidth(k_box_width);
    boxes_->setPen(QPen(QColor(30, 30, 30), 1.5));
    boxes_->setBrush(QColor(250, 190, 80, 90));
    boxes_->setMedianPen(QPen(QColor(200, 30, 30), 2.5));
    highlight_ = addHighlightGraph();
    plot_->xAxis->setSubTicks(false);
    plot_->xAxis->grid()->setVisible(false);
}

KernelTrait TraitView::trait() const {
    return KernelTrait(trait_->currentData().toInt());
}
void TraitView::setTrait(KernelTrait trait) {
    trait_->setCurrentIndex(trait_->findData(int(trait)));
}
PlotMetric TraitView::metric() const {
    return PlotMetric(metric_->currentData().toInt());
}
void TraitView::setMetric(PlotMetric metric) {
    metric_->setCurrentIndex(metric_->findData(int(metric)));
}

void TraitView::compute() {
    const ResultTable& table = context_.store->table();
    groups_ = trait_groups(table, context_.index, context_.best, trait(), metric());
    std::unordered_map<std::string, int> slot;
    for (size_t g = 0; g < groups_.size(); ++g) slot[groups_[g].value] = int(g);
    groupOfKernel_.clear();
    for (const auto& kernel : context_.index.kernels()) {
        const std::string value =
            kernel.config ? trait_value(*kernel.config, trait()) : std::string(k_other_trait_value);
        auto it = slot.find(value);
        groupOfKernel_.push_back(it == slot.end() ? -1 : it->second);
    }

    boxes_->data()->clear();
    keys_.clear();
    values_.clear();
    rows_.clear();
    size_t total = 0;
    for (const auto& g : groups_) total += g.rows.size();
    const size_t stride = std::max<size_t>(1, (total + k_max_points - 1) / k_max_points);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double low = 1e300, high = -1e300;
    for (size_t g = 0; g < groups_.size(); ++g) {
        const TraitGroup& group = groups_[g];
        const BoxStats& b = group.box;
        boxes_->addData(double(g), b.lowerWhisker, b.lowerQuartile, b.median, b.upperQuartile,
                        b.upperWhisker);
        ticker->addTick(double(g), QStringLiteral("%1\n(n=%2)")
                                       .arg(QString::fromStdString(group.value))
                                       .arg(group.rows.size()));
        low = std::min(low, b.minimum);
        high = std::max(high, b.maximum);
        for (size_t i = 0; i < group.rows.size(); i += stride) {
            keys_.push_back(double(g) + jitter(group.rows[i]));
            values_.push_back(group.values[i]);
            rows_.push_back(group.rows[i]);
        }
    }
    points_->setData(keys_, values_, false);
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setLabel(tr("%1 (%2 ok rows%3)")
                               .arg(trait_->currentText())
                               .arg(total)
                               .arg(stride > 1 ? tr(", every %1th drawn").arg(stride) : QString()));
    plot_->yAxis->setLabel(metric_axis_label(metric()));
    const bool log = metric() == PlotMetric::LatencyMs && low > 0.0 && high / low > k_log_span;
    setLogAxis(plot_->yAxis, log);
    plot_->xAxis->setRange(-0.6, std::max<double>(1.0, double(groups_.size())) - 0.4);
    if (groups_.empty())
        plot_->yAxis->setRange(log ? 0.1 : 0.0, 1.0);
    else if (log)
        plot_->yAxis->setRange(low / 1.3, high * 1.3);
    else
        plot_->yAxis->setRange(std::min(0.0, low), high * 1.08);
}

int TraitView::groupOf(qint64 row) const {
    const uint32_t kernel = context_.index.kernelOf(size_t(row));
    return kernel < groupOfKernel_.size() ? groupOfKernel_[kernel] : -1;
}

std::optional<QPointF> TraitView::coordsOf(qint64 row) const {
    if (!context_.index.ok(size_t(row))) return std::nullopt;
    const int g = groupOf(row);
    if (g < 0) return std::nullopt;
    const MetricReader read(context_.store->table(), context_.index, context_.best, metric());
    const double v = read(size_t(row));
    if (!has_value(v)) return std::nullopt;
    return QPointF(g + jitter(uint32_t(row)), v);
}

void TraitView::drawHighlight(std::optional<QPointF> at) {
    highlight_->data()->clear();
    if (at) highlight_->addData(at->x(), at->y());
}

qint64 TraitView::rowAt(const QPointF& pixel) const {
    if (!highlight_->data()->isEmpty()) {
        const auto point = highlight_->data()->begin();
        if (std::hypot(plot_->xAxis->coordToPixel(point->key) - pixel.x(),
                       plot_->yAxis->coordToPixel(point->value) - pixel.y()) <= k_hit_pixels)
            return highlightedRow();
    }
    const int i = nearest(pixel, keys_, values_);
    return i < 0 ? -1 : qint64(rows_[size_t(i)]);
}

QString TraitView::toolTipExtra(qint64 row) const {
    const int g = groupOf(row);
    if (g < 0) return {};
    const TraitGroup& group = groups_[size_t(g)];
    return tr("%1 = %2: %3 rows, median %4, quartiles %5 .. %6")
        .arg(trait_->currentText(), QString::fromStdString(group.value))
        .arg(group.rows.size())
        .arg(group.box.median, 0, 'g', 4)
        .arg(group.box.lowerQuartile, 0, 'g', 4)
        .arg(group.box.upperQuartile, 0, 'g', 4);
}

} // namespace gconv::ui
