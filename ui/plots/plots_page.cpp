#include "ui/plots/plots_page.h"

#include "ui/plots/best_tflops_view.h"
#include "ui/plots/heatmap_view.h"
#include "ui/plots/latency_view.h"
#include "ui/plots/roofline_view.h"
#include "ui/plots/trait_view.h"
#include "ui/results/result_store.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>

namespace gconv::ui {

PlotsPage::PlotsPage(ResultStore* store, QWidget* parent)
    : QWidget(parent), store_(store), kindBox_(new QComboBox(this)),
      optionStack_(new QStackedWidget(this)), plotStack_(new QStackedWidget(this)),
      status_(new QLabel(this)), pngButton_(new QPushButton(tr("Export P&NG..."), this)),
      pdfButton_(new QPushButton(tr("Export P&DF..."), this)) {
    context_.store = store_;
    views_[size_t(Kind::BestTflops)] = new BestTflopsView(context_, this);
    views_[size_t(Kind::Latency)] = new LatencyView(context_, this);
    views_[size_t(Kind::Heatmap)] = new HeatmapView(context_, this);
    views_[size_t(Kind::Roofline)] = new RooflineView(context_, this);
    views_[size_t(Kind::Traits)] = new TraitView(context_, this);
    stale_.fill(true);

    auto* kind_label = new QLabel(tr("&Plot:"), this);
    kind_label->setBuddy(kindBox_);
    for (int k = 0; k < k_kinds; ++k) {
        PlotView* v = views_[size_t(k)];
        kindBox_->addItem(v->title());
        // The bars differ in width: keep each one's controls together on the left.
        static_cast<QBoxLayout*>(v->options()->layout())->addStretch(1);
        optionStack_->addWidget(v->options());
        plotStack_->addWidget(v->plot());
        connect(v, &PlotView::optionsChanged, this, [this, k] { onOptionsChanged(Kind(k)); });
        connectPlot(Kind(k));
    }
    optionStack_->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Preferred);
    status_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    pngButton_->setToolTip(tr("Save the current plot as a PNG image"));
    pdfButton_->setToolTip(tr("Save the current plot as a vector PDF"));

    auto* bar = new QHBoxLayout;
    bar->addWidget(kind_label);
    bar->addWidget(kindBox_);
    bar->addSpacing(12);
    bar->addWidget(optionStack_);
    bar->addStretch(1);
    bar->addWidget(status_);
    bar->addWidget(pngButton_);
    bar->addWidget(pdfButton_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(plotStack_, 1);

    connect(kindBox_, &QComboBox::currentIndexChanged, this, [this](int i) { setKind(Kind(i)); });
    connect(pngButton_, &QPushButton::clicked, this, [this] { exportWithDialog(false); });
    connect(pdfButton_, &QPushButton::clicked, this, [this] { exportWithDialog(true); });

    throttle_.setSingleShot(true);
    throttle_.setInterval(k_throttle_ms);
    connect(&throttle_, &QTimer::timeout, this, &PlotsPage::onThrottle);
    connect(store_, &ResultStore::reset, this, &PlotsPage::onReset);
    connect(store_, &ResultStore::rowsAppended, this, &PlotsPage::scheduleRecompute);
    connect(store_, &ResultStore::currentRowChanged, this, &PlotsPage::onCurrentRowChanged);

    recomputeNow();
}

PlotsPage::~PlotsPage() = default;

QCustomPlot* PlotsPage::plot(Kind kind) const {
    return view(kind)->plot();
}
QCustomPlot* PlotsPage::currentPlot() const {
    return currentView()->plot();
}
BestTflopsView* PlotsPage::bestTflopsView() const {
    return static_cast<BestTflopsView*>(view(Kind::BestTflops));
}
LatencyView* PlotsPage::latencyView() const {
    return static_cast<LatencyView*>(view(Kind::Latency));
}
HeatmapView* PlotsPage::heatmapView() const {
    return static_cast<HeatmapView*>(view(Kind::Heatmap));
}
RooflineView* PlotsPage::rooflineView() const {
    return static_cast<RooflineView*>(view(Kind::Roofline));
}
TraitView* PlotsPage::traitView() const {
    return static_cast<TraitView*>(view(Kind::Traits));
}

void PlotsPage::setKind(Kind kind) {
    kind_ = kind;
    if (kindBox_->currentIndex() != int(kind)) kindBox_->setCurrentIndex(int(kind));
    optionStack_->setCurrentIndex(int(kind));
    plotStack_->setCurrentIndex(int(kind));
    hoverRow_ = -1;
    if (currentView()->follow(store_->currentRow())) stale_[size_t(kind)] = true;
    if (stale_[size_t(kind)])
        rebuild(kind);
    else
        currentView()->showCurrentRow(store_->currentRow());
}

void PlotsPage::onReset() {
    // Row numbers of the old content mean nothing now: drop what the plots map to rows at
    // once, and take the new content in with the next recompute.
    context_.index.clear();
    context_.best.clear();
    stale_.fill(true);
    rebuild(kind_);
    scheduleRecompute();
}

void PlotsPage::scheduleRecompute() {
    // Not restarted per batch: a sweep streaming rows still sees the plots every interval.
    if (!throttle_.isActive()) throttle_.start();
}

void PlotsPage::onThrottle() {
    if (!isVisible()) {
        dirty_ = true;
        return;
    }
    recomputeNow();
}

void PlotsPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (dirty_) recomputeNow();
}

bool PlotsPage::recomputePending() const {
    return dirty_ || throttle_.isActive() || context_.index.rows() != store_->rowCount();
}

void PlotsPage::recomputeNow() {
    throttle_.stop();
    dirty_ = false;
    context_.index.update(store_->table());
    context_.best = best_per_problem(store_->table(), context_.index);
    stale_.fill(true);
    rebuild(kind_);
    updateStatus();
    emit recomputed();
}

void PlotsPage::rebuildAllKinds() {
    for (int k = 0; k < k_kinds; ++k) rebuild(Kind(k));
}

void PlotsPage::rebuild(Kind kind) {
    view(kind)->rebuild();
    stale_[size_t(kind)] = false;
}

void PlotsPage::onOptionsChanged(Kind kind) {
    if (kind == kind_)
        rebuild(kind);
    else
        stale_[size_t(kind)] = true;
}

void PlotsPage::onCurrentRowChanged(qint64 row) {
    if (stale_[size_t(kind_)]) return; // highlighted when it is rebuilt
    if (currentView()->follow(row))
        rebuild(kind_);
    else
        currentView()->showCurrentRow(row);
}

qint64 PlotsPage::rowAt(const QPoint& plotPixel) const {
    const qint64 row = currentView()->rowAt(plotPixel);
    return row >= 0 && size_t(row) < context_.index.rows() ? row : -1;
}

QString PlotsPage::toolTipAt(const QPoint& plotPixel) const {
    const qint64 row = rowAt(plotPixel);
    if (row < 0) return {};
    QString text = row_tool_tip(context_, size_t(row));
    const QString extra = currentView()->toolTipExtra(row);
    if (!extra.isEmpty()) text += QLatin1Char('\n') + extra;
    return text;
}

bool PlotsPage::selectAt(const QPoint& plotPixel) {
    const qint64 row = rowAt(plotPixel);
    if (row < 0) return false;
    store_->setCurrentRow(row);
    return true;
}

qint64 PlotsPage::highlightedRow() const {
    return currentView()->highlightedRow();
}

void PlotsPage::connectPlot(Kind kind) {
    QCustomPlot* plot = view(kind)->plot();
    connect(plot, &QCustomPlot::mouseMove, this, [this, plot](QMouseEvent* event) {
        if (event->buttons() != Qt::NoButton) return; // dragging
        const QPoint pos = event->position().toPoint();
        const qint64 row = rowAt(pos);
        if (row == hoverRow_) return;
        hoverRow_ = row;
        if (row < 0)
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), toolTipAt(pos), plot);
    });
    connect(plot, &QCustomPlot::mousePress, this,
            [this](QMouseEvent* event) { pressPos_ = event->position().toPoint(); });
    connect(plot, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
        // A drag pans the plot; only a click in place selects.
        const QPoint pos = event->position().toPoint();
        if (event->button() == Qt::LeftButton && (pos - pressPos_).manhattanLength() <= 3)
            selectAt(pos);
    });
}

void PlotsPage::updateStatus() {
    const QLocale locale;
    status_->setText(tr("%1 ok rows of %2 \u00b7 %3 problems \u00b7 %4 kernels")
                         .arg(locale.toString(qulonglong(context_.index.okRows())),
                              locale.toString(qulonglong(context_.index.rows())))
                         .arg(context_.index.problems().size())
                         .arg(context_.index.kernels().size()));
    status_->setStyleSheet({});
}

QSize PlotsPage::exportSize() const {
    const QCustomPlot* plot = currentPlot();
    if (plot->isVisible() && plot->width() > 0 && plot->height() > 0) return plot->size();
    return {1200, 800};
}

bool PlotsPage::exportPng(const QString& path) {
    const QSize size = exportSize();
    return currentPlot()->savePng(path, size.width(), size.height());
}

bool PlotsPage::exportPdf(const QString& path) {
    const QSize size = exportSize();
    return currentPlot()->savePdf(path, size.width(), size.height(), QCP::epAllowCosmetic,
                                  QStringLiteral("gconv-explorer"), currentView()->title());
}

void PlotsPage::exportWithDialog(bool pdf) {
    const QString filter = pdf ? tr("PDF documents (*.pdf)") : tr("PNG images (*.png)");
    const QString suffix = pdf ? QStringLiteral(".pdf") : QStringLiteral(".png");
    QString path = QFileDialog::getSaveFileName(
        this, pdf ? tr("Export plot as PDF") : tr("Export plot as PNG"),
        QStringLiteral("gconv-plot") + suffix, filter);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += suffix;
    if (pdf ? exportPdf(path) : exportPng(path)) {
        updateStatus();
        status_->setText(status_->text() + tr(" \u00b7 saved %1").arg(QFileInfo(path).fileName()));
    } else {
        status_->setText(tr("Could not write %1").arg(path));
        status_->setStyleSheet(QStringLiteral("color: #c0392b;"));
    }
}

} // namespace gconv::ui
