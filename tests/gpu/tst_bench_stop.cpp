// gconv-bench stops cleanly on SIGTERM / SIGINT (with the fake worker, no GPU): it exits soon
// with 128 + the signal, every row written before stays in the CSV (the cell in flight gets
// none), the sidecar and the summary say "stopped", a worker blocked on a hung cell is killed,
// and a --resume run completes the sweep without re-running a finished cell.
#include "bench_cli.h"
#include "test_paths.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <csignal>

class TestBenchStop : public QObject {
    Q_OBJECT

    static constexpr int k_cells = 3 * 22;

    QTemporaryDir dir_;
    QString cache_;

    QStringList sweep_args(const QString& output) {
        return gconv::test::fake_sweep_args(output, cache_, 3, "jsonl") << "--batch-size"
                                                                        << "4";
    }

    static QStringList lines_of(const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) return {};
        return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    }

    // kernel#problem_idx -> status, for the complete rows (the columns read come before the
    // first quoted field). A row is complete when it has the header's field count or more.
    static QMap<QString, QString> cells_of(const QString& csv, int* torn = nullptr) {
        const QStringList rows = lines_of(csv);
        QMap<QString, QString> cells;
        if (rows.isEmpty()) return cells;
        const QStringList header = rows[0].split(',');
        const int kernel = header.indexOf("kernel"), idx = header.indexOf("problem_idx"),
                  status = header.indexOf("status");
        for (int i = 1; i < rows.size(); ++i) {
            const QStringList f = rows[i].split(',');
            if (f.size() < header.size()) {
                if (torn) ++*torn;
                continue;
            }
            const QString cell = f[kernel] + "#" + f[idx];
            if (cells.contains(cell))
                cells[cell] = "TWICE";
            else
                cells[cell] = f[status];
        }
        return cells;
    }

    static int ran(const QMap<QString, QString>& cells) {
        int n = 0;
        for (const QString& s : cells) n += s == "ok" || s == "fail";
        return n;
    }

    struct Stopped {
        int exitCode = -1;
        QProcess::ExitStatus status = QProcess::CrashExit;
        qint64 stopMs = -1; // from the signal to the exit
        QStringList events;
    };

    // Starts a sweep, waits until the fake worker has begun `begun` cells, sends `signal`.
    Stopped run_and_signal(const QStringList& args, const QProcessEnvironment& env,
                           const QString& fakeLog, int begun, int signal) {
        Stopped out;
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(gconv::test::tool_path("gconv-bench"), args);
        if (!p.waitForStarted()) return out;
        QElapsedTimer wait;
        wait.start();
        while (lines_of(fakeLog).size() < begun && wait.elapsed() < 300000 &&
               p.state() == QProcess::Running)
            QThread::msleep(20);
        if (p.state() != QProcess::Running) return out;
        QElapsedTimer clock;
        clock.start();
        ::kill(pid_t(p.processId()), signal);
        if (!p.waitForFinished(20000)) {
            p.kill();
            p.waitForFinished();
            return out;
        }
        out.stopMs = clock.elapsed();
        out.exitCode = p.exitCode();
        out.status = p.exitStatus();
        out.events = QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
        return out;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        cache_ = dir_.filePath("cache");
        if (!QFile::exists(gconv::test::tool_path("gconv-bench")))
            QSKIP("gconv-bench is not built (no GPU platform)");
    }

    void sigterm_keeps_finished_rows_and_resume_completes() {
        const QString out = dir_.filePath("term.csv");
        const QString log1 = dir_.filePath("term1.log"), log2 = dir_.filePath("term2.log");
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("GCONV_FAKE_DELAY_MS", "150");
        env.insert("GCONV_FAKE_LOG", log1);
        const int begun_at_stop = 3 + int(QRandomGenerator::global()->bounded(5));
        const Stopped s = run_and_signal(sweep_args(out), env, log1, begun_at_stop, SIGTERM);
        QCOMPARE(s.status, QProcess::NormalExit);
        QCOMPARE(s.exitCode, 128 + SIGTERM);
        QVERIFY2(s.stopMs >= 0 && s.stopMs < 3000, qPrintable(QString::number(s.stopMs)));

        int torn = 0;
        const auto first = cells_of(out, &torn);
        QCOMPARE(torn, 0);
        QVERIFY(!first.values().contains("TWICE"));
        QVERIFY(first.size() < k_cells);
        // Every cell the worker finished has its row; the one in flight (if any) has none.
        const int begun = int(lines_of(log1).size());
        QVERIFY2(
            ran(first) == begun || ran(first) == begun - 1,
            qPrintable(QString("%1 begun, %2 rows of cells that ran").arg(begun).arg(ran(first))));
        QVERIFY(ran(first) >= begun_at_stop - 1);
        QVERIFY(!first.values().contains("crash") && !first.values().contains("timeout"));

        QFile meta(out + ".meta.json");
        QVERIFY(meta.open(QIODevice::ReadOnly));
        const QJsonObject sidecar = QJsonDocument::fromJson(meta.readAll()).object();
        QCOMPARE(sidecar["state"].toString(), QString("stopped"));
        QVERIFY(sidecar["stopped"].toBool());
        QVERIFY(!sidecar["end_time"].toString().isEmpty());
        QVERIFY(!s.events.isEmpty());
        const QJsonObject last = QJsonDocument::fromJson(s.events.last().toUtf8()).object();
        QCOMPARE(last["event"].toString(), QString("summary"));
        QVERIFY(last["stopped"].toBool());
        QCOMPARE(last["rows_written"].toInt(), first.size());

        // --resume runs the rest and nothing that already has a row.
        env.insert("GCONV_FAKE_DELAY_MS", "0");
        env.insert("GCONV_FAKE_LOG", log2);
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(gconv::test::tool_path("gconv-bench"), sweep_args(out) << "--resume");
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const auto all = cells_of(out);
        QCOMPARE(all.size(), k_cells);
        QVERIFY(!all.values().contains("TWICE"));
        for (auto it = first.begin(); it != first.end(); ++it) QCOMPARE(all[it.key()], it.value());
        QCOMPARE(int(lines_of(log2).size()), ran(all) - ran(first));
    }

    void a_worker_blocked_on_a_hung_cell_is_killed_on_sigint() {
        const QString out = dir_.filePath("hang.csv");
        const QString log = dir_.filePath("hang.log");
        // Every cell hangs: the orchestrator sits in a read of the worker, with a long timeout.
        QJsonObject script;
        for (int i = 0; i < k_cells; ++i) script[QString::number(i)] = "@hang";
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("GCONV_FAKE_SCRIPT", QJsonDocument(script).toJson(QJsonDocument::Compact));
        env.insert("GCONV_FAKE_LOG", log);
        QStringList args = sweep_args(out);
        args << "--kernel-timeout"
             << "120";
        const Stopped s = run_and_signal(args, env, log, 1, SIGINT);
        QCOMPARE(s.status, QProcess::NormalExit);
        QCOMPARE(s.exitCode, 128 + SIGINT);
        QVERIFY2(s.stopMs >= 0 && s.stopMs < 3000, qPrintable(QString::number(s.stopMs)));
        const auto cells = cells_of(out);
        QCOMPARE(ran(cells), 0);
        QVERIFY(!cells.values().contains("timeout") && !cells.values().contains("crash"));
        QCOMPARE(lines_of(log).size(), 1); // no second worker was started
    }
};

QTEST_APPLESS_MAIN(TestBenchStop)
#include "tst_bench_stop.moc"
