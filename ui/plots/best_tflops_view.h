#pragma once
// Best TFLOPS per problem: one bar per problem that has an ok row, labelled by the problem.
#include "ui/plots/plot_view.h"

#include <vector>

class QCheckBox;
class QCPBars;

namespace gconv::ui {

class BestTflopsView : public PlotView {
    Q_OBJECT
public:
    BestTflopsView(const PlotContext& context, QWidget* parent);

    QString title() const override { return tr("Best TFLOPS per problem"); }
    qint64 rowAt(const QPointF& pixel) const override;
    std::optional<QPointF> coordsOf(qint64 row) const override;
    QString toolTipExtra(qint64 row) const override;

    // Bars in descending TFLOPS instead of the order the problems first appear in.
    void setSortedByTflops(bool sorted);
    QCPBars* bars() const { return bars_; }
    // The source row behind each bar, in bar order.
    const std::vector<int64_t>& barRows() const { return rows_; }

protected:
    void compute() override;
    void drawHighlight(std::optional<QPointF> at) override;

private:
    QCheckBox* sorted_;
    QCPBars* bars_;
    QCPBars* highlightBar_;
    QCPGraph* marker_;
    QVector<double> keys_, values_;
    std::vector<int64_t> rows_;
    std::vector<int> barOfProblem_;
};

} // namespace gconv::ui
