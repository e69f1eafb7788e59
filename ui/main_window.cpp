#include "ui/main_window.h"

#include "ui/compare/compare_page.h"
#include "ui/kernels/kernels_page.h"
#include "ui/plots/plots_page.h"
#include "ui/problems/problems_page.h"
#include "ui/resources.h"
#include "ui/results/result_store.h"
#include "ui/results/results_page.h"
#include "ui/sweep/sweep_page.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QIcon>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>

namespace gconv::ui {

namespace {

constexpr int k_max_recent = 10;
const char* k_sample_resource = ":/gconv/sample/h200_forward_bf16.csv";

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), store_(new ResultStore(this)) {
    initResources();
    setWindowIcon(QIcon(":/gconv/icons/gconv.svg"));
    buildPages();
    buildMenus();
    connectPages();
    restoreLayout();
    updateTitle();
}

MainWindow::~MainWindow() = default;

QString MainWindow::pageName(Page page) {
    switch (page) {
    case Kernels:
        return tr("Kernels");
    case Problems:
        return tr("Problems");
    case Sweep:
        return tr("Sweep");
    case Results:
        return tr("Results");
    case Plots:
        return tr("Plots");
    case Compare:
        return tr("Compare");
    case PageCount:
        break;
    }
    return {};
}

void MainWindow::buildPages() {
    kernels_ = new KernelsPage;
    problems_ = new ProblemsPage;
    sweep_ = new SweepPage(store_);
    results_ = new ResultsPage(store_);
    plots_ = new PlotsPage(store_);
    compare_ = new ComparePage;

    pageList_ = new QListWidget;
    pageList_->setObjectName("pageList");
    pageList_->setSelectionMode(QAbstractItemView::SingleSelection);
    pageList_->setFrameShape(QFrame::NoFrame);
    stack_ = new QStackedWidget;
    const QList<QWidget*> pages = {kernels_, problems_, sweep_, results_, plots_, compare_};
    const QStringList tips = {
        tr("Edit a trait config and see the legal kernels it gives (Ctrl+1)"),
        tr("Pick problem sets, edit shapes, see their GEMM sizes and intensity (Ctrl+2)"),
        tr("Run gconv-bench and watch it live (Ctrl+3)"),
        tr("Filter, sort and export results (Ctrl+4)"),
        tr("Best TFLOP/s, latencies, heatmap, roofline, trait distributions (Ctrl+5)"),
        tr("Two result files cell by cell (Ctrl+6)"),
    };
    for (int i = 0; i < PageCount; ++i) {
        auto* item = new QListWidgetItem(pageName(Page(i)), pageList_);
        item->setToolTip(tips[i]);
        item->setSizeHint(QSize(120, 34));
        stack_->addWidget(pages[i]);
    }
    pageList_->setFixedWidth(132);
    connect(pageList_, &QListWidget::currentRowChanged, stack_, &QStackedWidget::setCurrentIndex);
    connect(pageList_, &QListWidget::currentRowChanged, this, [this] { updateTitle(); });

    auto* central = new QWidget;
    auto* layout = new QHBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(pageList_);
    layout->addWidget(stack_, 1);
    setCentralWidget(central);
    pageList_->setCurrentRow(Results);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* openResults = results_->openAction();
    openResults->setShortcut(QKeySequence::Open);
    file->addAction(openResults);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(results_->exportAction());
    file->addSeparator();
    file->addAction(kernels_->newAction());
    file->addAction(kernels_->openAction());
    file->addAction(kernels_->saveAction());
    file->addAction(kernels_->saveAsAction());
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < PageCount; ++i) {
        QAction* a = view->addAction(pageName(Page(i)), this, [this, i] { showPage(Page(i)); });
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About gconv"), this, [this] {
        QMessageBox::about(
            this, tr("About gconv"),
            tr("<b>gconv-explorer</b> %1<p>Finds the fastest GPU kernel for every grouped "
               "convolution you care about: kernel pools from trait configs, JIT-compiled, "
               "benchmarked and verified by gconv-bench, results in one CSV.</p>")
                .arg(QApplication::applicationVersion()));
    });
    rebuildRecentMenu();
}

void MainWindow::connectPages() {
    connect(results_, &ResultsPage::fileOpened, this, [this](const QString& path) {
        addRecent(path);
        statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), 5000);
        updateTitle();
    });
    connect(results_, &ResultsPage::fileFailed, this,
            [this](const QString&, const QString& why) { statusBar()->showMessage(why, 10000); });
    connect(problems_, &ProblemsPage::selectionChanged, sweep_, &SweepPage::setProblemKeys);
    connect(kernels_, &KernelsPage::configChanged, sweep_, &SweepPage::setConfigPath);
    connect(kernels_, &KernelsPage::modifiedChanged, this, [this] { updateTitle(); });
    connect(sweep_, &SweepPage::sweepStarted, this, [this](const QString& csv) {
        statusBar()->showMessage(tr("Sweep running: rows stream into Results and Plots (%1)")
                                     .arg(QDir::toNativeSeparators(csv)));
    });
    connect(sweep_, &SweepPage::sweepFinished, this, [this](const QString& csv, bool ok) {
        addRecent(csv);
        statusBar()->showMessage(ok ? tr("Sweep finished: %1").arg(QDir::toNativeSeparators(csv))
                                    : tr("Sweep ended early; the CSV keeps every finished row"),
                                 10000);
    });
}

void MainWindow::showPage(Page page) {
    pageList_->setCurrentRow(page);
}

MainWindow::Page MainWindow::currentPage() const {
    return Page(stack_->currentIndex());
}

QWidget* MainWindow::page(Page page) const {
    return stack_->widget(page);
}

void MainWindow::openResults(const QStringList& paths) {
    if (paths.isEmpty()) return;
    results_->openFiles(paths);
    showPage(Results);
}

void MainWindow::openSampleResults() {
    // The reader works on files: copy the bundled sample out of the resources once.
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
    QDir().mkpath(dir);
    const QString path = dir + "/sample-h200-forward-bf16.csv";
    QFile resource(k_sample_resource);
    if (!resource.exists()) return;
    if (!QFileInfo::exists(path) || QFileInfo(path).size() != resource.size()) {
        QFile::remove(path);
        if (!resource.copy(path)) return;
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    }
    results_->openFiles({path});
}

bool MainWindow::openConfig(const QString& path) {
    showPage(Kernels);
    return kernels_->openConfig(path);
}

void MainWindow::addRecent(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent_.removeAll(absolute);
    recent_.prepend(absolute);
    while (recent_.size() > k_max_recent) recent_.removeLast();
    QSettings().setValue("main/recentFiles", recent_);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    for (const QString& path : recent_) {
        QAction* a = recentMenu_->addAction(QDir::toNativeSeparators(path), this,
                                            [this, path] { openResults({path}); });
        a->setEnabled(QFileInfo::exists(path));
    }
    if (recent_.isEmpty()) recentMenu_->addAction(tr("(none)"))->setEnabled(false);
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear"), this, [this] {
        recent_.clear();
        QSettings().setValue("main/recentFiles", recent_);
        rebuildRecentMenu();
    });
}

void MainWindow::restoreLayout() {
    QSettings settings;
    recent_ = settings.value("main/recentFiles").toStringList();
    rebuildRecentMenu();
    if (!restoreGeometry(settings.value("main/geometry").toByteArray())) resize(1400, 880);
    restoreState(settings.value("main/state").toByteArray());
    // A first start shows the forward validation shapes rather than an empty table.
    problems_->setSelectedKeys(
        settings.value("problems/selectedKeys", QStringList{"forward_2d_test_validation"})
            .toStringList());
    const int page = settings.value("main/page", int(Results)).toInt();
    showPage(Page(page >= 0 && page < PageCount ? page : Results));
}

void MainWindow::saveLayout() {
    QSettings settings;
    settings.setValue("main/geometry", saveGeometry());
    settings.setValue("main/state", saveState());
    settings.setValue("main/page", int(currentPage()));
    settings.setValue("problems/selectedKeys", problems_->selectedKeys());
}

void MainWindow::updateTitle() {
    QString title = pageName(currentPage()) + " - gconv-explorer";
    if (kernels_->isModified()) title = "* " + title;
    setWindowTitle(title);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!kernels_->maybeSave()) {
        event->ignore();
        return;
    }
    if (sweep_->isRunning()) {
        const auto answer = QMessageBox::question(
            this, tr("A sweep is running"),
            tr("Stop the sweep and quit? Every finished row is already in its CSV; "
               "gconv-bench --resume continues it later."),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        sweep_->stop();
    }
    saveLayout();
    event->accept();
}

QStringList MainWindow::saveScreenshots(const QString& dir) {
    QDir().mkpath(dir);
    QStringList written;
    const Page before = currentPage();
    for (int i = 0; i < PageCount; ++i) {
        showPage(Page(i));
        QApplication::processEvents();
        const QString path = QString("%1/%2-%3.png")
                                 .arg(dir)
                                 .arg(i + 1, 2, 10, QChar('0'))
                                 .arg(pageName(Page(i)).toLower());
        if (grab().save(path)) written << path;
    }
    showPage(before);
    return written;
}

} // namespace gconv::ui
