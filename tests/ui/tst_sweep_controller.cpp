// SweepController against stand-ins for gconv-bench (small shell scripts): line buffering of
// the event stream, lines that are not JSON, rows batched into the store, stderr collection,
// the stop escalation (SIGTERM, then SIGKILL) and a binary that does not start.
#include "csv/result_row_json.h"
#include "ui/results/result_store.h"
#include "ui/sweep/sweep_controller.h"
#include "ui/sweep/sweep_settings.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

using namespace gconv;
using namespace gconv::ui;

class TestSweepController : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::mt19937_64 rng_{std::random_device{}()};
    int scripts_ = 0;

    // A stand-in for gconv-bench: a shell script, put in GCONV_BENCH.
    QString script(const QByteArray& body) {
        const QString path = dir_.filePath(QStringLiteral("bench%1.sh").arg(++scripts_));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) return {};
        f.write("#!/bin/sh\n" + body);
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        qputenv("GCONV_BENCH", path.toUtf8());
        return path;
    }

    SweepSettings settings(const QString& output) {
        SweepSettings s;
        s.problemKeys = {"forward_2d_test_validation"};
        s.outputPath = dir_.filePath(output);
        return s;
    }

    ResultRow random_row(int i) {
        ResultRow r;
        r.kernel = "grouped_conv_fwd_" + std::to_string(rng_() % 1000);
        r.problem_idx = i;
        r.problem.C = r.problem.G = int64_t(1 + rng_() % 64);
        r.problem.Hi = int64_t(1 + rng_() % 200);
        r.status = rng_() % 4 ? CellStatus::Ok : CellStatus::Crash;
        r.latency_ms = 0.001 + double(rng_() % 100000) / 1000.0;
        r.tflops = double(rng_() % 9000) / 10.0;
        r.error = r.status == CellStatus::Crash ? "worker died, \"signal 6\"" : "";
        r.timestamp = utc_timestamp_now();
        return r;
    }

    static bool waitFinished(QSignalSpy& spy, int ms = 20000) {
        return !spy.isEmpty() || spy.wait(ms);
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void split_lines_and_garbage_are_handled() {
        const int total = 3 + int(rng_() % 50);
        // One event arrives in two writes, one line is not JSON, the last has no line break.
        script("printf '{\"event\":\"pha'\nsleep 0.3\n"
               "printf 'se\",\"phase\":\"build\",\"total\":" +
               QByteArray::number(total) +
               "}\\nGPU says hello\\n'\n"
               "echo 'gconv-bench: something went wrong' >&2\n"
               "printf '{\"event\":\"message\",\"level\":\"info\",\"text\":\"last\"}'\n"
               "exit 3\n");
        SweepController c(nullptr);
        QSignalSpy phases(&c, &SweepController::phaseStarted);
        QSignalSpy messages(&c, &SweepController::message);
        QSignalSpy stderrLines(&c, &SweepController::stderrLine);
        QSignalSpy finished(&c, &SweepController::finished);
        QVERIFY(c.start(settings("a.csv")));
        QVERIFY(c.isRunning());
        QVERIFY(!c.start(settings("b.csv"))); // one at a time
        QVERIFY(waitFinished(finished));
        QVERIFY(!c.isRunning());
        QCOMPARE(phases.size(), 1);
        QCOMPARE(phases[0][0].toString(), QString("build"));
        QCOMPARE(phases[0][1].toLongLong(), qint64(total));
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0][0].toString(), QString("warning"));
        QVERIFY(messages[0][1].toString().contains("GPU says hello"));
        QCOMPARE(messages[1][1].toString(), QString("last"));
        QCOMPARE(stderrLines.size(), 1);
        QCOMPARE(finished[0][0].toInt(), 3);
        QCOMPARE(finished[0][1].value<QProcess::ExitStatus>(), QProcess::NormalExit);
        QVERIFY(finished[0][2].toString().contains("something went wrong"));
    }

    void rows_reach_the_store_in_batches() {
        const int n = 150 + int(rng_() % 150);
        QByteArray lines;
        std::vector<ResultRow> rows;
        for (int i = 0; i < n; ++i) {
            rows.push_back(random_row(i));
            nlohmann::json e = {{"event", "cell"},
                                {"done", i + 1},
                                {"total", n},
                                {"failures", 0},
                                {"status", std::string(to_string(rows.back().status))},
                                {"row", result_row_to_json(rows.back())}};
            lines += QByteArray::fromStdString(e.dump()) + "\n";
        }
        QFile events(dir_.filePath("events.jsonl"));
        QVERIFY(events.open(QIODevice::WriteOnly));
        events.write(lines);
        events.close();
        script("cat '" + events.fileName().toUtf8() + "'\n");

        ResultStore store;
        QSignalSpy appended(&store, &ResultStore::rowsAppended);
        QSignalSpy resets(&store, &ResultStore::reset);
        SweepController c(&store);
        QSignalSpy cells(&c, &SweepController::cellFinished);
        QSignalSpy finished(&c, &SweepController::finished);
        QVERIFY(c.start(settings("rows.csv")));
        QVERIFY(waitFinished(finished));
        QCOMPARE(finished[0][0].toInt(), 0);
        QCOMPARE(cells.size(), n);
        QCOMPARE(cells.last()[0].toLongLong(), qint64(n));
        QCOMPARE(store.rowCount(), size_t(n));
        // Far fewer store updates than rows: they are batched.
        QVERIFY2(appended.size() + resets.size() < n / 10,
                 qPrintable(QString::number(appended.size() + resets.size())));
        for (int i = 0; i < n; ++i)
            QVERIFY2(store.row(size_t(i)) == result_row_from_json(result_row_to_json(rows[i])),
                     qPrintable(QString::number(i)));
        QCOMPARE(store.sources().back().path, c.settings().outputPath);
    }

    void a_bad_row_is_a_message_not_a_crash() {
        script(
            "echo '{\"event\":\"cell\",\"done\":1,\"total\":2,\"failures\":0,\"status\":\"ok\","
            "\"row\":{\"kernel\":\"k\",\"latency_ms\":\"fast\"}}'\n"
            "echo "
            "'{\"event\":\"cell\",\"done\":2,\"total\":2,\"failures\":0,\"status\":\"resumed\"}'\n"
            "echo '[1,2]'\n");
        ResultStore store;
        SweepController c(&store);
        QSignalSpy messages(&c, &SweepController::message);
        QSignalSpy resumed(&c, &SweepController::cellResumed);
        QSignalSpy finished(&c, &SweepController::finished);
        QVERIFY(c.start(settings("bad.csv")));
        QVERIFY(waitFinished(finished));
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages[0][0].toString(), QString("error"));
        QVERIFY2(messages[0][1].toString().contains("row.latency_ms"),
                 qPrintable(messages[0][1].toString()));
        QCOMPARE(resumed.size(), 1);
        QCOMPARE(store.rowCount(), size_t(0));
    }

    void stop_terminates_then_kills() {
        // Ignores SIGTERM: stop() must escalate to SIGKILL after the grace.
        script("trap '' TERM\necho '{\"event\":\"phase\",\"phase\":\"build\",\"total\":1}'\n"
               "i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done\n");
        SweepController c(nullptr);
        c.setStopGrace(400);
        QSignalSpy phases(&c, &SweepController::phaseStarted);
        QSignalSpy finished(&c, &SweepController::finished);
        QVERIFY(c.start(settings("stop.csv")));
        QVERIFY(phases.wait(10000));
        QElapsedTimer clock;
        clock.start();
        c.stop();
        QVERIFY(c.stopRequested());
        QVERIFY(waitFinished(finished, 10000));
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY(clock.elapsed() >= 300); // it waited for the grace first
        QCOMPARE(finished[0][1].value<QProcess::ExitStatus>(), QProcess::CrashExit);
    }

    void a_missing_binary_ends_with_exit_code_minus_one() {
        qputenv("GCONV_BENCH", dir_.filePath("no-such-gconv-bench").toUtf8());
        SweepController c(nullptr);
        QSignalSpy finished(&c, &SweepController::finished);
        QVERIFY(c.start(settings("missing.csv")));
        QVERIFY(waitFinished(finished));
        QCOMPARE(finished[0][0].toInt(), -1);
        QVERIFY2(finished[0][2].toString().contains("no-such-gconv-bench"),
                 qPrintable(finished[0][2].toString()));
        QVERIFY(!c.isRunning());
    }

    void find_bench_prefers_the_environment() {
        qputenv("GCONV_BENCH", "/some/where/gconv-bench");
        QCOMPARE(SweepController::findBench(), QString("/some/where/gconv-bench"));
        qunsetenv("GCONV_BENCH");
        const QString found = SweepController::findBench();
        QVERIFY(found != "/some/where/gconv-bench");
    }

    void arguments_follow_the_settings() {
        SweepSettings s;
        s.variant = "bwd_weight";
        s.problemKeys = {"a", "b"};
        s.outputPath = "/tmp/x.csv";
        s.batchSize = 7 + int(rng_() % 50);
        s.maxKernels = 1 + int(rng_() % 9);
        s.resume = true;
        s.filter = "c.tile_m >= 128";
        s.kernelTimeoutS = 2.5;
        s.workerPath = "/w/fake";
        const QStringList a = s.benchArguments();
        auto after = [&](const char* flag) { return a.value(a.indexOf(flag) + 1); };
        QCOMPARE(after("--variant"), QString("bwd_weight"));
        QCOMPARE(after("--problems"), QString("a,b"));
        QCOMPARE(after("--output"), QString("/tmp/x.csv"));
        QCOMPARE(after("--progress"), QString("jsonl"));
        QCOMPARE(after("--batch-size"), QString::number(s.batchSize));
        QCOMPARE(after("--max-kernels"), QString::number(s.maxKernels));
        QCOMPARE(after("--filter"), s.filter);
        QCOMPARE(after("--kernel-timeout"), QString("2.5"));
        QCOMPARE(after("--worker"), QString("/w/fake"));
        QVERIFY(a.contains("--resume"));
        QVERIFY(!a.contains("--workers")); // 0: gconv-bench's default
        QVERIFY(!a.contains("--config"));  // empty: gconv-bench's default
        QVERIFY(!a.contains("--baseline"));
        for (const QString& provider : {QString("cudnn"), QString("miopen")}) {
            s.baseline = provider;
            const QStringList b = s.benchArguments();
            QCOMPARE(b.value(b.indexOf("--baseline") + 1), provider);
        }
        s.baseline = "none";
        QVERIFY(!s.benchArguments().contains("--baseline"));
        QVERIFY(!s.benchArguments().contains("--launch-hold")); // on: gconv-bench's default
        s.launchHold = false;
        const QStringList free = s.benchArguments();
        QCOMPARE(free.value(free.indexOf("--launch-hold") + 1), QString("off"));
    }

    // The baseline choice persists, and settings saved as the old cuDNN switch read as cuDNN.
    void the_baseline_choice_persists() {
        const QString ini = dir_.filePath(QStringLiteral("settings%1.ini").arg(++scripts_));
        {
            QSettings s(ini, QSettings::IniFormat);
            SweepSettings out;
            out.baseline = QStringLiteral("miopen");
            out.save(s);
        }
        {
            QSettings s(ini, QSettings::IniFormat);
            QCOMPARE(SweepSettings::load(s).baseline, QString("miopen"));
            s.beginGroup(QStringLiteral("sweep"));
            s.remove(QStringLiteral("baseline"));
            s.setValue(QStringLiteral("cudnnBaseline"), true);
            s.endGroup();
            QCOMPARE(SweepSettings::load(s).baseline, QString("cudnn"));
            s.beginGroup(QStringLiteral("sweep"));
            s.remove(QStringLiteral("cudnnBaseline"));
            s.endGroup();
            QCOMPARE(SweepSettings::load(s).baseline, QString("none"));
        }
    }
};

QTEST_MAIN(TestSweepController)
#include "tst_sweep_controller.moc"
