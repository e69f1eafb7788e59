// gconv-explorer's window on the offscreen platform: every page is there and reachable by its
// shortcut, the bundled H200 sample opens into the shared store, recent files and the page
// persist in QSettings, and the screenshot mode writes one PNG per page.
#include "ui/main_window.h"
#include "ui/results/result_store.h"
#include "ui/results/results_page.h"

#include <QAction>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using gconv::ui::MainWindow;

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(settingsDir_.isValid());
        // Keep the test's settings away from the user's.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir_.path());
        QCoreApplication::setOrganizationName("gconv-test");
        QCoreApplication::setApplicationName("tst_main_window");
        qputenv("XDG_CACHE_HOME", settingsDir_.path().toUtf8());
    }

    void everyPageIsReachableByItsShortcut() {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (int i = 0; i < MainWindow::PageCount; ++i) {
            QVERIFY(window.page(MainWindow::Page(i)) != nullptr);
            QVERIFY(!MainWindow::pageName(MainWindow::Page(i)).isEmpty());
        }
        // Ctrl+1 .. Ctrl+6 through the View menu's actions.
        QList<QAction*> pages;
        for (QAction* menu : window.menuBar()->actions())
            if (menu->text().remove('&') == "View") pages = menu->menu()->actions();
        QCOMPARE(pages.size(), int(MainWindow::PageCount));
        for (int i = MainWindow::PageCount - 1; i >= 0; --i) {
            QCOMPARE(pages[i]->shortcut(), QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
            pages[i]->trigger();
            QCOMPARE(int(window.currentPage()), i);
        }
    }

    void theBundledSampleOpensIntoTheStore() {
        MainWindow window;
        QSignalSpy opened(window.resultsPage(), &gconv::ui::ResultsPage::fileOpened);
        window.openSampleResults();
        QVERIFY(opened.wait(20000));
        // Rows measured on an H200: real kernels, real latencies, all verified.
        const auto& table = window.store()->table();
        QVERIFY(table.rows() > 1000);
        size_t ok = 0;
        for (size_t i = 0; i < table.rows(); ++i) {
            const auto row = table.row(i);
            if (row.status != gconv::CellStatus::Ok) continue;
            ++ok;
            QVERIFY(row.latency_ms > 0);
            QCOMPARE(row.verified, std::optional<bool>(true));
            QCOMPARE(row.device, std::string("NVIDIA H200"));
        }
        QVERIFY(ok > 1000);
        QVERIFY(window.recentFiles().contains(opened.first().first().toString()));
    }

    void pageAndRecentFilesPersist() {
        QString recent;
        {
            MainWindow window;
            QSignalSpy opened(window.resultsPage(), &gconv::ui::ResultsPage::fileOpened);
            window.openSampleResults();
            QVERIFY(opened.wait(20000));
            recent = opened.first().first().toString();
            window.showPage(MainWindow::Plots);
            window.close();
        }
        MainWindow again;
        QCOMPARE(again.currentPage(), MainWindow::Plots);
        QVERIFY(again.recentFiles().contains(recent));
    }

    void screenshotsCoverEveryPage() {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTemporaryDir out;
        const QStringList files = window.saveScreenshots(out.path());
        QCOMPARE(files.size(), int(MainWindow::PageCount));
        for (const QString& f : files) {
            QImage image(f);
            QVERIFY2(!image.isNull(), qPrintable(f));
            QCOMPARE(image.size(), window.size() * window.devicePixelRatio());
        }
    }

private:
    QTemporaryDir settingsDir_;
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
