#pragma once
// gconv-explorer's window: a page list on the left (Kernels, Problems, Sweep, Results, Plots,
// Compare) over one shared ResultStore, the File menu's actions routed to the pages, recent
// results files and the window layout kept in QSettings.
#include <QMainWindow>
#include <QStringList>

class QListWidget;
class QMenu;
class QStackedWidget;

namespace gconv::ui {

class ComparePage;
class KernelsPage;
class PlotsPage;
class ProblemsPage;
class ResultStore;
class ResultsPage;
class SweepPage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum Page { Kernels, Problems, Sweep, Results, Plots, Compare, PageCount };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void showPage(Page page);
    Page currentPage() const;
    QWidget* page(Page page) const;
    static QString pageName(Page page);

    // Results files to open at start; without any, the bundled sample (measured on an H200).
    void openResults(const QStringList& paths);
    void openSampleResults();
    bool openConfig(const QString& path);

    ResultStore* store() const { return store_; }
    KernelsPage* kernelsPage() const { return kernels_; }
    ProblemsPage* problemsPage() const { return problems_; }
    SweepPage* sweepPage() const { return sweep_; }
    ResultsPage* resultsPage() const { return results_; }
    PlotsPage* plotsPage() const { return plots_; }
    ComparePage* comparePage() const { return compare_; }

    QStringList recentFiles() const { return recent_; }

    // Grabs every page into `dir` as NN-name.png; returns the files written.
    QStringList saveScreenshots(const QString& dir);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildPages();
    void buildMenus();
    void connectPages();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    void restoreLayout();
    void saveLayout();
    void updateTitle();

    ResultStore* store_;
    QListWidget* pageList_ = nullptr;
    QStackedWidget* stack_ = nullptr;
    KernelsPage* kernels_ = nullptr;
    ProblemsPage* problems_ = nullptr;
    SweepPage* sweep_ = nullptr;
    ResultsPage* results_ = nullptr;
    PlotsPage* plots_ = nullptr;
    ComparePage* compare_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QStringList recent_;
};

} // namespace gconv::ui
