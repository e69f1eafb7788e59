// gconv-bench --devices end to end with the fake worker pretending to be a host of several GPUs
// (no GPU needed): one queue over the GPUs into one CSV, each worker on its own GPU through the
// visibility variable, rows and progress events naming the GPU, provenance per GPU, a crash on
// one GPU leaving the other alone, the checks on the device list, stop and resume across GPUs.
#include "bench_cli.h"
#include "csv/csv_reader.h"
#include "test_paths.h"
#include "util/json_file.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <map>
#include <set>

using namespace gconv;

namespace {

constexpr size_t k_cells = 3 * 22; // the fake sweep: 3 kernels x 22 problems

struct DeviceLogLine {
    std::string device;  // the host GPU the worker ran on
    std::string visible; // its CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES, "-" when unset
    long long cell = 0;
    std::string kernel;
};

std::vector<DeviceLogLine> device_log(const QString& path) {
    std::ifstream in(path.toStdString());
    std::vector<DeviceLogLine> lines;
    DeviceLogLine l;
    while (in >> l.device >> l.visible >> l.cell >> l.kernel) lines.push_back(l);
    return lines;
}

std::vector<ResultRow> rows_of(const QString& csv) {
    const CsvReadResult read = read_results_csv(csv.toStdString());
    std::vector<ResultRow> rows;
    for (size_t i = 0; i < read.table.rows(); ++i) rows.push_back(read.table.row(i));
    return rows;
}

// Fails (returns a message) unless every cell of the fake sweep has exactly one row.
QString each_cell_once(const std::vector<ResultRow>& rows) {
    std::set<std::string> keys;
    for (const auto& r : rows)
        if (!keys.insert(r.content_key).second)
            return QString::fromStdString("a cell twice: " + r.kernel + " " + r.problem_key);
    if (keys.size() != k_cells) return QString("%1 cells, not %2").arg(keys.size()).arg(k_cells);
    return {};
}

bool ran(const ResultRow& r) {
    return r.status == CellStatus::Ok || r.status == CellStatus::Fail ||
           r.status == CellStatus::Crash;
}

} // namespace

class TestBenchDevices : public QObject {
    Q_OBJECT

    using Result = gconv::test::BenchRun;

    QTemporaryDir dir_;
    QString cache_;

    QStringList sweep_args(const QString& output, const QString& devices = {}) {
        QStringList args = gconv::test::fake_sweep_args(dir_.filePath(output), cache_);
        if (!devices.isNull()) args << "--devices" << devices;
        return args;
    }

    // A fake host with the given GPUs; every cell the workers begin goes to `log`.
    static QProcessEnvironment host(const QString& gpus, const QString& log, int delay_ms = 0) {
        auto env = QProcessEnvironment::systemEnvironment();
        env.remove("CUDA_VISIBLE_DEVICES");
        env.remove("HIP_VISIBLE_DEVICES");
        env.insert("GCONV_FAKE_DEVICES", gpus);
        env.insert("GCONV_FAKE_DEVICE_LOG", log);
        env.insert("GCONV_FAKE_DELAY_MS", QString::number(delay_ms));
        return env;
    }

    Result run(const QStringList& args, const QProcessEnvironment& env) {
        return gconv::test::run_bench(args, env);
    }

    nlohmann::json sidecar(const QString& csv) {
        return read_json_file(dir_.filePath(csv).toStdString() + ".meta.json");
    }

    // The benchmark phase of one sweep over `devices` whose cells take `delay_ms` each: its
    // wall time and the number of cells measured.
    std::pair<double, size_t> benchmark_phase(const QString& devices, int delay_ms) {
        const QString out = "timed_" + QString(devices).replace(',', '_') + ".csv";
        const auto r = run(sweep_args(out, devices),
                           host("Fake H200,Fake H200", dir_.filePath("timed.log"), delay_ms));
        if (r.code != 0) throw std::runtime_error(r.err.toStdString());
        const auto benchmark = sidecar(out)["benchmark"];
        return {benchmark["wall_s"].get<double>(), benchmark["by_status"]["ok"].get<size_t>()};
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        cache_ = dir_.filePath("cache");
        if (!QFile::exists(gconv::test::tool_path("gconv-bench")))
            QSKIP("gconv-bench is not built (no GPU platform)");
        // Compiles the three kernels once; every later sweep finds them cached.
        const auto r = run(sweep_args("warm.csv"), host("Fake H200", dir_.filePath("warm.log")));
        QVERIFY2(r.code == 0, qPrintable(r.err));
    }

    void help_documents_devices() {
        const auto r = run({"--help"}, QProcessEnvironment::systemEnvironment());
        QCOMPARE(r.code, 0);
        for (const char* text : {"--devices", "--allow-mixed", "CUDA_VISIBLE_DEVICES",
                                 "HIP_VISIBLE_DEVICES", "device_index", "all"})
            QVERIFY2(r.out.contains(text), text);
    }

    void two_gpus_share_one_queue_into_one_csv() {
        const QString log = dir_.filePath("two.log");
        QStringList args = sweep_args("two.csv", "0,1");
        args[args.indexOf("--progress") + 1] = "jsonl";
        const auto r = run(args, host("Fake H200,Fake H200", log, 5));
        QVERIFY2(r.code == 0, qPrintable(r.err));

        const auto rows = rows_of(dir_.filePath("two.csv"));
        const QString once = each_cell_once(rows);
        QVERIFY2(once.isEmpty(), qPrintable(once));
        // Every cell that ran names the GPU whose worker ran it (the workers' own log says
        // which), and each worker saw only its GPU, through CUDA_VISIBLE_DEVICES.
        std::multiset<std::pair<std::string, std::string>> logged, written;
        for (const auto& l : device_log(log)) {
            QCOMPARE(l.visible, l.device);
            logged.insert({l.kernel, l.device});
        }
        std::map<std::string, size_t> per_device;
        for (const auto& row : rows) {
            QCOMPARE(row.device, std::string("Fake H200"));
            if (!ran(row)) {
                QVERIFY2(row.device_index.empty(), row.device_index.c_str());
                continue;
            }
            written.insert({row.kernel, row.device_index});
            ++per_device[row.device_index];
        }
        QCOMPARE(written, logged);
        QCOMPARE(per_device.size(), size_t(2));
        QVERIFY(per_device["0"] > 0 && per_device["1"] > 0);

        // Provenance per GPU, and one worker log each.
        const auto meta = sidecar("two.csv");
        QCOMPARE(meta["state"].get<std::string>(), std::string("finished"));
        QCOMPARE(meta["device"]["name"].get<std::string>(), std::string("Fake H200"));
        const auto& devices = meta["devices"];
        QCOMPARE(devices.size(), size_t(2));
        std::set<std::string> buses;
        size_t rows_on_gpus = 0;
        for (size_t i = 0; i < 2; ++i) {
            const auto& d = devices[i];
            QCOMPARE(d["index"].get<int>(), int(i));
            QCOMPARE(d["visible_as"].get<std::string>(),
                     "CUDA_VISIBLE_DEVICES=" + std::to_string(i));
            QCOMPARE(d["name"].get<std::string>(), std::string("Fake H200"));
            QCOMPARE(d["arch"].get<std::string>(), std::string("sm_90a"));
            QVERIFY(!d["driver"].get<std::string>().empty());
            buses.insert(d["pci_bus_id"].get<std::string>());
            QCOMPARE(d["rows_written"].get<size_t>(), per_device[std::to_string(i)]);
            QVERIFY(d["batches"].get<size_t>() > 0);
            QVERIFY(QFile::exists(QString::fromStdString(d["worker_log"].get<std::string>())));
            rows_on_gpus += d["rows_written"].get<size_t>();
        }
        QCOMPARE(buses.size(), size_t(2));
        QCOMPARE(rows_on_gpus, per_device["0"] + per_device["1"]);
        QVERIFY(QFile::exists(dir_.filePath("two.csv.gpu0.worker.log")));
        QVERIFY(QFile::exists(dir_.filePath("two.csv.gpu1.worker.log")));
        QVERIFY(!QFile::exists(dir_.filePath("two.csv.worker.log")));
        QCOMPARE(meta["benchmark"]["devices"].size(), size_t(2));

        // Progress events name the GPU of every cell that ran.
        std::map<std::string, size_t> events_per_device;
        size_t cells = 0, summaries = 0;
        for (const QString& line : r.out.split('\n', Qt::SkipEmptyParts)) {
            const QJsonObject e = QJsonDocument::fromJson(line.toUtf8()).object();
            if (e["event"].toString() == "summary") {
                QCOMPARE(e["devices"].toArray().size(), 2);
                ++summaries;
            }
            if (e["event"].toString() != "cell") continue;
            ++cells;
            if (e.contains("device")) {
                QCOMPARE(e["device"].toString(), e["row"].toObject()["device_index"].toString());
                ++events_per_device[e["device"].toString().toStdString()];
            }
        }
        QCOMPARE(cells, k_cells);
        QCOMPARE(summaries, 1);
        QCOMPARE(events_per_device, per_device);
    }

    void all_follows_an_inherited_visibility_list() {
        // gconv-bench itself runs under HIP_VISIBLE_DEVICES=2,0 on an AMD host of three GPUs:
        // its devices 0 and 1 are host GPUs 2 and 0, and its workers are given exactly those.
        const QString log = dir_.filePath("inherited.log");
        auto env = host("Fake GPU,Fake GPU,Fake GPU", log, 5);
        env.insert("GCONV_FAKE_PLATFORM", "amd");
        env.insert("HIP_VISIBLE_DEVICES", "2,0");
        const auto r = run(sweep_args("inherited.csv", "all"), env);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        std::set<std::string> host_gpus;
        for (const auto& l : device_log(log)) {
            QCOMPARE(l.visible, l.device);
            host_gpus.insert(l.device);
        }
        QCOMPARE(host_gpus, (std::set<std::string>{"0", "2"}));
        const auto meta = sidecar("inherited.csv");
        QCOMPARE(meta["devices"][0]["visible_as"].get<std::string>(),
                 std::string("HIP_VISIBLE_DEVICES=2"));
        QCOMPARE(meta["devices"][1]["visible_as"].get<std::string>(),
                 std::string("HIP_VISIBLE_DEVICES=0"));
        // The fake bus ids are 0x10 + the host index.
        QCOMPARE(meta["devices"][0]["pci_bus_id"].get<std::string>(), std::string("0000:12:00.0"));
        for (const auto& row : rows_of(dir_.filePath("inherited.csv")))
            if (ran(row)) QVERIFY(row.device_index == "0" || row.device_index == "1");
    }

    void without_devices_nothing_changes() {
        const QString log = dir_.filePath("default.log");
        const auto r = run(sweep_args("default.csv"), host("Fake H200,Fake H200", log));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        // One worker at a time on device 0 of what it sees, no visibility variable set.
        for (const auto& l : device_log(log)) {
            QCOMPARE(l.visible, std::string("-"));
            QCOMPARE(l.device, std::string("0"));
        }
        QVERIFY(!device_log(log).empty());
        for (const auto& row : rows_of(dir_.filePath("default.csv")))
            if (ran(row)) QCOMPARE(row.device_index, std::string("0"));
        QVERIFY(QFile::exists(dir_.filePath("default.csv.worker.log")));
        QVERIFY(!QFile::exists(dir_.filePath("default.csv.gpu0.worker.log")));
        const auto meta = sidecar("default.csv");
        QCOMPARE(meta["benchmark"]["workers_started"].get<int>(), 1);
        QCOMPARE(meta["devices"].size(), size_t(1));
    }

    void a_crash_on_one_gpu_does_not_stop_the_other() {
        const QString log = dir_.filePath("crash.log"), marker = dir_.filePath("crash.marker");
        auto env = host("Fake H200,Fake H200", log, 5);
        env.insert("GCONV_FAKE_CRASH_DEVICE", "1");
        env.insert("GCONV_FAKE_CRASH_ONCE", marker);
        const auto r = run(sweep_args("crash.csv", "0,1"), env);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        std::ifstream in(marker.toStdString());
        long long cell = -1;
        std::string kernel;
        QVERIFY2(in >> cell >> kernel, "GPU 1 crashed no cell");

        const auto rows = rows_of(dir_.filePath("crash.csv"));
        const QString once = each_cell_once(rows);
        QVERIFY2(once.isEmpty(), qPrintable(once));
        size_t crashes = 0, ok0 = 0, ok1 = 0;
        for (const auto& row : rows) {
            if (row.status == CellStatus::Crash) {
                ++crashes;
                QCOMPARE(row.device_index, std::string("1"));
                QCOMPARE(row.kernel, kernel);
                QVERIFY2(QString::fromStdString(row.error).contains("signal 6"), row.error.c_str());
            }
            if (row.status == CellStatus::Ok) (row.device_index == "0" ? ok0 : ok1) += 1;
        }
        QCOMPARE(crashes, size_t(1));
        QVERIFY(ok0 > 0 && ok1 > 0);
        const auto meta = sidecar("crash.csv");
        QCOMPARE(meta["devices"][0]["workers_started"].get<int>(), 1);
        QCOMPARE(meta["devices"][1]["workers_started"].get<int>(), 2);
        // The crash row quotes GPU 1's log; GPU 0's log has nothing of it.
        QFile log0(dir_.filePath("crash.csv.gpu0.worker.log"));
        QVERIFY(!log0.open(QIODevice::ReadOnly) || !log0.readAll().contains("@crash"));
        QFile log1(dir_.filePath("crash.csv.gpu1.worker.log"));
        QVERIFY(log1.open(QIODevice::ReadOnly) && log1.readAll().contains("@crash"));
    }

    void mixed_models_need_allow_mixed() {
        const QString log = dir_.filePath("mixed.log");
        const auto env = host("Fake H100 PCIe,Fake H100 SXM", log, 5);
        auto r = run(sweep_args("mixed.csv", "all"), env);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("different models") && r.err.contains("0: Fake H100 PCIe") &&
                     r.err.contains("1: Fake H100 SXM") && r.err.contains("--allow-mixed"),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(dir_.filePath("mixed.csv.meta.json")));
        QVERIFY(device_log(log).empty());

        r = run(sweep_args("mixed.csv", "all") << "--allow-mixed", env);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        std::set<std::pair<std::string, std::string>> seen;
        for (const auto& row : rows_of(dir_.filePath("mixed.csv")))
            if (ran(row)) seen.insert({row.device_index, row.device});
        QCOMPARE(seen, (std::set<std::pair<std::string, std::string>>{{"0", "Fake H100 PCIe"},
                                                                      {"1", "Fake H100 SXM"}}));
        QCOMPARE(sidecar("mixed.csv")["devices"][1]["name"].get<std::string>(),
                 std::string("Fake H100 SXM"));

        // Different architectures never share a sweep.
        r = run(sweep_args("arches.csv", "0,1") << "--allow-mixed",
                host("Fake A100@sm_80,Fake H200", log));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("different architectures") && r.err.contains("0: sm_80") &&
                     r.err.contains("1: sm_90a"),
                 qPrintable(r.err));
    }

    void bad_device_lists_are_command_line_errors() {
        const auto env = host("Fake H200,Fake H200", dir_.filePath("bad.log"));
        const std::vector<std::pair<QString, QString>> cases = {
            {"0,,1", "an empty entry in '0,,1'"},
            {"-1", "'-1' in '-1' is not a device index"},
            {"7", "there is no device 7: 2 visible (0: Fake H200, 1: Fake H200"},
            {"0,1,1", "device 1 is listed twice in '0,1,1'"},
            {"one", "'one' in 'one' is not a device index"},
            {"", "no device given"},
        };
        for (const auto& [value, needle] : cases) {
            const auto r = run(sweep_args("bad.csv", value), env);
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("--devices: ") && r.err.contains(needle),
                     qPrintable(value + ": " + r.err));
        }
        auto r = run(sweep_args("bad.csv") << "--allow-mixed", env);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--allow-mixed goes with --devices"), qPrintable(r.err));
        // A host whose worker lists no GPU: not a command-line error, but a clear one.
        auto none = env;
        none.insert("CUDA_VISIBLE_DEVICES", "");
        r = run(sweep_args("bad.csv", "all"), none);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("sees no GPU") && r.err.contains("CUDA_VISIBLE_DEVICES="),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(dir_.filePath("bad.csv")) ||
                rows_of(dir_.filePath("bad.csv")).empty());
    }

    void resume_after_kill_works_across_gpus() {
        const QString out = dir_.filePath("resume.csv");
        const QString log1 = dir_.filePath("resume1.log"), log2 = dir_.filePath("resume2.log");
        const QStringList args = sweep_args("resume.csv", "0,1");
        QProcess p;
        p.setProcessEnvironment(host("Fake H200,Fake H200", log1, 40));
        p.start(gconv::test::tool_path("gconv-bench"), args);
        QVERIFY(p.waitForStarted());
        // Kill once both GPUs have run a few cells.
        auto gpus_busy = [&] {
            std::map<std::string, size_t> begun;
            for (const auto& l : device_log(log1)) ++begun[l.device];
            return begun.size() == 2 && begun["0"] >= 3 && begun["1"] >= 3;
        };
        for (int i = 0; i < 1000 && !gpus_busy(); ++i) QThread::msleep(10);
        QVERIFY2(gpus_busy(), "both GPUs did not get to work");
        ::kill(pid_t(p.processId()), SIGKILL);
        QVERIFY(p.waitForFinished());
        QThread::msleep(200); // the workers die with their parent (PDEATHSIG)
        std::set<std::string> first;
        size_t ran_first = 0;
        for (const auto& r : rows_of(out)) {
            first.insert(r.content_key);
            ran_first += ran(r);
        }
        QVERIFY2(ran_first >= 4 && first.size() < k_cells,
                 qPrintable(QString("%1 rows, %2 ran").arg(first.size()).arg(ran_first)));

        const auto r = run(QStringList(args) << "--resume", host("Fake H200,Fake H200", log2));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto rows = rows_of(out);
        const QString once = each_cell_once(rows);
        QVERIFY2(once.isEmpty(), qPrintable(once));
        // The second run's workers ran only cells without a row, on both GPUs if there were
        // enough left.
        size_t ran_after = 0;
        for (const auto& row : rows)
            if (!first.count(row.content_key) && ran(row)) ++ran_after;
        QCOMPARE(device_log(log2).size(), ran_after);
    }

    void sigterm_stops_every_gpu_and_resume_completes() {
        const QString out = dir_.filePath("term.csv");
        const QString log = dir_.filePath("term.log");
        QStringList args = sweep_args("term.csv", "all");
        QProcess p;
        p.setProcessEnvironment(host("Fake H200,Fake H200", log, 100));
        p.start(gconv::test::tool_path("gconv-bench"), args);
        QVERIFY(p.waitForStarted());
        for (int i = 0; i < 600 && device_log(log).size() < 8; ++i) QThread::msleep(20);
        QElapsedTimer stop;
        stop.start();
        ::kill(pid_t(p.processId()), SIGTERM);
        QVERIFY(p.waitForFinished(10000));
        QVERIFY2(stop.elapsed() < 3000, qPrintable(QString::number(stop.elapsed())));
        QCOMPARE(p.exitCode(), 128 + SIGTERM);
        const auto rows = rows_of(out);
        std::set<std::string> keys;
        size_t measured = 0;
        for (const auto& r : rows) {
            QVERIFY(keys.insert(r.content_key).second);
            QVERIFY(r.status != CellStatus::Crash && r.status != CellStatus::Timeout);
            measured += ran(r);
        }
        // At most one cell in flight per GPU lost its row.
        const size_t begun = device_log(log).size();
        QVERIFY2(measured <= begun && measured + 2 >= begun,
                 qPrintable(QString("%1 begun, %2 rows").arg(begun).arg(measured)));
        QCOMPARE(sidecar("term.csv")["state"].get<std::string>(), std::string("stopped"));

        const auto r = run(QStringList(args) << "--resume",
                           host("Fake H200,Fake H200", dir_.filePath("term2.log")));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QString once = each_cell_once(rows_of(out));
        QVERIFY2(once.isEmpty(), qPrintable(once));
    }

    // Cells that sleep 60 ms each: two GPUs need clearly less time than one (ideally half;
    // the bound leaves room for a loaded machine). Sleeping workers need no CPU, so a busy
    // machine slows both runs alike.
    void two_gpus_take_clearly_less_time_than_one() {
        const int delay_ms = 60;
        const auto [one, cells] = benchmark_phase("0", delay_ms);
        const auto [two, cells_two] = benchmark_phase("0,1", delay_ms);
        QCOMPARE(cells_two, cells);
        QVERIFY2(cells > 20 && one > double(cells) * delay_ms / 1e3,
                 qPrintable(QString("%1 cells in %2 s").arg(cells).arg(one)));
        QVERIFY2(two < 0.8 * one, qPrintable(QString("one GPU %1 s, two %2 s").arg(one).arg(two)));
        qInfo("benchmark phase of %zu cells of %d ms: one GPU %.2f s, two %.2f s (%.2fx)", cells,
              delay_ms, one, two, two / one);
    }
};

QTEST_APPLESS_MAIN(TestBenchDevices)
#include "tst_bench_devices.moc"
