#pragma once
// Per-trait distribution: one box (quartiles, Tukey whiskers) per value of a kernel trait,
// over jittered points of the ok rows, for a chosen metric.
#include "ui/plots/plot_view.h"
#include "ui/plots/trait_groups.h"

class QComboBox;
class QCPStatisticalBox;

namespace gconv::ui {

class TraitView : public PlotView {
    Q_OBJECT
public:
    // More points than this are thinned (every n-th row) so that a million rows stay fluid;
    // the boxes always use every row.
    static constexpr int k_max_points = 20000;

    TraitView(const PlotContext& context, QWidget* parent);

    QString title() const override { return tr("Per-trait distribution"); }
    qint64 rowAt(const QPointF& pixel) const override;
    std::optional<QPointF> coordsOf(qint64 row) const override;
    QString toolTipExtra(qint64 row) const override;

    KernelTrait trait() const;
    void setTrait(KernelTrait trait);
    PlotMetric metric() const;
    void setMetric(PlotMetric metric);
    const std::vector<TraitGroup>& groups() const { return groups_; }
    QCPStatisticalBox* boxes() const { return boxes_; }
    QCPGraph* points() const { return points_; }

protected:
    void compute() override;
    void drawHighlight(std::optional<QPointF> at) override;

private:
    int groupOf(qint64 row) const;

    QComboBox* trait_;
    QComboBox* metric_;
    QCPStatisticalBox* boxes_;
    QCPGraph* points_;
    QCPGraph* highlight_;
    std::vector<TraitGroup> groups_;
    std::vector<int> groupOfKernel_;
    QVector<double> keys_, values_;
    std::vector<uint32_t> rows_;
};

} // namespace gconv::ui
