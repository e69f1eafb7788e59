#pragma once
// Kernel x problem heatmap of efficiency (TFLOPS / best TFLOPS of the problem), the kernels
// capped to the N with the best mean efficiency so that the map stays readable and cheap.
#include "ui/plots/plot_view.h"

#include <QColor>

class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QSpinBox;

namespace gconv::ui {

class HeatmapView : public PlotView {
    Q_OBJECT
public:
    static constexpr int k_default_kernels = 60;
    // Cells without an ok row.
    static QColor missingColor() { return QColor(200, 200, 200); }

    HeatmapView(const PlotContext& context, QWidget* parent);

    QString title() const override { return tr("Efficiency heatmap (kernel x problem)"); }
    qint64 rowAt(const QPointF& pixel) const override;
    std::optional<QPointF> coordsOf(qint64 row) const override;
    QString toolTipExtra(qint64 row) const override;

    int maxKernels() const;
    void setMaxKernels(int kernels);
    const EfficiencyMatrix& matrix() const { return matrix_; }
    QCPColorMap* colorMap() const { return map_; }

protected:
    void compute() override;
    void drawHighlight(std::optional<QPointF> at) override;

private:
    QSpinBox* kernels_;
    QCPColorMap* map_;
    QCPColorScale* scale_;
    QCPItemRect* highlight_;
    EfficiencyMatrix matrix_;
    std::vector<uint32_t> slotOfKernel_;
};

} // namespace gconv::ui
