#pragma once
// The Compare page: two result files side by side (A the reference, B the candidate), the
// per-cell speedup table (cells matched by kernel, problem sizes, variant, dtype), the
// geometric-mean speedup with the matched / only-in-A / only-in-B counts, and a plot of the
// sorted per-cell speedups on a log axis.
#include "ui/compare/compare_model.h"

#include <QWidget>

class QCustomPlot;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace gconv::ui {

class ComparePage : public QWidget {
    Q_OBJECT
public:
    explicit ComparePage(QWidget* parent = nullptr);

    // Reads both files (any form) and compares them; a file that cannot be read is reported
    // on the page and leaves the previous comparison in place.
    void openFiles(const QString& a, const QString& b);
    bool exportPng(const QString& path);

    const CompareResult& result() const { return model_->result(); }
    CompareModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QCustomPlot* plot() const { return plot_; }
    QString summaryText() const;
    QString errorText() const;

signals:
    void compared();

private:
    void choose(bool a);
    void updatePlot();
    void showPointTip(QMouseEvent* event);

    QString pathA_, pathB_;
    CompareModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* fileA_;
    QLabel* fileB_;
    QLabel* summary_;
    QLabel* error_;
    QLineEdit* search_;
    QTableView* view_;
    QCustomPlot* plot_;
    std::vector<double> plotted_; // sorted speedups, as plotted
    std::vector<size_t> plottedCells_;
};

} // namespace gconv::ui
