#include "ui/plots/plot_view.h"

#include "ui/results/result_store.h"

#include <qcustomplot.h>

#include <QHBoxLayout>

namespace gconv::ui {

PlotView::PlotView(const PlotContext& context, QWidget* parent)
    : QObject(parent), context_(context), plot_(new QCustomPlot(parent)),
      options_(new QWidget(parent)) {
    auto* layout = new QHBoxLayout(options_);
    layout->setContentsMargins(0, 0, 0, 0);
    plot_->setMouseTracking(true);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setNoAntialiasingOnDrag(true);
    plot_->setMinimumSize(320, 240);
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { restoreHome(); });
}

PlotView::~PlotView() = default;

void PlotView::rebuild() {
    compute();
    plot_->replot();
    showCurrentRow(context_.store ? context_.store->currentRow() : -1);
}

void PlotView::showCurrentRow(qint64 row) {
    std::optional<QPointF> at;
    if (row >= 0 && size_t(row) < context_.index.rows()) at = coordsOf(row);
    highlighted_ = at ? row : -1;
    drawHighlight(at);
    plot_->replot();
}

bool PlotView::follow(qint64) {
    return false;
}

QString PlotView::toolTipExtra(qint64) const {
    return {};
}

void PlotView::restoreHome() {
    // compute() sets the full ranges again.
    compute();
    showCurrentRow(highlighted_);
}

QCPGraph* PlotView::addPointGraph(const QColor& color, double size, int shape) {
    QCPGraph* graph = plot_->addGraph();
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(
        QCPScatterStyle(static_cast<QCPScatterStyle::ScatterShape>(shape), color, color, size));
    graph->setPen(QPen(color));
    return graph;
}

QCPGraph* PlotView::addHighlightGraph() {
    QCPGraph* graph = plot_->addGraph();
    graph->setName(QStringLiteral("current row"));
    graph->removeFromLegend();
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                           QPen(QColor(220, 30, 30), 2.5), Qt::NoBrush, 14));
    return graph;
}

int PlotView::nearest(const QPointF& pixel, const QVector<double>& keys,
                      const QVector<double>& values) const {
    const QCPAxis* x = plot_->xAxis;
    const QCPAxis* y = plot_->yAxis;
    int found = -1;
    double best = k_hit_pixels * k_hit_pixels;
    for (int i = 0; i < keys.size(); ++i) {
        const double dx = x->coordToPixel(keys[i]) - pixel.x();
        if (std::abs(dx) > k_hit_pixels) continue;
        const double dy = y->coordToPixel(values[i]) - pixel.y();
        const double d = dx * dx + dy * dy;
        if (d <= best) best = d, found = i;
    }
    return found;
}

void PlotView::setLogAxis(QCPAxis* axis, bool log) {
    const bool is_log = axis->scaleType() == QCPAxis::stLogarithmic;
    if (log == is_log) return;
    axis->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log)
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    axis->setNumberFormat(log ? QStringLiteral("gb") : QStringLiteral("g"));
}

QString row_tool_tip(const PlotContext& context, size_t row) {
    const ResultRow r = context.store->row(row);
    const PlotProblem& p = context.index.problems()[context.index.problemOf(row)];
    QString text =
        QString::fromStdString(r.kernel) + QLatin1Char('\n') + QString::fromStdString(p.label);
    if (!p.problem.layer.empty())
        text +=
            QStringLiteral(" (%1)").arg(QString::fromStdString(compact_problem_label(p.problem)));
    text += QLatin1Char('\n');
    const QString signature =
        QString::fromStdString((p.variant.empty() ? "" : p.variant + " ") +
                               (p.dtype.empty() ? "" : p.dtype + " ") + p.arch);
    if (!signature.trimmed().isEmpty()) text += signature.trimmed() + QLatin1Char('\n');
    text += QStringLiteral("latency %1 ms   %2 TFLOP/s   status %3")
                .arg(has_value(r.latency_ms) ? QString::number(r.latency_ms, 'g', 4)
                                             : QStringLiteral("N/A"))
                .arg(r.tflops, 0, 'f', 1)
                .arg(QString::fromStdString(std::string(to_string(r.status))));
    text += QStringLiteral("\ntable row %1").arg(row + 1);
    return text;
}

} // namespace gconv::ui
