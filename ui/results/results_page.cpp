#include "ui/results/results_page.h"

#include "csv/csv_writer.h"
#include "util/error.h"

#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QProgressBar>
#include <QSettings>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <filesystem>

namespace gconv::ui {
namespace {

const QString k_hiddenColumnsKey = QStringLiteral("results/hiddenColumns");

QString grouped(qint64 n) {
    return QLocale(QLocale::English, QLocale::UnitedStates).toString(n);
}

} // namespace

ResultsPage::ResultsPage(ResultStore* store, QWidget* parent)
    : QWidget(parent), store_(store), model_(new ResultsModel(store, this)),
      proxy_(new ResultsFilterProxy(this)), loader_(new ResultsLoader(store, this)) {
    proxy_->setSourceModel(model_);
    buildActions();
    buildLayout();

    filterTimer_.setSingleShot(true);
    filterTimer_.setInterval(150);
    connect(&filterTimer_, &QTimer::timeout, this, &ResultsPage::applyFilterNow);
    connect(filterEdit_, &QLineEdit::textChanged, this, [this] { filterTimer_.start(); });
    connect(filterEdit_, &QLineEdit::returnPressed, this, &ResultsPage::applyFilterNow);
    searchTimer_.setSingleShot(true);
    searchTimer_.setInterval(150);
    connect(&searchTimer_, &QTimer::timeout, this, &ResultsPage::applySearch);
    connect(searchEdit_, &QLineEdit::textChanged, this, [this] { searchTimer_.start(); });

    connect(proxy_, &ResultsFilterProxy::filterApplied, this, &ResultsPage::updateRowCount);
    connect(proxy_, &QAbstractItemModel::rowsInserted, this, &ResultsPage::updateRowCount);
    connect(proxy_, &QAbstractItemModel::modelReset, this, &ResultsPage::updateRowCount);
    connect(proxy_, &ResultsFilterProxy::expressionFailed, this, &ResultsPage::showFilterError);
    connect(model_, &QAbstractItemModel::modelReset, this, [this] {
        applyHiddenColumns();
        if (!sizedColumns_ && model_->rowCount() > 0) {
            sizedColumns_ = true;
            view_->resizeColumnsToContents();
        }
    });

    connect(loader_, &ResultsLoader::started, this, [this](const QString& path) {
        progress_->setValue(0);
        progress_->show();
        cancel_->show();
        showStatus(tr("Reading %1 ...").arg(QFileInfo(path).fileName()), false);
    });
    connect(loader_, &ResultsLoader::progress, this, [this](const QString&, double fraction) {
        progress_->setValue(static_cast<int>(fraction * 1000));
    });
    connect(loader_, &ResultsLoader::opened, this,
            [this](const QString& path, size_t rows, const QStringList& warnings) {
                QString text = tr("Opened %1: %2 rows").arg(path, grouped(qint64(rows)));
                if (!warnings.isEmpty()) text += QStringLiteral(" - ") + warnings.join("; ");
                showStatus(text, false);
                emit fileOpened(path);
            });
    connect(loader_, &ResultsLoader::failed, this,
            [this](const QString& path, const QString& message) {
                showStatus(tr("Not opened: %1").arg(message), true);
                emit fileFailed(path, message);
            });
    connect(loader_, &ResultsLoader::cancelled, this, [this](const QString& path) {
        showStatus(tr("Cancelled reading %1; nothing was added").arg(path), false);
    });
    connect(loader_, &ResultsLoader::idle, this, [this] {
        progress_->hide();
        cancel_->hide();
    });
    connect(cancel_, &QToolButton::clicked, loader_, &ResultsLoader::cancel);

    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ResultsPage::syncCurrentFromView);
    connect(store_, &ResultStore::currentRowChanged, this, &ResultsPage::syncViewFromStore);
    updateRowCount();
}

void ResultsPage::buildActions() {
    openAction_ = new QAction(tr("&Open results..."), this);
    openAction_->setShortcut(QKeySequence::Open);
    openAction_->setToolTip(tr("Open one or more results CSVs (gconv's, the tile engine's or the "
                               "seed's form)"));
    connect(openAction_, &QAction::triggered, this, &ResultsPage::chooseAndOpen);
    exportAction_ = new QAction(tr("&Export visible rows..."), this);
    exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    exportAction_->setToolTip(
        tr("Write the rows shown, in view order, as a CSV in gconv's full form"));
    connect(exportAction_, &QAction::triggered, this, &ResultsPage::chooseAndExport);
    addAction(openAction_);
    addAction(exportAction_);
}

void ResultsPage::buildLayout() {
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);

    auto* openButton = new QToolButton;
    openButton->setDefaultAction(openAction_);
    auto* exportButton = new QToolButton;
    exportButton->setDefaultAction(exportAction_);

    filterEdit_ = new QLineEdit;
    filterEdit_->setFont(mono);
    filterEdit_->setClearButtonEnabled(true);
    filterEdit_->setPlaceholderText(tr("filter, e.g. tflops > 100 and G == 32"));
    filterEdit_->setToolTip(
        tr("The gconv filter language over columns: == != < <= > >=, and/or/not, in [...], "
           "+ - * / %. Text in quotes: status == \"fail\". An N/A number matches no "
           "comparison except !=."));
    searchEdit_ = new QLineEdit;
    searchEdit_->setClearButtonEnabled(true);
    searchEdit_->setPlaceholderText(tr("search kernel / problem / error"));
    searchEdit_->setToolTip(tr("Case-insensitive text in the kernel name, problem key, layer, "
                               "set or error message"));
    searchEdit_->setMaximumWidth(260);

    statusButton_ = new QToolButton;
    statusButton_->setText(tr("Status"));
    statusButton_->setToolTip(tr("Show only rows with the checked statuses"));
    statusButton_->setPopupMode(QToolButton::InstantPopup);
    auto* statusMenu = new QMenu(statusButton_);
    for (const auto& name : cell_status_names()) {
        auto* action = statusMenu->addAction(QString::fromStdString(name));
        action->setCheckable(true);
        action->setChecked(true);
        const auto status = *cell_status_from_string(name);
        action->setData(static_cast<int>(status));
        action->setIcon(ResultsModel::statusIcon(status));
        connect(action, &QAction::toggled, this, &ResultsPage::applyStatusMenu);
    }
    statusButton_->setMenu(statusMenu);

    bestButton_ = new QToolButton;
    bestButton_->setText(tr("Best per problem"));
    bestButton_->setCheckable(true);
    bestButton_->setToolTip(tr("Only the fastest ok row of each problem (sizes, variant, dtype, "
                               "arch) among the rows the other filters keep"));
    connect(bestButton_, &QToolButton::toggled, proxy_, &ResultsFilterProxy::setBestPerProblem);

    rowCount_ = new QLabel;
    rowCount_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    rowCount_->setMinimumWidth(
        rowCount_->fontMetrics().horizontalAdvance(QStringLiteral("0,000,000 of 0,000,000 rows")));

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(openButton);
    bar->addWidget(exportButton);
    bar->addWidget(filterEdit_, 1);
    bar->addWidget(searchEdit_);
    bar->addWidget(statusButton_);
    bar->addWidget(bestButton_);
    bar->addWidget(rowCount_);

    filterError_ = new QLabel;
    filterError_->setFont(mono);
    filterError_->setStyleSheet(QStringLiteral("color: #c62828;"));
    filterError_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    filterError_->hide();

    view_ = new QTableView;
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(-1, Qt::AscendingOrder);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setWordWrap(false);
    view_->setAlternatingRowColors(true);
    // A fixed row height keeps the view independent of the row count.
    view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    view_->horizontalHeader()->setSectionsMovable(true);
    view_->horizontalHeader()->setHighlightSections(false);
    connect(view_->horizontalHeader(), &QHeaderView::customContextMenuRequested, this,
            &ResultsPage::showColumnMenu);

    status_ = new QLabel;
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setWordWrap(true);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(200);
    progress_->setTextVisible(false);
    progress_->hide();
    cancel_ = new QToolButton;
    cancel_->setText(tr("Cancel"));
    cancel_->setToolTip(tr("Stop reading; the file being read is not added"));
    cancel_->hide();
    auto* statusLine = new QHBoxLayout;
    statusLine->setContentsMargins(0, 0, 0, 0);
    statusLine->addWidget(status_, 1);
    statusLine->addWidget(progress_);
    statusLine->addWidget(cancel_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(3);
    layout->addLayout(bar);
    layout->addWidget(filterError_);
    layout->addWidget(view_, 1);
    layout->addLayout(statusLine);
}

void ResultsPage::openFiles(const QStringList& paths) {
    if (!paths.isEmpty()) loader_->open(paths);
}

void ResultsPage::chooseAndOpen() {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open results"), QString(), tr("Results CSV (*.csv);;All files (*)"));
    openFiles(paths);
}

void ResultsPage::chooseAndExport() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export visible rows"), QString(),
                                                      tr("Results CSV (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (exportVisibleRows(path, &error))
        showStatus(tr("Wrote %1 rows to %2").arg(grouped(proxy_->rowCount()), path), false);
    else
        showStatus(error, true);
}

bool ResultsPage::exportVisibleRows(const QString& path, QString* error) {
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const std::vector<size_t> rows = proxy_->visibleStoreRows();
    try {
        CsvWriter writer(std::filesystem::path(path.toStdString()), CsvWriterOptions{});
        for (size_t row : rows) writer.write(store_->row(row));
        writer.close();
    } catch (const std::exception& e) {
        QApplication::restoreOverrideCursor();
        if (error) *error = tr("Export failed: %1").arg(QString::fromStdString(e.what()));
        return false;
    }
    QApplication::restoreOverrideCursor();
    return true;
}

void ResultsPage::applyFilterNow() {
    filterTimer_.stop();
    const auto error = proxy_->setFilterExpression(filterEdit_->text());
    if (error) {
        showFilterError(*error);
        emit filterEvaluated(error->message);
        return;
    }
    filterError_->hide();
    filterError_->clear();
    filterEdit_->setStyleSheet(QString());
    emit filterEvaluated(QString());
}

void ResultsPage::showFilterError(const ResultsFilterProxy::ExpressionError& error) {
    // FilterError's text already holds the expression and a caret under the bad token.
    filterError_->setText(error.message);
    filterError_->show();
    filterEdit_->setStyleSheet(QStringLiteral("QLineEdit { border: 1px solid #c62828; }"));
    if (error.column >= 0) filterEdit_->setCursorPosition(error.column);
}

void ResultsPage::applySearch() {
    proxy_->setTextFilter(searchEdit_->text());
}

void ResultsPage::applyStatusMenu() {
    StatusSet allowed = 0;
    int unchecked = 0;
    for (auto* action : statusButton_->menu()->actions()) {
        if (action->isChecked())
            allowed |= status_bit(static_cast<CellStatus>(action->data().toInt()));
        else
            ++unchecked;
    }
    statusButton_->setText(
        unchecked ? tr("Status (%1)").arg(statusButton_->menu()->actions().size() - unchecked)
                  : tr("Status"));
    proxy_->setStatusFilter(unchecked ? allowed : k_all_statuses);
}

void ResultsPage::updateRowCount() {
    rowCount_->setText(rowCountText());
}

QString ResultsPage::rowCountText() const {
    return tr("%1 of %2 rows")
        .arg(grouped(proxy_->rowCount()), grouped(qint64(store_->rowCount())));
}

QString ResultsPage::statusText() const {
    return status_->text();
}

QString ResultsPage::filterErrorText() const {
    return filterError_->isVisible() || !filterError_->text().isEmpty() ? filterError_->text()
                                                                        : QString();
}

void ResultsPage::showStatus(const QString& text, bool error) {
    status_->setText(text);
    status_->setStyleSheet(error ? QStringLiteral("color: #c62828;") : QString());
}

void ResultsPage::showColumnMenu(const QPoint& at) {
    QMenu menu(this);
    auto* header = view_->horizontalHeader();
    for (int i = 0; i < model_->columnCount(); ++i) {
        auto* action = menu.addAction(model_->columns()[i].name);
        action->setCheckable(true);
        action->setChecked(!header->isSectionHidden(i));
        connect(action, &QAction::toggled, this, [this, i](bool shown) {
            view_->horizontalHeader()->setSectionHidden(i, !shown);
            saveHiddenColumns();
        });
    }
    menu.addSeparator();
    menu.addAction(tr("Show all columns"), this, [this] {
        for (int i = 0; i < model_->columnCount(); ++i)
            view_->horizontalHeader()->setSectionHidden(i, false);
        saveHiddenColumns();
    });
    menu.exec(header->mapToGlobal(at));
}

void ResultsPage::saveHiddenColumns() {
    // Names the current table does not have stay hidden for later files.
    QStringList hidden = QSettings().value(k_hiddenColumnsKey).toStringList();
    for (int i = 0; i < model_->columnCount(); ++i) {
        const QString& name = model_->columns()[i].name;
        hidden.removeAll(name);
        if (view_->horizontalHeader()->isSectionHidden(i)) hidden << name;
    }
    QSettings().setValue(k_hiddenColumnsKey, hidden);
}

void ResultsPage::applyHiddenColumns() {
    // Until the user chooses, the bookkeeping columns stay out of the way.
    static const QStringList k_hiddenByDefault = {"content_key", "toolchain", "timestamp",
                                                  "problem_key", "warmup",    "repeat"};
    const QStringList hidden =
        QSettings().value(k_hiddenColumnsKey, k_hiddenByDefault).toStringList();
    for (int i = 0; i < model_->columnCount(); ++i)
        view_->horizontalHeader()->setSectionHidden(i, hidden.contains(model_->columns()[i].name));
}

void ResultsPage::syncCurrentFromView() {
    if (syncing_) return;
    const QModelIndex current = view_->selectionModel()->currentIndex();
    if (!current.isValid()) return;
    syncing_ = true;
    store_->setCurrentRow(static_cast<qint64>(proxy_->storeRow(current.row())));
    syncing_ = false;
}

void ResultsPage::syncViewFromStore(qint64 storeRow) {
    if (syncing_ || storeRow < 0) return;
    const int row = proxy_->proxyRow(static_cast<size_t>(storeRow));
    if (row < 0) return;
    syncing_ = true;
    view_->selectRow(row);
    view_->scrollTo(proxy_->index(row, 0), QAbstractItemView::PositionAtCenter);
    syncing_ = false;
}

} // namespace gconv::ui
