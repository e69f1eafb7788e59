// The Sweep page against the real gconv-bench with the fake worker (no GPU: NVRTC compiles,
// the fake worker "runs" the cells): progress reaches the totals, rows stream into the
// ResultStore and equal the CSV on disk, Stop ends the sweep keeping the finished rows and a
// resume completes it, a worker crash gives one crash row and the sweep goes on, and an unknown
// registry key ends with the error shown. The form itself: settings round trip and persistence.
#include "csv/csv_reader.h"
#include "test_paths.h"
#include "ui/results/result_store.h"
#include "ui/sweep/sweep_controller.h"
#include "ui/sweep/sweep_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

using namespace gconv;
using namespace gconv::ui;

namespace {

constexpr int k_kernels = 3;
constexpr int k_problems = 22; // forward_2d_test_validation
constexpr int k_sweep_ms = 300000;

QString cell_of(const ResultRow& r) {
    return QString::fromStdString(r.kernel) + "#" + QString::number(r.problem_idx);
}

} // namespace

class TestSweepPage : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString bench_, fakeLog_;
    std::mt19937_64 rng_{std::random_device{}()};

    SweepSettings sweep(const QString& output) {
        SweepSettings s;
        s.variant = "forward";
        s.arch = "sm_90";
        s.problemKeys = {"forward_2d_test_validation"};
        s.outputPath = dir_.filePath(output);
        s.maxKernels = k_kernels;
        s.workers = 2;
        s.filter = "c.pipeline == 'compv3'";
        s.batchSize = 5;
        s.workerPath = gconv::test::binary_path("tests/gconv-fake-worker");
        // A cache kept in the build tree: only the first run compiles.
        s.extraArguments = {"--cache-dir", gconv::test::binary_path("tests/ui_sweep_cache")};
        return s;
    }

    static void setFakeEnv(const char* delayMs, const QString& log, const QByteArray& script) {
        qputenv("GCONV_FAKE_DELAY_MS", delayMs);
        qputenv("GCONV_FAKE_LOG", log.toUtf8());
        if (script.isEmpty())
            qunsetenv("GCONV_FAKE_SCRIPT");
        else
            qputenv("GCONV_FAKE_SCRIPT", script);
    }

    static bool waitForEnd(QSignalSpy& finished) {
        return !finished.isEmpty() || finished.wait(k_sweep_ms);
    }

    // The store's rows of `csv` equal the file read by the one CSV reader, row for row.
    static void expectStoreEqualsCsv(const ResultStore& store, const QString& csv,
                                     size_t firstRow = 0) {
        const CsvReadResult read = read_results_csv(csv.toStdString());
        QCOMPARE(store.rowCount() - firstRow, read.table.rows());
        for (size_t i = 0; i < read.table.rows(); ++i)
            QVERIFY2(store.row(firstRow + i) == read.table.row(i),
                     qPrintable(QString("row %1 differs").arg(i)));
    }

    static QStringList lines(const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) return {};
        return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QCoreApplication::setOrganizationName("gconv-tests");
        QCoreApplication::setApplicationName("tst_sweep_page");
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir_.filePath("settings"));
        bench_ = gconv::test::tool_path("gconv-bench");
        qputenv("GCONV_BENCH", bench_.toUtf8());
        fakeLog_ = dir_.filePath("fake-first.log");
    }

    void form_round_trips_and_persists() {
        SweepSettings s;
        s.variant = "bwd_data";
        s.problemKeys = {"bwd_data_2d_test_validation"};
        s.arch = "sm_90";
        s.devices = "0";
        s.workers = 1 + int(rng_() % 16);
        s.batchSize = 1 + int(rng_() % 100);
        s.kernelTimeoutS = 0.5 + double(rng_() % 1000) / 4.0;
        s.warmup = int(rng_() % 10);
        s.repeat = 1 + int(rng_() % 100);
        s.resume = rng_() % 2;
        s.launchHold = rng_() % 2;
        s.filter = "c.tile_m >= " + QString::number(16 << (rng_() % 4));
        s.maxKernels = 1 + int(rng_() % 50);
        s.outputPath = dir_.filePath("persist.csv");
        s.workerPath = "/opt/worker" + QString::number(rng_() % 100);
        {
            ResultStore store;
            SweepPage page(&store);
            page.setSettings(s);
            SweepSettings back = page.settings();
            QVERIFY(back.configPath.endsWith("configs/bwd_data.json")); // the variant's default
            s.configPath = back.configPath;
            QVERIFY(back == s);
        } // the page saves its form when it goes
        ResultStore store;
        SweepPage again(&store);
        QVERIFY(again.settings() == s);
        // A config of the user's own survives a change of variant; the default follows it.
        auto* variant = again.findChild<QComboBox*>("variant");
        variant->setCurrentText("bwd_weight");
        QVERIFY(again.settings().configPath.endsWith("configs/bwd_weight.json"));
        again.setConfigPath("/my/own.json");
        variant->setCurrentText("forward");
        QCOMPARE(again.settings().configPath, QString("/my/own.json"));
    }

    void start_needs_problems_and_an_output() {
        ResultStore store;
        SweepPage page(&store);
        SweepSettings s = sweep("x.csv");
        s.problemKeys.clear();
        page.setSettings(s);
        page.setProblemKeys({});
        QVERIFY(!page.start());
        QVERIFY2(page.errorText().contains("problem set"), qPrintable(page.errorText()));
        QVERIFY(!page.isRunning());
        page.setProblemKeys({"forward_2d_test_validation"});
        page.findChild<QLineEdit*>("output")->clear();
        QVERIFY(!page.start());
        QVERIFY2(page.errorText().contains("output"), qPrintable(page.errorText()));
        QVERIFY(page.findChild<QPushButton*>("start")->isEnabled());
        QVERIFY(!page.findChild<QPushButton*>("stop")->isEnabled());
    }

    void progress_reaches_totals_and_rows_stream_into_the_store() {
        if (!QFile::exists(bench_)) QSKIP("gconv-bench is not built (no GPU platform)");
        setFakeEnv("15", fakeLog_, {});
        ResultStore store;
        SweepPage page(&store);
        page.setSettings(sweep("first.csv"));
        SweepController* c = page.controller();
        QSignalSpy phases(c, &SweepController::phaseStarted);
        QSignalSpy compiles(c, &SweepController::compileProgress);
        QSignalSpy cells(c, &SweepController::cellFinished);
        QSignalSpy summaries(c, &SweepController::summary);
        QSignalSpy started(&page, &SweepPage::sweepStarted);
        QSignalSpy finished(&page, &SweepPage::sweepFinished);
        int appendsWhileRunning = 0;
        connect(&store, &ResultStore::rowsAppended, this,
                [&] { appendsWhileRunning += page.isRunning(); });
        connect(&store, &ResultStore::reset, this,
                [&] { appendsWhileRunning += page.isRunning(); });

        QVERIFY(page.start());
        QCOMPARE(started.size(), 1);
        QVERIFY(page.isRunning());
        QVERIFY(!page.findChild<QPushButton*>("start")->isEnabled());
        QVERIFY(page.findChild<QPushButton*>("stop")->isEnabled());
        QVERIFY(!page.findChild<QLineEdit*>("output")->isEnabled()); // the form is locked
        QVERIFY(waitForEnd(finished));
        const QString csv = finished[0][0].toString();
        QVERIFY2(finished[0][1].toBool(),
                 qPrintable(page.findChild<QPlainTextEdit*>("log")->toPlainText()));
        QCOMPARE(csv, started[0][0].toString());

        QCOMPARE(phases.size(), 2);
        QCOMPARE(phases[0][0].toString(), QString("build"));
        QCOMPARE(phases[0][1].toLongLong(), qint64(k_kernels));
        QCOMPARE(phases[1][0].toString(), QString("benchmark"));
        QCOMPARE(phases[1][1].toLongLong(), qint64(k_kernels * k_problems));
        QCOMPARE(compiles.size(), k_kernels);
        QCOMPARE(compiles.last()[0].toLongLong(), compiles.last()[1].toLongLong());
        QCOMPARE(cells.size(), k_kernels * k_problems);
        QCOMPARE(cells.last()[0].toLongLong(), qint64(k_kernels * k_problems));
        QCOMPARE(summaries.size(), 1);
        auto* bar = page.findChild<QProgressBar*>("benchmarkProgress");
        QCOMPARE(bar->value(), bar->maximum());
        QCOMPARE(bar->maximum(), k_kernels * k_problems);
        QVERIFY2(page.findChild<QLabel*>("benchmarkLabel")->text().startsWith("66 / 66"),
                 qPrintable(page.findChild<QLabel*>("benchmarkLabel")->text()));
        QVERIFY(page.findChild<QLabel*>("summary")->text().contains("GPU-busy"));
        QVERIFY(page.findChild<QPushButton*>("start")->isEnabled());
        QVERIFY(!page.findChild<QPushButton*>("stop")->isEnabled());

        // Rows arrived while the sweep ran, and they are the file's rows.
        QVERIFY2(appendsWhileRunning > 1, qPrintable(QString::number(appendsWhileRunning)));
        expectStoreEqualsCsv(store, csv);
        QSet<QString> seen;
        int ok = 0;
        for (size_t i = 0; i < store.rowCount(); ++i) {
            seen.insert(cell_of(store.row(i)));
            ok += store.row(i).status == CellStatus::Ok;
        }
        QCOMPARE(seen.size(), k_kernels * k_problems);
        QVERIFY(ok > 2);
        QCOMPARE(lines(fakeLog_).size(), ok); // the fake worker ran exactly the ok cells
    }

    void stop_keeps_the_finished_rows_and_resume_completes() {
        if (!QFile::exists(bench_)) QSKIP("gconv-bench is not built (no GPU platform)");
        const QString log1 = dir_.filePath("fake-stop1.log"),
                      log2 = dir_.filePath("fake-stop2.log");
        setFakeEnv("200", log1, {});
        ResultStore store;
        SweepPage page(&store);
        page.setSettings(sweep("stopped.csv"));
        SweepController* c = page.controller();
        QSignalSpy finished(&page, &SweepPage::sweepFinished);
        int ran = 0;
        connect(
            c, &SweepController::cellFinished, this,
            [&](qint64, qint64, qint64, const ResultRow& r) { ran += r.status == CellStatus::Ok; });
        QVERIFY(page.start());
        QTRY_VERIFY_WITH_TIMEOUT(ran >= 2 || !finished.isEmpty(), k_sweep_ms);
        QVERIFY(finished.isEmpty());
        QElapsedTimer clock;
        clock.start();
        page.stop();
        QVERIFY(!page.findChild<QPushButton*>("stop")->isEnabled());
        QVERIFY(waitForEnd(finished));
        QVERIFY2(clock.elapsed() < 4000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(!finished[0][1].toBool());
        QVERIFY(!page.isRunning());
        QVERIFY2(page.errorText().isEmpty(), qPrintable(page.errorText())); // a stop is no error
        QVERIFY(page.findChild<QLabel*>("state")->text().startsWith("Stopped"));
        QCOMPARE(c->lastSummary()["stopped"].toBool(), true);

        const QString csv = finished[0][0].toString();
        expectStoreEqualsCsv(store, csv);
        const size_t kept = store.rowCount();
        QVERIFY(kept < size_t(k_kernels * k_problems));
        QFile meta(csv + ".meta.json");
        QVERIFY(meta.open(QIODevice::ReadOnly));
        const QJsonObject sidecar = QJsonDocument::fromJson(meta.readAll()).object();
        QCOMPARE(sidecar["state"].toString(), QString("stopped"));
        QVERIFY(sidecar["stopped"].toBool());
        QVERIFY(!sidecar["end_time"].toString().isEmpty());
        // Every ok row was run once; at most the cell in flight ran without a row.
        int okRows = 0;
        for (size_t i = 0; i < kept; ++i) okRows += store.row(i).status == CellStatus::Ok;
        const int begun = int(lines(log1).size());
        QVERIFY2(begun == okRows || begun == okRows + 1,
                 qPrintable(QString("%1 begun, %2 ok rows").arg(begun).arg(okRows)));

        // Resume: the rest is run, nothing finished is run again.
        setFakeEnv("0", log2, {});
        SweepSettings s = sweep("stopped.csv");
        s.resume = true;
        page.setSettings(s);
        finished.clear();
        QSignalSpy resumed(c, &SweepController::cellResumed);
        QVERIFY(page.start());
        QVERIFY(waitForEnd(finished));
        QVERIFY2(finished[0][1].toBool(), qPrintable(page.errorText()));
        QCOMPARE(size_t(resumed.size()), kept);
        expectStoreEqualsCsv(store, csv); // the live rows of both runs are the file
        QSet<QString> seen;
        int okTotal = 0;
        for (size_t i = 0; i < store.rowCount(); ++i) {
            QVERIFY2(!seen.contains(cell_of(store.row(i))), "a cell was written twice");
            seen.insert(cell_of(store.row(i)));
            okTotal += store.row(i).status == CellStatus::Ok;
        }
        QCOMPARE(seen.size(), k_kernels * k_problems);
        QCOMPARE(int(lines(log2).size()), okTotal - okRows);
    }

    void a_worker_crash_gives_a_crash_row_and_the_sweep_goes_on() {
        if (!QFile::exists(bench_)) QSKIP("gconv-bench is not built (no GPU platform)");
        // The cells the fake worker ran in the first sweep (same plan, same cell ids): crash
        // one in the middle.
        const QStringList ran = lines(fakeLog_);
        QVERIFY2(ran.size() > 2, "the first sweep did not run");
        const QString victim = ran[ran.size() / 2].split(' ').value(1);
        setFakeEnv("0", dir_.filePath("fake-crash.log"),
                   "{\"" + victim.toUtf8() + "\":\"@crash\"}");
        ResultStore store;
        SweepPage page(&store);
        page.setSettings(sweep("crash.csv"));
        QSignalSpy finished(&page, &SweepPage::sweepFinished);
        QVERIFY(page.start());
        QVERIFY(waitForEnd(finished));
        QVERIFY2(finished[0][1].toBool(), qPrintable(page.errorText()));
        expectStoreEqualsCsv(store, finished[0][0].toString());
        int crashes = 0, okAfter = 0;
        for (size_t i = 0; i < store.rowCount(); ++i) {
            const ResultRow r = store.row(i);
            if (r.status == CellStatus::Crash) {
                ++crashes;
                QVERIFY2(QString::fromStdString(r.error).contains("signal 6"), r.error.c_str());
            } else if (crashes && r.status == CellStatus::Ok) {
                ++okAfter;
            }
        }
        QCOMPARE(crashes, 1);
        QVERIFY2(okAfter > 0, "no cell ran after the crash");
        QCOMPARE(store.rowCount(), size_t(k_kernels * k_problems));
        QVERIFY(page.findChild<QPlainTextEdit*>("log")->toPlainText().contains("crash"));
    }

    void an_unknown_registry_key_ends_with_the_error_shown() {
        if (!QFile::exists(bench_)) QSKIP("gconv-bench is not built (no GPU platform)");
        setFakeEnv("0", dir_.filePath("fake-unknown.log"), {});
        ResultStore store;
        SweepPage page(&store);
        page.setSettings(sweep("unknown.csv"));
        const QString key = "forward_2d_no_such_set_" + QString::number(rng_() % 1000);
        page.setProblemKeys({key});
        QSignalSpy finished(&page, &SweepPage::sweepFinished);
        QVERIFY(page.start());
        QVERIFY(waitForEnd(finished));
        QVERIFY(!finished[0][1].toBool());
        QVERIFY2(page.errorText().contains(key) &&
                     page.errorText().contains("forward_2d_test_validation"),
                 qPrintable(page.errorText()));
        QCOMPARE(store.rowCount(), size_t(0));
        QVERIFY(page.findChild<QPushButton*>("start")->isEnabled());
        QVERIFY(page.findChild<QPlainTextEdit*>("log")->toPlainText().contains(key));
    }

    void cleanupTestCase() {
        qunsetenv("GCONV_FAKE_DELAY_MS");
        qunsetenv("GCONV_FAKE_LOG");
        qunsetenv("GCONV_FAKE_SCRIPT");
    }
};

QTEST_MAIN(TestSweepPage)
#include "tst_sweep_page.moc"
