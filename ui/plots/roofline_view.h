#pragma once
// Roofline: arithmetic intensity (FLOP per minimal byte) against achieved TFLOP/s of the best
// kernel per problem, optionally every ok row as faint points, under the device's ceilings.
#include "ui/plots/plot_view.h"

class QCheckBox;
class QDoubleSpinBox;

namespace gconv::ui {

class RooflineView : public PlotView {
    Q_OBJECT
public:
    // H200 measured: HBM3e stream bandwidth, dense bf16 tensor-core matmul, fp32 SIMT FMA.
    static constexpr double k_default_bandwidth_gbps = 4149.0;
    static constexpr double k_default_compute_tflops = 738.0;
    static constexpr double k_fp32_compute_tflops = 60.0;
    // Faint points beyond this are thinned so that a million rows stay fluid.
    static constexpr size_t k_max_points = 100000;

    RooflineView(const PlotContext& context, QWidget* parent);

    QString title() const override { return tr("Roofline"); }
    qint64 rowAt(const QPointF& pixel) const override;
    std::optional<QPointF> coordsOf(qint64 row) const override;
    QString toolTipExtra(qint64 row) const override;

    double bandwidthGbps() const;
    double computeTflops() const;
    // Setting a value by hand (or here) keeps it; until then the compute roof follows the
    // data's dtype (the fp32 roof when every problem is fp32).
    void setCeilings(double bandwidthGbps, double computeTflops);
    bool allRowsShown() const;
    void setAllRowsShown(bool shown);
    // TFLOP/s the ceilings allow at an intensity (FLOP/B).
    double attainable(double intensity) const;

    QCPGraph* bestPoints() const { return best_; }
    QCPGraph* allPoints() const { return faint_; }
    QCPGraph* ceilings() const { return ceiling_; }

protected:
    void compute() override;
    void drawHighlight(std::optional<QPointF> at) override;

private:
    QDoubleSpinBox* bandwidth_;
    QDoubleSpinBox* compute_;
    QCheckBox* allRows_;
    bool computeEdited_ = false;
    QCPGraph* ceiling_;
    QCPGraph* faint_;
    QCPGraph* best_;
    QCPGraph* highlight_;
    QVector<double> bestKeys_, bestValues_;
    std::vector<int64_t> bestRows_;
    // Faint points per problem, ascending TFLOPS, and the problems in ascending intensity.
    std::vector<std::vector<RowValue>> byProblem_;
    std::vector<uint32_t> problemOrder_;
};

} // namespace gconv::ui
