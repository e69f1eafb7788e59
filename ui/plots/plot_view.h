#pragma once
// One kind of plot on the Plots page: its QCustomPlot, a bar of its own options, and the
// mapping between source rows and what it draws (hit test for tooltips and clicks, and the
// highlight of the store's current row).
#include "ui/plots/plot_data.h"

#include <QObject>
#include <QPointF>
#include <QString>
#include <QVector>

#include <optional>

class QCustomPlot;
class QCPAxis;
class QCPGraph;
class QWidget;

namespace gconv::ui {

class ResultStore;

// What every view reads, owned by the page and brought up to date before a rebuild.
struct PlotContext {
    const ResultStore* store = nullptr;
    PlotIndex index;
    std::vector<ProblemBest> best;
};

class PlotView : public QObject {
    Q_OBJECT
public:
    // Nearest-point hits within this many pixels.
    static constexpr double k_hit_pixels = 6.0;

    PlotView(const PlotContext& context, QWidget* parent);
    ~PlotView() override;

    QCustomPlot* plot() const { return plot_; }
    QWidget* options() const { return options_; }
    virtual QString title() const = 0;

    // Recomputes from the context and replots; shows the store's current row again.
    void rebuild();
    // The source row drawn at `pixel` (plot widget coordinates), -1 if none is within reach.
    virtual qint64 rowAt(const QPointF& pixel) const = 0;
    // Highlights `row` where this plot places it; -1 or a row it does not place clears it.
    void showCurrentRow(qint64 row);
    qint64 highlightedRow() const { return highlighted_; }
    // Adapts the view's options to show `row` (e.g. switches to its problem); true if it
    // changed them, and then the page rebuilds the view.
    virtual bool follow(qint64 row);
    // Plot coordinates of a row this view places (for tests and for the highlight).
    virtual std::optional<QPointF> coordsOf(qint64 row) const = 0;
    // Lines this kind adds to a row's tooltip.
    virtual QString toolTipExtra(qint64 row) const;

    // The ranges of the last rebuild (a double click returns to them after zoom or drag).
    void restoreHome();

signals:
    // An option of this kind changed: the page rebuilds it.
    void optionsChanged();

protected:
    virtual void compute() = 0;
    // Draw or hide the highlight of a row (already checked to be placed by coordsOf).
    virtual void drawHighlight(std::optional<QPointF> at) = 0;

    const PlotContext& context() const { return context_; }
    // A graph of scatter points only, in `color`.
    QCPGraph* addPointGraph(const QColor& color, double size, int shape);
    QCPGraph* addHighlightGraph();
    // The index of the point nearest `pixel` among `coords`, -1 if none within k_hit_pixels.
    int nearest(const QPointF& pixel, const QVector<double>& keys,
                const QVector<double>& values) const;
    static void setLogAxis(QCPAxis* axis, bool log);

    const PlotContext& context_;
    QCustomPlot* plot_;
    QWidget* options_;

private:
    qint64 highlighted_ = -1;
};

// The common part of a row's tooltip: kernel, problem, latency, TFLOPS, status.
QString row_tool_tip(const PlotContext& context, size_t row);

} // namespace gconv::ui
