#pragma once
// The latency of every kernel on one problem, ascending, the fastest marked; the y axis turns
// logarithmic when the latencies span more than a decade.
#include "ui/plots/plot_view.h"

#include <QVector>

#include <unordered_map>

class QComboBox;

namespace gconv::ui {

class LatencyView : public PlotView {
    Q_OBJECT
public:
    // max / min latency beyond which the axis is logarithmic.
    static constexpr double k_log_span = 10.0;

    LatencyView(const PlotContext& context, QWidget* parent);

    QString title() const override { return tr("Latency of every kernel on a problem"); }
    qint64 rowAt(const QPointF& pixel) const override;
    std::optional<QPointF> coordsOf(qint64 row) const override;
    QString toolTipExtra(qint64 row) const override;
    // Switches to the problem of `row`.
    bool follow(qint64 row) override;

    // PlotIndex problem id shown, PlotIndex::k_none before there is one.
    uint32_t problem() const { return problem_; }
    void setProblem(uint32_t problem);
    QComboBox* problemBox() const { return problemBox_; }
    QCPGraph* points() const { return points_; }
    QCPGraph* bestPoint() const { return best_; }
    // The source rows in plotted order (ascending latency).
    const std::vector<RowValue>& series() const { return series_; }

protected:
    void compute() override;
    void drawHighlight(std::optional<QPointF> at) override;

private:
    void fillProblemBox();

    QComboBox* problemBox_;
    QCPGraph* points_;
    QCPGraph* best_;
    QCPGraph* highlight_;
    uint32_t problem_ = PlotIndex::k_none;
    std::vector<RowValue> series_;
    QVector<double> keys_, values_;
    // Rank (x) of each row of the shown problem, by row.
    std::unordered_map<uint32_t, int> rankOfRow_;
};

} // namespace gconv::ui
