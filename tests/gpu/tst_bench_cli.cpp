// gconv-bench end to end with the fake worker (no GPU): flags and messages, the CSV, progress
// events, the seed schema, provenance, and --resume after the orchestrator is killed.
#include "bench_cli.h"
#include "test_paths.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <csignal>

class TestBenchCli : public QObject {
    Q_OBJECT

    using Result = gconv::test::BenchRun;

    QTemporaryDir dir_;
    QString cache_;

    QStringList sweep_args(const QString& output) {
        return gconv::test::fake_sweep_args(output, cache_);
    }

    Result run(const QStringList& args,
               const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
        return gconv::test::run_bench(args, env);
    }

    // Split on commas: enough for the columns these tests read, which all come before the first
    // quoted field (problem_key); a complete row has at least as many pieces as the header.
    static QList<QStringList> csv_rows(const QString& path) {
        QFile f(path);
        QList<QStringList> rows;
        if (!f.open(QIODevice::ReadOnly)) return rows;
        for (const QByteArray& line : f.readAll().split('\n'))
            if (!line.isEmpty()) rows << QString::fromUtf8(line).split(',');
        return rows;
    }

    QString write_filter(const QString& expression) {
        const QString path = dir_.filePath("filter.txt");
        QFile f(path);
        if (f.open(QIODevice::WriteOnly)) f.write(expression.toUtf8() + "\n");
        return path;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        cache_ = dir_.filePath("cache");
        if (!QFile::exists(gconv::test::tool_path("gconv-bench")))
            QSKIP("gconv-bench is not built (no GPU platform)");
    }

    void help_documents_the_flags() {
        const auto r = run({"--help"});
        QCOMPARE(r.code, 0);
        for (const char* flag :
             {"--variant", "--problems", "--problems-file", "--output", "--config", "--arch",
              "--workers", "--filter", "--max-kernels", "--batch-size", "--kernel-timeout",
              "--warmup", "--repeat", "--resume", "--build-only", "--all-entries", "--devices",
              "--progress", "--csv-schema"})
            QVERIFY2(r.out.contains(flag), flag);
    }

    void bad_command_lines_exit_2() {
        QCOMPARE(run({"--bogus"}).code, 2);
        auto r = run({"--problems", "x", "--output", "o.csv"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--variant is required"), qPrintable(r.err));
        r = run({"--variant", "sideways", "--problems", "x", "--output", "o.csv"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("forward, bwd_data, bwd_weight"), qPrintable(r.err));
        QCOMPARE(run({"--variant", "forward", "--output", "o.csv"}).code, 2);
        r = run({"--variant", "forward", "--problems", "forward_2d", "--output", "o.csv",
                 "--baseline", "rocblas"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--baseline: unknown value 'rocblas' (allowed: none, cudnn, "
                                "miopen)"),
                 qPrintable(r.err));
    }

    void a_flag_given_twice_is_refused_but_problem_files_add_up() {
        QStringList twice = sweep_args(dir_.filePath("twice.csv"));
        twice << "--output" << dir_.filePath("again.csv");
        const auto refused = run(twice);
        QCOMPARE(refused.code, 2);
        QVERIFY2(refused.err.contains("--output given twice"), qPrintable(refused.err));

        auto write_set = [&](const QString& key, int problems) {
            const QString path = dir_.filePath(key + ".json");
            QFile f(path);
            if (!f.open(QIODevice::WriteOnly)) return QString();
            QString text = "{\"key\": \"" + key + "\", \"direction\": \"forward\", \"problems\": [";
            for (int i = 0; i < problems; ++i)
                text += QString("%1{\"N\": 1, \"C\": 16, \"K\": 16, \"G\": 1, \"Hi\": %2, "
                                "\"Wi\": %2, \"Y\": 3, \"X\": 3, \"pad_h\": 1, \"pad_w\": 1}")
                            .arg(i ? "," : "")
                            .arg(8 + i + (key == "second" ? 10 : 0));
            f.write((text + "]}").toUtf8());
            return path;
        };
        QStringList args = sweep_args(dir_.filePath("files.csv"));
        const int at = args.indexOf("--problems");
        args.remove(at, 2);
        args << "--problems-file" << write_set("first", 2) << "--problems-file"
             << write_set("second", 1);
        const auto r = run(args);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(csv_rows(dir_.filePath("files.csv")).size(), 1 + 3 * 3);
        QFile meta(dir_.filePath("files.csv.meta.json"));
        QVERIFY(meta.open(QIODevice::ReadOnly));
        const auto sets =
            QJsonDocument::fromJson(meta.readAll()).object()["problem_sets"].toObject();
        QVERIFY(sets.contains("first") && sets.contains("second"));
    }

    void unknown_registry_key_lists_the_known_ones() {
        QStringList args = sweep_args(dir_.filePath("unknown.csv"));
        args[args.indexOf("--problems") + 1] = "forward_2d_no_such_set";
        const auto r = run(args);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("forward_2d_no_such_set") &&
                     r.err.contains("forward_2d_test_validation"),
                 qPrintable(r.err));
    }

    // A run's tensors have one element type: a pool of bf16 and fp32 kernels is refused with
    // the filter that picks one, not run on tensors of the first kernel's type.
    void a_pool_of_two_data_types_is_refused() {
        QStringList args = sweep_args(dir_.filePath("mixed.csv"));
        args << "--config" << gconv::test::source_path("bench/configs/forward_splitk_explore.json");
        args[args.indexOf("--max-kernels") + 1] = "100";
        const auto r = run(args);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("forward_splitk_explore.json: data_type") &&
                     r.err.contains("c.dtype == 'bf16'"),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(dir_.filePath("mixed.csv")) ||
                QFile(dir_.filePath("mixed.csv")).size() == 0);
        args << "--filter-file" << write_filter("c.dtype == 'fp32'");
        QCOMPARE(run(args).code, 0);
    }

    void unwritable_output_is_refused_before_the_build() {
        const auto r = run(sweep_args("/nonexistent-dir/out.csv"));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("/nonexistent-dir/out.csv"), qPrintable(r.err));
    }

    void every_cell_lands_once_with_provenance() {
        const QString out = dir_.filePath("sweep.csv");
        const auto r = run(sweep_args(out));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto rows = csv_rows(out);
        QVERIFY(rows.size() > 1);
        const QStringList header = rows[0];
        const int kernel = header.indexOf("kernel"), idx = header.indexOf("problem_idx"),
                  status = header.indexOf("status");
        QSet<QString> cells;
        int ok = 0;
        for (int i = 1; i < rows.size(); ++i) {
            QVERIFY2(!cells.contains(rows[i][kernel] + "#" + rows[i][idx]),
                     "a cell was written twice");
            cells.insert(rows[i][kernel] + "#" + rows[i][idx]);
            ok += rows[i][status] == "ok";
        }
        QCOMPARE(cells.size(), 3 * 22);
        QVERIFY(ok > 0);
        QFile meta(out + ".meta.json");
        QVERIFY(meta.open(QIODevice::ReadOnly));
        const auto doc = QJsonDocument::fromJson(meta.readAll()).object();
        QCOMPARE(doc["state"].toString(), QString("finished"));
        QVERIFY(doc["toolchain"].toString().contains("nvrtc"));
        QVERIFY(doc["config"].toObject()["sha256"].toString().size() == 64);
        QVERIFY(doc["problem_sets"].toObject().contains("forward_2d_test_validation"));
        QVERIFY(QFile::exists(out + ".worker.log"));
        // Both shares of the benchmark phase: the timed launches, and the cells' GPU spans (the
        // fake worker's span is latency x (warmup + repeat) + 0.01 ms, so it is the larger).
        const QJsonObject bench = doc["benchmark"].toObject();
        QVERIFY(bench["gpu_busy_share"].toDouble() > 0);
        QVERIFY(bench["gpu_work_share"].toDouble() > bench["gpu_busy_share"].toDouble());
        QVERIFY(bench["gpu_span_s"].toDouble() > bench["timed_gpu_s"].toDouble());
        // The serving worker started with the build phase and preloaded the kernels that have
        // supported cells (at least one of the three does: some cells ran).
        QVERIFY(bench["kernels_preloaded"].toInt() >= 1 && bench["kernels_preloaded"].toInt() <= 3);
        QCOMPARE(bench["workers_started"].toInt(), 1);
    }

    void jsonl_progress_is_one_event_per_line() {
        QStringList args = sweep_args(dir_.filePath("jsonl.csv"));
        args[args.indexOf("--progress") + 1] = "jsonl";
        const auto r = run(args);
        QCOMPARE(r.code, 0);
        QSet<QString> phases;
        int cells = 0, summaries = 0;
        for (const QString& line : r.out.split('\n', Qt::SkipEmptyParts)) {
            QJsonParseError error;
            const auto e = QJsonDocument::fromJson(line.toUtf8(), &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(line));
            const QString kind = e["event"].toString();
            if (kind == "phase") phases << e["phase"].toString();
            cells += kind == "cell";
            summaries += kind == "summary";
        }
        QCOMPARE(phases, (QSet<QString>{"build", "benchmark"}));
        QCOMPARE(cells, 3 * 22);
        QCOMPARE(summaries, 1);
    }

    void launch_hold_reaches_the_worker() {
        const QString log = dir_.filePath("requests.log");
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("GCONV_FAKE_REQUEST_LOG", log);
        const auto requests = [&] {
            QFile f(log);
            if (!f.open(QIODevice::ReadOnly)) return QStringList{};
            return QString(f.readAll()).split('\n', Qt::SkipEmptyParts);
        };
        QVERIFY2(run(sweep_args(dir_.filePath("held.csv")), env).code == 0, "default run failed");
        QVERIFY(!requests().isEmpty());
        for (const QString& r : requests()) QVERIFY2(r.startsWith("launch_hold 1 "), qPrintable(r));
        QFile::remove(log);
        QStringList args = sweep_args(dir_.filePath("free.csv"));
        args << "--launch-hold"
             << "off";
        QVERIFY2(run(args, env).code == 0, "--launch-hold off failed");
        QVERIFY(!requests().isEmpty());
        for (const QString& r : requests()) QVERIFY2(r.startsWith("launch_hold 0 "), qPrintable(r));
        args.last() = "sometimes";
        const auto bad = run(args, env);
        QVERIFY(bad.code != 0);
        QVERIFY2(bad.err.contains("--launch-hold: unknown value 'sometimes'"), qPrintable(bad.err));
    }

    void seed_schema_has_exactly_the_seed_columns() {
        QStringList args = sweep_args(dir_.filePath("seed.csv"));
        args << "--csv-schema"
             << "seed";
        QCOMPARE(run(args).code, 0);
        const auto rows = csv_rows(dir_.filePath("seed.csv"));
        QVERIFY(!rows.isEmpty());
        QCOMPARE(rows[0], QString("kernel,problem_idx,N,C,K,G,Hi,Wi,Y,X,stride_h,stride_w,pad_h,"
                                  "pad_w,latency_ms,tflops,non_zero")
                              .split(','));
        for (int i = 1; i < rows.size(); ++i)
            if (rows[i].size() == rows[0].size() && rows[i][14] == "N/A")
                QCOMPARE(rows[i][15], QString("0"));
    }

    void resume_after_kill_loses_and_repeats_nothing() {
        const QString out = dir_.filePath("resume.csv");
        const QString log1 = dir_.filePath("fake1.log"), log2 = dir_.filePath("fake2.log");
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("GCONV_FAKE_DELAY_MS", "40");
        env.insert("GCONV_FAKE_LOG", log1);
        QStringList args = sweep_args(out);
        args << "--batch-size"
             << "5";
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(gconv::test::tool_path("gconv-bench"), args);
        QVERIFY(p.waitForStarted());
        // Kill once some cells of the benchmark phase are on disk.
        for (int i = 0; i < 600 && csv_rows(out).size() < 40; ++i) QThread::msleep(50);
        const int before_kill = csv_rows(out).size() - 1;
        QVERIFY2(before_kill > 0, "no rows before the kill");
        ::kill(pid_t(p.processId()), SIGKILL);
        p.waitForFinished();
        const auto first = csv_rows(out);
        const int kept = first.size() - 1;
        QVERIFY(kept < 3 * 22);

        env.insert("GCONV_FAKE_LOG", log2);
        env.insert("GCONV_FAKE_DELAY_MS", "0");
        args << "--resume";
        const auto r = run(args, env);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto rows = csv_rows(out);
        const int kernel = rows[0].indexOf("kernel"), idx = rows[0].indexOf("problem_idx");
        QSet<QString> cells;
        for (int i = 1; i < rows.size(); ++i) {
            QVERIFY2(rows[i].size() >= rows[0].size() - 1, "a torn line survived the resume");
            const QString cell = rows[i][kernel] + "#" + rows[i][idx];
            QVERIFY2(!cells.contains(cell), qPrintable("cell written twice: " + cell));
            cells.insert(cell);
        }
        QCOMPARE(cells.size(), 3 * 22);
        // The first rows survive unchanged, and the second run's workers ran only new cells.
        for (int i = 1; i < first.size(); ++i)
            if (first[i].size() >= first[0].size()) QCOMPARE(rows[i], first[i]);
        QFile f2(log2);
        const int rerun = f2.open(QIODevice::ReadOnly) ? f2.readAll().count('\n') : 0;
        QFile f1(log1);
        QVERIFY(f1.open(QIODevice::ReadOnly));
        int ok_or_fail_first = 0;
        const int status = rows[0].indexOf("status");
        for (int i = 1; i < first.size(); ++i)
            if (first[i].size() >= first[0].size() &&
                (first[i][status] == "ok" || first[i][status] == "fail"))
                ++ok_or_fail_first;
        int ran_total = 0;
        for (int i = 1; i < rows.size(); ++i)
            ran_total += rows[i][status] == "ok" || rows[i][status] == "fail";
        QCOMPARE(rerun, ran_total - ok_or_fail_first);
    }

    void build_only_compiles_and_stops() {
        QStringList args = sweep_args(dir_.filePath("build.csv"));
        args << "--build-only";
        const auto r = run(args);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("cached"), qPrintable(r.err));
        QVERIFY(csv_rows(dir_.filePath("build.csv")).isEmpty());
    }
};

QTEST_APPLESS_MAIN(TestBenchCli)
#include "tst_bench_cli.moc"
