#include "ui/compare/compare_page.h"

#include "util/error.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <numeric>

namespace gconv::ui {

ComparePage::ComparePage(QWidget* parent)
    : QWidget(parent), model_(new CompareModel(this)), proxy_(new CompareProxy(this)) {
    proxy_->setSourceModel(model_);

    auto* chooseA = new QPushButton(tr("A (reference)..."));
    chooseA->setToolTip(tr("The results file the speedups are relative to"));
    auto* chooseB = new QPushButton(tr("B (candidate)..."));
    chooseB->setToolTip(tr("The results file compared against A; speedup = latency A / B"));
    connect(chooseA, &QPushButton::clicked, this, [this] { choose(true); });
    connect(chooseB, &QPushButton::clicked, this, [this] { choose(false); });
    fileA_ = new QLabel(tr("A: none"));
    fileB_ = new QLabel(tr("B: none"));
    auto* png = new QPushButton(tr("Export PNG..."));
    connect(png, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), QString(),
                                                          tr("PNG image (*.png)"));
        if (!path.isEmpty()) exportPng(path);
    });
    auto* files = new QHBoxLayout;
    files->addWidget(chooseA);
    files->addWidget(fileA_, 1);
    files->addWidget(chooseB);
    files->addWidget(fileB_, 1);
    files->addWidget(png);

    summary_ = new QLabel;
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_ = new QLabel;
    error_->setStyleSheet(QStringLiteral("color: #c62828;"));
    error_->setWordWrap(true);
    error_->hide();
    search_ = new QLineEdit;
    search_->setPlaceholderText(tr("search kernel / problem"));
    search_->setClearButtonEnabled(true);
    connect(search_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);

    view_ = new QTableView;
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(CompareModel::Speedup, Qt::DescendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setWordWrap(false);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);

    plot_ = new QCustomPlot;
    plot_->setMinimumHeight(160);
    plot_->xAxis->setLabel(tr("cells, sorted by speedup"));
    plot_->yAxis->setLabel(tr("speedup A/B"));
    plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->addGraph();
    plot_->graph(0)->setLineStyle(QCPGraph::lsNone);
    plot_->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    plot_->addGraph();
    plot_->graph(1)->setPen(QPen(Qt::darkGray, 1, Qt::DashLine));
    plot_->setToolTip(QString());
    connect(plot_, &QCustomPlot::mouseMove, this, &ComparePage::showPointTip);

    auto* tablePane = new QWidget;
    auto* tableLayout = new QVBoxLayout(tablePane);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(search_);
    tableLayout->addWidget(view_);
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(tablePane);
    splitter->addWidget(plot_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(files);
    layout->addWidget(summary_);
    layout->addWidget(error_);
    layout->addWidget(splitter, 1);
}

void ComparePage::choose(bool a) {
    const QString path = QFileDialog::getOpenFileName(this, a ? tr("Open A") : tr("Open B"),
                                                      QString(), tr("Results CSV (*.csv)"));
    if (path.isEmpty()) return;
    if (a)
        pathA_ = path;
    else
        pathB_ = path;
    if (!pathA_.isEmpty() && !pathB_.isEmpty()) openFiles(pathA_, pathB_);
}

void ComparePage::openFiles(const QString& a, const QString& b) {
    CompareResult result;
    try {
        const auto tableA = read_results_csv(a.toStdString());
        const auto tableB = read_results_csv(b.toStdString());
        result = compare_results(tableA.table, tableB.table);
    } catch (const std::exception& e) {
        error_->setText(tr("Cannot compare: %1").arg(QString::fromStdString(e.what())));
        error_->show();
        return;
    }
    error_->hide();
    error_->clear();
    pathA_ = a;
    pathB_ = b;
    fileA_->setText(tr("A: %1").arg(QFileInfo(a).fileName()));
    fileA_->setToolTip(a);
    fileB_->setText(tr("B: %1").arg(QFileInfo(b).fileName()));
    fileB_->setToolTip(b);
    model_->setResult(std::move(result));
    const CompareResult& r = model_->result();
    summary_->setText(
        tr("geomean speedup %1 over %2 cells that ran in both  |  matched %3, only in A %4, "
           "only in B %5")
            .arg(std::isnan(r.geomeanSpeedup) ? QStringLiteral("N/A")
                                              : QString::number(r.geomeanSpeedup, 'f', 3))
            .arg(r.withSpeedup)
            .arg(r.matched)
            .arg(r.onlyA)
            .arg(r.onlyB));
    view_->resizeColumnsToContents();
    updatePlot();
    emit compared();
}

void ComparePage::updatePlot() {
    const auto& cells = model_->result().cells;
    plottedCells_.clear();
    for (size_t i = 0; i < cells.size(); ++i)
        if (has_value(cells[i].speedup)) plottedCells_.push_back(i);
    std::stable_sort(plottedCells_.begin(), plottedCells_.end(),
                     [&](size_t x, size_t y) { return cells[x].speedup < cells[y].speedup; });
    QVector<double> xs, ys;
    plotted_.clear();
    for (size_t i = 0; i < plottedCells_.size(); ++i) {
        xs << double(i);
        ys << cells[plottedCells_[i]].speedup;
        plotted_.push_back(ys.back());
    }
    plot_->graph(0)->setData(xs, ys, true);
    const double n = std::max<double>(1.0, double(xs.size()));
    plot_->graph(1)->setData({-0.5, n - 0.5}, {1.0, 1.0});
    plot_->xAxis->setRange(-0.5, n - 0.5);
    double lo = 0.5, hi = 2.0;
    if (!plotted_.empty()) {
        lo = std::min(lo, plotted_.front() * 0.9);
        hi = std::max(hi, plotted_.back() * 1.1);
    }
    plot_->yAxis->setRange(lo, hi);
    plot_->replot();
}

void ComparePage::showPointTip(QMouseEvent* event) {
    if (plotted_.empty()) return;
    const double x = plot_->xAxis->pixelToCoord(event->pos().x());
    const long i = std::lround(x);
    if (i < 0 || i >= static_cast<long>(plotted_.size())) {
        QToolTip::hideText();
        return;
    }
    const double yPixel = plot_->yAxis->coordToPixel(plotted_[static_cast<size_t>(i)]);
    if (std::abs(yPixel - event->pos().y()) > 12) {
        QToolTip::hideText();
        return;
    }
    const CompareCell& c = model_->result().cells[plottedCells_[static_cast<size_t>(i)]];
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("%1\n%2\nA %3 ms, B %4 ms: speedup %5")
                           .arg(QString::fromStdString(c.kernel), QString::fromStdString(c.problem),
                                QString::number(c.latencyA, 'g', 4),
                                QString::number(c.latencyB, 'g', 4),
                                QString::number(c.speedup, 'f', 3)),
                       plot_);
}

bool ComparePage::exportPng(const QString& path) {
    return plot_->savePng(path, 0, 0, 1.0, -1, 96);
}

QString ComparePage::summaryText() const {
    return summary_->text();
}

QString ComparePage::errorText() const {
    return error_->text();
}

} // namespace gconv::ui
