#pragma once
// The Plots page: best TFLOPS per problem, the latency of every kernel on a problem, a kernel x
// problem efficiency heatmap, a roofline and per-trait distributions, over the ResultStore.
// Tooltips show the row under the cursor; a click makes it the store's current row, and the
// current row is highlighted where the plot shows it. Live rows are taken in at most every
// k_throttle_ms, and only while the page is visible.
#include "ui/plots/plot_view.h"

#include <QTimer>
#include <QWidget>

#include <array>

class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace gconv::ui {

class BestTflopsView;
class HeatmapView;
class LatencyView;
class ResultStore;
class RooflineView;
class TraitView;

class PlotsPage : public QWidget {
    Q_OBJECT
public:
    enum class Kind { BestTflops, Latency, Heatmap, Roofline, Traits };
    static constexpr int k_kinds = 5;
    static constexpr int k_throttle_ms = 300;

    explicit PlotsPage(ResultStore* store, QWidget* parent = nullptr);
    ~PlotsPage() override;

    Kind kind() const { return kind_; }
    void setKind(Kind kind);
    PlotView* view(Kind kind) const { return views_[size_t(kind)]; }
    PlotView* currentView() const { return view(kind_); }
    QCustomPlot* plot(Kind kind) const;
    QCustomPlot* currentPlot() const;
    BestTflopsView* bestTflopsView() const;
    LatencyView* latencyView() const;
    HeatmapView* heatmapView() const;
    RooflineView* rooflineView() const;
    TraitView* traitView() const;
    QComboBox* kindBox() const { return kindBox_; }
    // The index and per-problem bests the plots were last computed from.
    const PlotContext& context() const { return context_; }

    // In the current plot's widget coordinates: the row drawn there (-1 if none within reach),
    // its tooltip text (empty if none), and a click there (true if it selected a row).
    qint64 rowAt(const QPoint& plotPixel) const;
    QString toolTipAt(const QPoint& plotPixel) const;
    bool selectAt(const QPoint& plotPixel);
    // The row the current plot highlights, -1 if it does not show the current row.
    qint64 highlightedRow() const;
    // Rows arrived that the plots do not show yet.
    bool recomputePending() const;

public slots:
    // The current plot at its on-screen size (1200 x 800 while hidden); false if the file
    // cannot be written.
    bool exportPng(const QString& path);
    bool exportPdf(const QString& path);
    // Takes in the rows that arrived and rebuilds the current plot now (others on display).
    void recomputeNow();
    // Rebuilds every kind (a benchmark of the whole page).
    void rebuildAllKinds();

signals:
    // After each recompute (live rows taken in, or a reset).
    void recomputed();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void onReset();
    void scheduleRecompute();
    void onThrottle();
    void rebuild(Kind kind);
    void onCurrentRowChanged(qint64 row);
    void onOptionsChanged(Kind kind);
    void connectPlot(Kind kind);
    void exportWithDialog(bool pdf);
    void updateStatus();
    QSize exportSize() const;

    ResultStore* store_;
    PlotContext context_;
    std::array<PlotView*, k_kinds> views_{};
    std::array<bool, k_kinds> stale_{};
    Kind kind_ = Kind::BestTflops;
    QComboBox* kindBox_;
    QStackedWidget* optionStack_;
    QStackedWidget* plotStack_;
    QLabel* status_;
    QPushButton* pngButton_;
    QPushButton* pdfButton_;
    QTimer throttle_;
    // Rows arrived while the page was hidden: taken in when it is shown.
    bool dirty_ = false;
    QPoint pressPos_;
    qint64 hoverRow_ = -1;
};

} // namespace gconv::ui
