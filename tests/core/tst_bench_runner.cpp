#include "csv/csv_reader.h"
#include "sweep/bench_runner.h"
#include "sweep/early_workers.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <map>
#include <random>
#include <set>

using namespace gconv;

namespace {

struct VectorSink : ResultSink {
    std::vector<ResultRow> rows;
    size_t last_done = 0;
    void write(const ResultRow& row) override { rows.push_back(row); }
    void progress(const BenchProgress& p) override { last_done = p.done; }
};

// Kernel k of a plan is "fk<k>" plus its tag (a gconv-fake-worker behaviour).
BenchPlan make_plan(int kernels, int problems, const std::map<int, std::string>& tags,
                    std::mt19937_64& rng) {
    BenchPlan plan;
    plan.variant = "forward";
    plan.dtype = "bf16";
    plan.arch = "fake_arch";
    plan.toolchain = "t" + std::to_string(rng() % 1000);
    plan.repeat = 10;
    for (int k = 0; k < kernels; ++k) {
        auto tag = tags.find(k);
        plan.kernels.push_back({"fk" + std::to_string(k) + (tag != tags.end() ? tag->second : ""),
                                "/nonexistent.co", "entry", nlohmann::json::object()});
    }
    for (int p = 0; p < problems; ++p) {
        BenchProblem bp;
        bp.problem.N = 1 + static_cast<int64_t>(rng() % 8);
        bp.problem.G = 1 + static_cast<int64_t>(rng() % 4);
        bp.problem.C = bp.problem.G * (1 + static_cast<int64_t>(rng() % 32));
        bp.problem.K = bp.problem.G * (1 + static_cast<int64_t>(rng() % 32));
        bp.problem.Hi = bp.problem.Wi = 4 + static_cast<int64_t>(rng() % 60);
        bp.problem.Y = bp.problem.X = 3;
        bp.json = {{"N", bp.problem.N},
                   {"C", bp.problem.C},
                   {"K", bp.problem.K},
                   {"G", bp.problem.G},
                   {"Hi", bp.problem.Hi},
                   {"Wi", bp.problem.Wi},
                   {"Y", 3},
                   {"X", 3}};
        bp.key = bp.json.dump() + "#" + std::to_string(p);
        bp.problem_idx = p;
        plan.problems.push_back(bp);
    }
    // Interleave problems so grouping by problem is exercised.
    for (int k = 0; k < kernels; ++k)
        for (int p = 0; p < problems; ++p)
            plan.cells.push_back({static_cast<size_t>(k), static_cast<size_t>(p)});
    return plan;
}

// The plan's kernels as a preload sends them (ids: plan indices).
std::vector<WorkerKernel> preload_of(const BenchPlan& plan) {
    std::vector<WorkerKernel> kernels;
    for (size_t k = 0; k < plan.kernels.size(); ++k)
        kernels.push_back({int64_t(k), plan.kernels[k].name, plan.kernels[k].code_object,
                           plan.kernels[k].entry, nlohmann::json::object()});
    return kernels;
}

bool any_contains(const std::vector<std::string>& texts, const std::string& needle) {
    return std::any_of(texts.begin(), texts.end(),
                       [&](const std::string& t) { return t.find(needle) != std::string::npos; });
}

std::string status_of(const std::vector<ResultRow>& rows, const std::string& kernel,
                      int64_t problem) {
    for (const auto& r : rows)
        if (r.kernel == kernel && r.problem_idx == problem) return std::string(to_string(r.status));
    return "missing";
}

} // namespace

class TestBenchRunner : public QObject {
    Q_OBJECT

    std::mt19937_64 rng{std::random_device{}()};
    QTemporaryDir dir;

    BenchOptions options(double timeout = 5.0, size_t batch = 20) {
        BenchOptions o;
        o.worker_command = {GCONV_FAKE_WORKER};
        o.worker_log = dir.filePath("worker.log").toStdString();
        o.batch_size = batch;
        o.kernel_timeout_s = timeout;
        o.terminate_grace = std::chrono::milliseconds(200);
        return o;
    }

    // The plan run by an orchestrator whose workers were started and preloaded ahead of it.
    BenchSummary run_preloaded(const BenchPlan& plan, BenchOptions o, VectorSink& sink) {
        EarlyWorkers early(o);
        early.preload(preload_of(plan));
        o.early = &early;
        return run_benchmarks(plan, o, sink);
    }

    // Every cell exactly once; returns status per (kernel index, problem).
    void check_each_cell_once(const BenchPlan& plan, const std::vector<ResultRow>& rows) {
        std::set<std::string> keys;
        for (const auto& r : rows) QVERIFY2(keys.insert(r.content_key).second, r.kernel.c_str());
        QCOMPARE(rows.size(), plan.cells.size());
        for (const auto& cell : plan.cells) QVERIFY(keys.count(cell_content_key(plan, cell)));
    }

private slots:
    void allSucceedGroupedByProblem_data() {
        QTest::addColumn<int>("batchesPerWorker");
        QTest::newRow("one worker serves every batch") << 0;
        QTest::newRow("a fresh worker per batch") << 1;
        QTest::newRow("two batches per worker") << 2;
    }

    void allSucceedGroupedByProblem() {
        QFETCH(int, batchesPerWorker);
        const int kernels = 5 + static_cast<int>(rng() % 4), problems = 3;
        BenchPlan plan = make_plan(kernels, problems, {}, rng);
        VectorSink sink;
        BenchOptions o = options(5.0, 4);
        o.batches_per_worker = size_t(batchesPerWorker);
        const QString serveLog = dir.filePath("serve.log");
        QFile::remove(serveLog);
        o.worker_environment = {"GCONV_FAKE_SERVE_LOG=" + serveLog.toStdString()};
        const BenchSummary s = run_benchmarks(plan, o, sink);
        check_each_cell_once(plan, sink.rows);
        for (const auto& r : sink.rows) {
            QCOMPARE(r.status, CellStatus::Ok);
            QVERIFY(r.latency_ms > 0 && r.tflops > 0 && r.non_zero);
            QCOMPARE(r.verified, std::optional<bool>(true));
        }
        // Rows come out grouped by problem.
        for (size_t i = 1; i < sink.rows.size(); ++i)
            QVERIFY(sink.rows[i].problem_idx >= sink.rows[i - 1].problem_idx);
        const size_t per_problem = (kernels + 3) / 4;
        QCOMPARE(s.batches, per_problem * problems);
        const size_t expectedWorkers =
            batchesPerWorker == 0 ? 1 : (s.batches + batchesPerWorker - 1) / batchesPerWorker;
        QCOMPARE(s.workers_started, expectedWorkers);
        // Serving workers log one line (their pid) per batch: every batch was served once, by
        // as many processes as were started.
        if (batchesPerWorker != 1) {
            QFile log(serveLog);
            QVERIFY(log.open(QIODevice::ReadOnly));
            const QStringList pids =
                QString::fromUtf8(log.readAll()).split('\n', Qt::SkipEmptyParts);
            QCOMPARE(size_t(pids.size()), s.batches);
            QCOMPARE(size_t(QSet<QString>(pids.begin(), pids.end()).size()), expectedWorkers);
        } else {
            QVERIFY(!QFile::exists(serveLog));
        }
        QCOMPARE(s.cells_measured, plan.cells.size());
        QVERIFY(s.timed_gpu_s > 0 && s.overhead_per_batch_ms > 0);
        for (const auto& r : sink.rows) QVERIFY(!has_value(r.baseline_ms) && !has_value(r.speedup));
        QCOMPARE(sink.last_done, plan.cells.size());
    }

    void everyMisbehaviourLandsOnce_data() {
        QTest::addColumn<QString>("tag");
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("needle");
        QTest::newRow("fail") << "@fail"
                              << "fail"
                              << "tolerance";
        QTest::newRow("abort") << "@crash"
                               << "crash"
                               << "signal 6";
        QTest::newRow("segv") << "@segv"
                              << "crash"
                              << "signal 11";
        QTest::newRow("exit mid cell") << "@exitmid"
                                       << "crash"
                                       << "exit code 1";
        QTest::newRow("garbage") << "@garbage"
                                 << "error"
                                 << "not a JSON line";
        QTest::newRow("truncated") << "@truncate"
                                   << "error"
                                   << "truncated worker output";
        QTest::newRow("early exit") << "@exit"
                                    << "error"
                                    << "exited (exit code 0) before reporting";
        QTest::newRow("sticky") << "@sticky"
                                << "error"
                                << "sticky";
        QTest::newRow("oom") << "@oom"
                             << "oom"
                             << "out of memory";
        QTest::newRow("hang") << "@hang"
                              << "timeout"
                              << "--kernel-timeout";
    }
    void everyMisbehaviourLandsOnce() {
        QFETCH(QString, tag);
        QFETCH(QString, status);
        QFETCH(QString, needle);
        const int kernels = 6, bad = 1 + static_cast<int>(rng() % 4);
        const int problems = tag == "@hang" ? 1 : 2;
        BenchPlan plan = make_plan(kernels, problems, {{bad, tag.toStdString()}}, rng);
        VectorSink sink;
        const BenchSummary s = run_benchmarks(plan, options(1.0), sink);
        check_each_cell_once(plan, sink.rows);
        for (const auto& r : sink.rows) {
            const bool is_bad = r.kernel == plan.kernels[bad].name;
            QCOMPARE(QString::fromStdString(std::string(to_string(r.status))),
                     is_bad ? status : QString("ok"));
            if (is_bad) {
                QVERIFY2(QString::fromStdString(r.error).contains(needle), r.error.c_str());
                if (r.status != CellStatus::Fail)
                    QVERIFY(!has_value(r.latency_ms) || r.status == CellStatus::Oom);
            }
        }
        QCOMPARE(s.by_status.at(CellStatus::Ok), plan.cells.size() - problems);
        // One worker serves every batch until a bad cell ends it; the cells after it run in a
        // new one (a clean "fail" or "oom" keeps the worker).
        if (status == "crash" || status == "timeout" || tag == "@garbage" || tag == "@sticky")
            QCOMPARE(s.workers_started, size_t(1 + problems));
        if (tag == "@fail" || tag == "@oom") QCOMPARE(s.workers_started, size_t(1));
    }

    // The fake worker reports gpu_span_ms = latency x (warmup + repeat) + 0.01 per cell: the
    // summary's span is their sum, and the GPU-work share is that over the wall time.
    void gpuSpansAreSummed() {
        BenchPlan plan = make_plan(4 + int(rng() % 4), 2, {}, rng);
        plan.warmup = 1 + int(rng() % 4);
        plan.repeat = 2 + int(rng() % 20);
        VectorSink sink;
        const BenchSummary s = run_benchmarks(plan, options(), sink);
        check_each_cell_once(plan, sink.rows);
        double expected = 0, timed = 0;
        for (const auto& r : sink.rows) {
            expected += (r.latency_ms * (plan.warmup + plan.repeat) + 0.01) / 1e3;
            timed += r.latency_ms * plan.repeat / 1e3;
        }
        QVERIFY2(std::abs(s.gpu_span_s - expected) <= 1e-9 * expected,
                 (std::to_string(s.gpu_span_s) + " vs " + std::to_string(expected)).c_str());
        QVERIFY(std::abs(s.timed_gpu_s - timed) <= 1e-9 * timed);
        QVERIFY(s.wall_s > 0);
        QCOMPARE(s.gpu_work_share, s.gpu_span_s / s.wall_s);
        QCOMPARE(s.gpu_busy_share, s.timed_gpu_s / s.wall_s);
        QVERIFY(s.gpu_work_share > s.gpu_busy_share);
    }

    // A worker without the field: its results still land, the span is simply not counted.
    void workersWithoutSpansStillWork() {
        BenchPlan plan = make_plan(3, 2, {}, rng);
        BenchOptions o = options();
        o.worker_environment = {"GCONV_FAKE_NO_SPAN=1"};
        VectorSink sink;
        const BenchSummary s = run_benchmarks(plan, o, sink);
        check_each_cell_once(plan, sink.rows);
        for (const auto& r : sink.rows) QCOMPARE(r.status, CellStatus::Ok);
        QCOMPARE(s.gpu_span_s, 0.0);
        QCOMPARE(s.gpu_work_share, 0.0);
        QVERIFY(s.gpu_busy_share > 0);
    }

    // Workers started ahead load every kernel before the first cell runs, and the slot takes
    // the one started for it.
    void preloadComesBeforeCells() {
        BenchPlan plan = make_plan(5, 2, {}, rng);
        BenchOptions o = options(5.0, 3);
        const QString log = dir.filePath("preload_order.log");
        QFile::remove(log);
        o.worker_environment = {"GCONV_FAKE_LOG=" + log.toStdString(),
                                "GCONV_FAKE_PRELOAD_LOG=" + log.toStdString()};
        EarlyWorkers early(o);
        QCOMPARE(early.count(), size_t{1});
        early.preload(preload_of(plan));
        o.early = &early;
        VectorSink sink;
        const BenchSummary s = run_benchmarks(plan, o, sink);
        check_each_cell_once(plan, sink.rows);
        for (const auto& r : sink.rows) QCOMPARE(r.status, CellStatus::Ok);
        QCOMPARE(s.workers_started, size_t{1});
        QCOMPARE(s.kernels_preloaded, plan.kernels.size());
        QVERIFY(s.warnings.empty());
        QFile file(log);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(size_t(lines.size()), plan.kernels.size() + plan.cells.size());
        for (size_t i = 0; i < size_t(lines.size()); ++i)
            QCOMPARE(lines[int(i)].split(' ')[1] == "preload", i < plan.kernels.size());
    }

    // A worker that dies while preloading has no cell in flight: none is blamed, every cell is
    // run by the next worker, and the death is in the warnings.
    void aCrashWhilePreloadingBlamesNoCell() {
        BenchPlan plan = make_plan(4, 2, {{1, "@preloadcrash"}}, rng);
        VectorSink sink;
        const BenchSummary s = run_preloaded(plan, options(), sink);
        check_each_cell_once(plan, sink.rows);
        for (const auto& r : sink.rows) QCOMPARE(r.status, CellStatus::Ok);
        QVERIFY2(any_contains(s.warnings, "while loading kernel fk1@preloadcrash"),
                 s.warnings.empty() ? "no warning" : s.warnings.front().c_str());
        QVERIFY(any_contains(s.warnings, "crash while preloading")); // its stderr tail
        // The early worker, then one fresh one (the slot's, or the phase's own first).
        QVERIFY(s.workers_started <= 2);
        QVERIFY(s.kernels_preloaded <= 1); // fk0 at most, before the crash
    }

    // A kernel whose code object does not load: the preload says so and each of its cells
    // gets that error; the other kernels run.
    void aKernelThatDoesNotLoad() {
        BenchPlan plan = make_plan(4, 2, {{2, "@loadfail"}}, rng);
        VectorSink sink;
        const BenchSummary s = run_preloaded(plan, options(), sink);
        check_each_cell_once(plan, sink.rows);
        for (const auto& r : sink.rows) {
            if (r.kernel == plan.kernels[2].name) {
                QCOMPARE(r.status, CellStatus::Error);
                QVERIFY2(r.error.find("does not load") != std::string::npos, r.error.c_str());
            } else {
                QCOMPARE(r.status, CellStatus::Ok);
            }
        }
        QCOMPARE(s.workers_started, size_t{1});
        QCOMPARE(s.kernels_preloaded, plan.kernels.size() - 1);
        QVERIFY(any_contains(s.warnings, "did not load ahead of its cells"));
    }

    void baselineLatencyGivesTheSpeedup() {
        BenchPlan plan = make_plan(3, 2, {}, rng);
        plan.baseline = "cudnn";
        VectorSink sink;
        run_benchmarks(plan, options(), sink);
        check_each_cell_once(plan, sink.rows);
        for (const auto& r : sink.rows) {
            QCOMPARE(r.baseline_ms, 1.5 * r.latency_ms);
            QVERIFY(std::abs(r.speedup - 1.5) < 1e-12);
        }
    }

    void unsupportedCellsAreNotRun() {
        BenchPlan plan = make_plan(4, 3, {{2, "@crash"}}, rng);
        BenchOptions o = options();
        o.unsupported = [](const BenchPlan&, const BenchCell& c) -> std::optional<std::string> {
            if (c.kernel == 2) return "tile does not divide the problem";
            return std::nullopt;
        };
        VectorSink sink;
        run_benchmarks(plan, o, sink);
        check_each_cell_once(plan, sink.rows);
        for (int p = 0; p < 3; ++p) {
            QCOMPARE(status_of(sink.rows, plan.kernels[2].name, p), std::string("unsupported"));
            QCOMPARE(status_of(sink.rows, "fk0", p), std::string("ok"));
        }
    }

    void resumeSkipsDoneKeys() {
        BenchPlan plan = make_plan(5, 2, {}, rng);
        BenchOptions o = options();
        std::set<size_t> done;
        for (size_t i = 0; i < plan.cells.size(); ++i)
            if (rng() % 2) {
                done.insert(i);
                o.done_keys.insert(cell_content_key(plan, plan.cells[i]));
            }
        VectorSink sink;
        const BenchSummary s = run_benchmarks(plan, o, sink);
        QCOMPARE(s.skipped_done, done.size());
        QCOMPARE(sink.rows.size(), plan.cells.size() - done.size());
        for (const auto& r : sink.rows) QVERIFY(!o.done_keys.count(r.content_key));
    }

    void missingWorkerGivesErrorRows() {
        BenchPlan plan = make_plan(2, 1, {}, rng);
        BenchOptions o = options();
        o.worker_command = {dir.filePath("no-such-worker").toStdString()};
        VectorSink sink;
        run_benchmarks(plan, o, sink);
        QCOMPARE(sink.rows.size(), size_t{2});
        for (const auto& r : sink.rows) {
            QCOMPARE(r.status, CellStatus::Error);
            QVERIFY2(QString::fromStdString(r.error).contains("no-such-worker"), r.error.c_str());
        }
    }

    // Slots as gconv-bench --devices makes them: the fake host has `n` GPUs, slot i's workers
    // see only GPU i through CUDA_VISIBLE_DEVICES.
    BenchOptions slot_options(int n, const QString& device_log, int delay_ms = 5) {
        BenchOptions o = options(5.0, 3);
        std::string names;
        for (int i = 0; i < n; ++i) names += (i ? "," : "") + std::string("Fake GPU");
        o.worker_environment = {"GCONV_FAKE_DEVICES=" + names,
                                "GCONV_FAKE_DEVICE_LOG=" + device_log.toStdString(),
                                "GCONV_FAKE_DELAY_MS=" + std::to_string(delay_ms)};
        for (int i = 0; i < n; ++i) {
            BenchSlot slot;
            slot.device_index = std::to_string(i);
            slot.device = "Fake GPU #" + std::to_string(i);
            slot.environment = {"CUDA_VISIBLE_DEVICES=" + std::to_string(i)};
            slot.worker_log = dir.filePath(QString("slot%1.log").arg(i)).toStdString();
            o.gpus.push_back(slot);
        }
        return o;
    }

    // "<cell id> -> host device" as the fake workers logged it.
    static std::map<long long, std::string> devices_that_ran(const QString& device_log) {
        std::ifstream in(device_log.toStdString());
        std::map<long long, std::string> ran;
        std::string device, visible, kernel;
        long long cell = 0;
        while (in >> device >> visible >> cell >> kernel) ran[cell] = device;
        return ran;
    }

    void severalSlotsShareOneQueue() {
        const int kernels = 7, problems = 6;
        BenchPlan plan = make_plan(kernels, problems, {}, rng);
        const QString device_log = dir.filePath("devices.log");
        QFile::remove(device_log);
        VectorSink sink;
        const BenchSummary s = run_benchmarks(plan, slot_options(3, device_log), sink);
        check_each_cell_once(plan, sink.rows);
        // Each row names the GPU that ran it, which is the one its worker ran on.
        const auto ran = devices_that_ran(device_log);
        QCOMPARE(ran.size(), plan.cells.size());
        std::map<std::string, size_t> rows_per_device;
        for (const auto& r : sink.rows) {
            QCOMPARE(r.status, CellStatus::Ok);
            QCOMPARE(r.device, "Fake GPU #" + r.device_index);
            ++rows_per_device[r.device_index];
        }
        for (size_t i = 0; i < plan.cells.size(); ++i) {
            const auto row = std::find_if(sink.rows.begin(), sink.rows.end(), [&](const auto& r) {
                return r.content_key == cell_content_key(plan, plan.cells[i]);
            });
            QCOMPARE(row->device_index, ran.at(static_cast<long long>(i)));
        }
        // Every GPU took batches from the one queue, and the summary adds up per GPU.
        QCOMPARE(s.gpus.size(), size_t(3));
        size_t batches = 0, rows = 0;
        for (const auto& slot : s.gpus) {
            QVERIFY2(slot.batches > 0, slot.device_index.c_str());
            QCOMPARE(slot.rows_written, rows_per_device[slot.device_index]);
            QCOMPARE(slot.workers_started, size_t(1));
            QVERIFY(slot.busy_s > 0);
            batches += slot.batches;
            rows += slot.rows_written;
        }
        QCOMPARE(batches, s.batches);
        QCOMPARE(batches, size_t(problems * 3)); // 7 kernels in batches of 3
        QCOMPARE(rows, plan.cells.size());
        QCOMPARE(s.workers_started, size_t(3));
    }

    // A crash on GPU 1 marks exactly its cell in flight; GPU 1 goes on in a new worker, and
    // the other GPU is not disturbed.
    void aCrashOnOneSlotMarksOnlyItsCell() {
        BenchPlan plan = make_plan(6, 8, {}, rng);
        const QString device_log = dir.filePath("crash-devices.log");
        const QString marker = dir.filePath("crash.marker");
        QFile::remove(device_log);
        QFile::remove(marker);
        BenchOptions o = slot_options(2, device_log);
        o.worker_environment.push_back("GCONV_FAKE_CRASH_DEVICE=1");
        o.worker_environment.push_back("GCONV_FAKE_CRASH_ONCE=" + marker.toStdString());
        VectorSink sink;
        const BenchSummary s = run_benchmarks(plan, o, sink);
        check_each_cell_once(plan, sink.rows);
        std::ifstream in(marker.toStdString());
        long long crashed = -1;
        std::string crashed_kernel;
        QVERIFY2(in >> crashed >> crashed_kernel, "no cell crashed");
        const std::string crashed_key =
            cell_content_key(plan, plan.cells[static_cast<size_t>(crashed)]);
        size_t ok_on_0 = 0, ok_on_1 = 0;
        for (const auto& r : sink.rows) {
            if (r.content_key == crashed_key) {
                QCOMPARE(r.status, CellStatus::Crash);
                QCOMPARE(r.device_index, std::string("1"));
                QVERIFY2(QString::fromStdString(r.error).contains("signal 6"), r.error.c_str());
                continue;
            }
            QCOMPARE(r.status, CellStatus::Ok);
            (r.device_index == "0" ? ok_on_0 : ok_on_1) += 1;
        }
        QVERIFY(ok_on_0 > 0 && ok_on_1 > 0);
        QCOMPARE(s.by_status.at(CellStatus::Crash), size_t(1));
        QCOMPARE(s.gpus[0].workers_started, size_t(1));
        QCOMPARE(s.gpus[1].workers_started, size_t(2));
        // The crash row quotes GPU 1's worker only.
        QFile log0(dir.filePath("slot0.log"));
        QVERIFY(!log0.open(QIODevice::ReadOnly) || !log0.readAll().contains("@crash"));
    }

    // A hang on one GPU times out exactly its cell; the other GPU's worker is not disturbed.
    void aHangOnOneSlotTimesOutOnlyItsCell() {
        BenchPlan plan = make_plan(4, 6, {}, rng);
        const QString device_log = dir.filePath("hang-devices.log");
        QFile::remove(device_log);
        BenchOptions o = slot_options(2, device_log, 20);
        o.kernel_timeout_s = 1.0;
        const size_t hung = rng() % plan.cells.size();
        o.worker_environment.push_back("GCONV_FAKE_SCRIPT={\"" + std::to_string(hung) +
                                       "\": \"@hang\"}");
        VectorSink sink;
        const BenchSummary s = run_benchmarks(plan, o, sink);
        check_each_cell_once(plan, sink.rows);
        const std::string hung_key = cell_content_key(plan, plan.cells[hung]);
        std::string hung_on;
        for (const auto& r : sink.rows)
            if (r.content_key == hung_key) {
                QCOMPARE(r.status, CellStatus::Timeout);
                hung_on = r.device_index;
            } else {
                QCOMPARE(r.status, CellStatus::Ok);
            }
        QVERIFY(hung_on == "0" || hung_on == "1");
        const size_t other = hung_on == "0" ? 1 : 0;
        QVERIFY(s.gpus[other].rows_written > 0);
        QCOMPARE(s.gpus[other].workers_started, size_t(1));
    }

    // A stop request ends every slot: the cells in flight get no row, none is written twice.
    void aStopEndsEverySlot() {
        BenchPlan plan = make_plan(6, 10, {}, rng);
        const QString device_log = dir.filePath("stop-devices.log");
        QFile::remove(device_log);
        BenchOptions o = slot_options(2, device_log, 20);
        std::atomic<bool> stop{false};
        o.stop = &stop;
        struct StoppingSink : VectorSink {
            std::atomic<bool>* stop = nullptr;
            void write(const ResultRow& row) override {
                VectorSink::write(row);
                if (rows.size() == 12) stop->store(true);
            }
        } sink;
        sink.stop = &stop;
        const BenchSummary s = run_benchmarks(plan, o, sink);
        QVERIFY(s.stopped);
        QVERIFY2(sink.rows.size() >= 12 && sink.rows.size() < 16,
                 qPrintable(QString::number(sink.rows.size())));
        std::set<std::string> keys;
        for (const auto& r : sink.rows) {
            QVERIFY(keys.insert(r.content_key).second);
            QCOMPARE(r.status, CellStatus::Ok);
        }
    }

    // kill -9 of the orchestrator mid-sweep, then --resume: no finished cell re-run, none lost.
    void resumeAfterKill9() {
        const QString csv = dir.filePath("sweep.csv"), log = dir.filePath("ran.log");
        const int kernels = 6, problems = 8;
        const QStringList args = {"--worker",     GCONV_FAKE_WORKER,
                                  "--output",     csv,
                                  "--kernels",    QString::number(kernels),
                                  "--problems",   QString::number(problems),
                                  "--batch-size", "4"};
        auto env_for = [&](const char* tag) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("GCONV_FAKE_LOG", log);
            env.insert("GCONV_FAKE_TAG", tag);
            env.insert("GCONV_FAKE_DELAY_MS", "40");
            return env;
        };
        QProcess first;
        first.setProcessEnvironment(env_for("run1"));
        first.start(GCONV_SWEEP_DRIVER, args);
        QVERIFY(first.waitForStarted());
        const int kill_after = 10 + static_cast<int>(rng() % 10);
        QElapsedTimer timer;
        timer.start();
        for (;;) {
            QFile f(csv);
            if (f.open(QIODevice::ReadOnly) && f.readAll().count('\n') > kill_after) break;
            QVERIFY2(timer.elapsed() < 20000, "the first run wrote too few rows");
            QVERIFY2(first.state() == QProcess::Running, "the first run ended before the kill");
            QThread::msleep(5);
        }
        ::kill(static_cast<pid_t>(first.processId()), SIGKILL);
        QVERIFY(first.waitForFinished());
        QThread::msleep(100); // the worker dies with its parent (PDEATHSIG)

        const CsvReadResult after_kill = read_results_csv(csv.toStdString());
        std::set<std::string> finished; // "kernel/problem" of rows written by run 1
        for (size_t i = 0; i < after_kill.table.rows(); ++i) {
            const ResultRow r = after_kill.table.row(i);
            finished.insert(r.kernel + "/" + std::to_string(r.problem_idx));
        }
        QVERIFY(finished.size() >= static_cast<size_t>(kill_after));
        QVERIFY(finished.size() < static_cast<size_t>(kernels * problems));

        QProcess second;
        second.setProcessEnvironment(env_for("run2"));
        second.start(GCONV_SWEEP_DRIVER, QStringList(args) << "--resume");
        QVERIFY(second.waitForFinished(30000));
        QVERIFY2(second.exitCode() == 0, second.readAllStandardError().constData());

        // Cells the worker ran in the second run (cell id = problem * kernels + kernel).
        std::ifstream ran(log.toStdString());
        std::string tag, kernel;
        long long cell = 0;
        size_t rerun = 0, second_cells = 0;
        while (ran >> tag >> cell >> kernel) {
            if (tag != "run2") continue;
            ++second_cells;
            const std::string id = kernel + "/" + std::to_string(cell / kernels);
            if (finished.count(id)) ++rerun;
        }
        QCOMPARE(rerun, size_t{0});
        QCOMPARE(second_cells + finished.size(), static_cast<size_t>(kernels * problems));

        const CsvReadResult final_read = read_results_csv(csv.toStdString());
        QVERIFY(final_read.warnings.empty());
        QCOMPARE(final_read.table.rows(), static_cast<size_t>(kernels * problems));
        std::set<std::string> all;
        for (size_t i = 0; i < final_read.table.rows(); ++i) {
            const ResultRow r = final_read.table.row(i);
            QCOMPARE(r.status, CellStatus::Ok);
            QVERIFY(all.insert(r.kernel + "/" + std::to_string(r.problem_idx)).second);
        }
    }
};

QTEST_APPLESS_MAIN(TestBenchRunner)
#include "tst_bench_runner.moc"
