#include "sweep/worker_protocol.h"
#include "util/error.h"

#include <QtTest>

#include <random>

using namespace gconv;

class TestWorkerProtocol : public QObject {
    Q_OBJECT

    std::mt19937_64 rng{std::random_device{}()};

    int64_t some_id() { return static_cast<int64_t>(rng() % 100000) + 1; }

    WorkerRequest random_request() {
        WorkerRequest r;
        r.variant = "bwd_weight";
        r.dtype = "fp16";
        r.warmup = static_cast<int>(rng() % 5) + 1;
        r.repeat = static_cast<int>(rng() % 50) + 1;
        r.flush_l2 = rng() % 2;
        r.launch_hold = rng() % 2;
        r.seed = rng();
        const char* baselines[] = {"none", "cudnn", "miopen"};
        r.baseline = baselines[rng() % 3];
        const int64_t k = some_id(), p = some_id();
        r.kernels.push_back({k,
                             "kernel_" + std::to_string(k),
                             "/tmp/k.co",
                             "entry_k",
                             {{"tile_m", static_cast<int>(rng() % 256) + 16}}});
        r.problems.push_back({p, {{"N", static_cast<int>(rng() % 64) + 1}, {"C", 64}}});
        for (int c = 0; c < 3; ++c) r.cells.push_back({some_id() * 10 + c, k, p});
        return r;
    }

    void expect_request_error(nlohmann::json document, const QString& needle) {
        try {
            worker_request_from_json(document);
            QFAIL("no error thrown");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains(needle), e.what());
        }
    }

private slots:
    void requestRoundTrip() {
        const WorkerRequest in = random_request();
        const WorkerRequest out = parse_worker_request(to_json(in).dump());
        QCOMPARE(out.variant, in.variant);
        QCOMPARE(out.dtype, in.dtype);
        QCOMPARE(out.warmup, in.warmup);
        QCOMPARE(out.repeat, in.repeat);
        QCOMPARE(out.flush_l2, in.flush_l2);
        QCOMPARE(out.launch_hold, in.launch_hold);
        QCOMPARE(out.seed, in.seed);
        QCOMPARE(out.baseline, in.baseline);
        QCOMPARE(out.kernels.size(), size_t{1});
        QCOMPARE(out.kernels[0].name, in.kernels[0].name);
        QCOMPARE(out.kernels[0].config, in.kernels[0].config);
        QCOMPARE(out.problems[0].problem, in.problems[0].problem);
        QCOMPARE(out.cells.size(), in.cells.size());
        for (size_t i = 0; i < in.cells.size(); ++i) QCOMPARE(out.cells[i].cell, in.cells[i].cell);
    }

    void requestIsStrict() {
        auto base = to_json(random_request());
        auto extra = base;
        extra["surprise"] = 1;
        expect_request_error(extra, "unknown key \"surprise\"");
        auto wrong_type = base;
        wrong_type["warmup"] = "3";
        expect_request_error(wrong_type, "request.warmup: expected an integer");
        auto bad_kernel = base;
        bad_kernel["cells"][1]["kernel"] = -5;
        expect_request_error(bad_kernel, "request.cells[1].kernel: no kernel has id -5");
        auto missing = base;
        missing["kernels"][0].erase("entry");
        expect_request_error(missing, "request.kernels[0]: missing \"entry\"");
        auto version = base;
        version["protocol"] = 2;
        expect_request_error(version, "version 2 is not supported");
        QVERIFY_THROWS_EXCEPTION(Error, parse_worker_request("{not json"));
        auto provider = base;
        provider["baseline"] = "mkl";
        expect_request_error(provider, "request.baseline: unknown provider \"mkl\"");
        // Optional: a request without it has no baseline.
        auto without = base;
        without.erase("baseline");
        QCOMPARE(worker_request_from_json(without).baseline, std::string("none"));
        // Optional, held when absent; not a boolean is an error naming it.
        auto unheld = base;
        unheld["launch_hold"] = false;
        QVERIFY(!worker_request_from_json(unheld).launch_hold);
        unheld.erase("launch_hold");
        QVERIFY(worker_request_from_json(unheld).launch_hold);
        unheld["launch_hold"] = "yes";
        expect_request_error(unheld, "request.launch_hold");
    }

    void eventsRoundTrip() {
        WorkerEvent result{WorkerEvent::Kind::Result, some_id(), {}};
        std::uniform_real_distribution<double> u(0.001, 10.0);
        result.result.status = CellStatus::Fail;
        result.result.latency_ms = u(rng);
        result.result.tflops = u(rng);
        result.result.cv = u(rng);
        result.result.verified = false;
        result.result.non_zero = true;
        result.result.baseline_ms = u(rng);
        result.result.gpu_span_ms = u(rng);
        result.result.error = "bad, \"very\" bad\nsecond line";
        const std::string text = format_worker_event(result);
        QVERIFY(text.find('\n') == std::string::npos);
        const WorkerLine back = parse_worker_line(text);
        QVERIFY2(back.event.has_value(), back.error.c_str());
        QCOMPARE(back.event->cell, result.cell);
        QCOMPARE(back.event->result.status, CellStatus::Fail);
        QCOMPARE(back.event->result.latency_ms, result.result.latency_ms);
        QCOMPARE(back.event->result.tflops, result.result.tflops);
        QVERIFY(std::isnan(back.event->result.gbps));
        QCOMPARE(back.event->result.baseline_ms, result.result.baseline_ms);
        QCOMPARE(back.event->result.gpu_span_ms, result.result.gpu_span_ms);
        QCOMPARE(back.event->result.verified, std::optional<bool>(false));
        QCOMPARE(back.event->result.error, result.result.error);

        const WorkerLine begin =
            parse_worker_line(format_worker_event({WorkerEvent::Kind::Begin, 42, {}}));
        QVERIFY(begin.event && begin.event->kind == WorkerEvent::Kind::Begin &&
                begin.event->cell == 42);
        const WorkerLine end = parse_worker_line("{\"event\":\"end\"}");
        QVERIFY(end.event && end.event->kind == WorkerEvent::Kind::End);
    }

    // Workers that predate gpu_span_ms still parse: the span is unknown, not zero.
    void resultWithoutSpanParses() {
        const WorkerLine old = parse_worker_line(
            "{\"event\":\"result\",\"cell\":3,\"status\":\"ok\",\"latency_ms\":0.5}");
        QVERIFY2(old.event.has_value(), old.error.c_str());
        QVERIFY(std::isnan(old.event->result.gpu_span_ms));
        WorkerEvent unknown{WorkerEvent::Kind::Result, 3, {}};
        unknown.result.latency_ms = 0.5;
        QVERIFY(format_worker_event(unknown).find("gpu_span_ms") == std::string::npos);
    }

    void preloadRoundTrip() {
        WorkerPreload in;
        const WorkerRequest r = random_request();
        in.kernels = r.kernels;
        in.kernels.push_back(
            {in.kernels[0].id + 1, "second", "/tmp/second.co", "entry", nlohmann::json::object()});
        const nlohmann::json document = to_json(in);
        QVERIFY(is_preload_request(document));
        QVERIFY(!is_preload_request(to_json(r)));
        const WorkerPreload out = worker_preload_from_json(document);
        QCOMPARE(out.kernels.size(), in.kernels.size());
        for (size_t i = 0; i < in.kernels.size(); ++i) {
            QCOMPARE(out.kernels[i].id, in.kernels[i].id);
            QCOMPARE(out.kernels[i].code_object, in.kernels[i].code_object);
            QCOMPARE(out.kernels[i].entry, in.kernels[i].entry);
            QCOMPARE(out.kernels[i].config, in.kernels[i].config);
        }
        // Strict as a request.
        auto extra = document;
        extra["cells"] = nlohmann::json::array();
        try {
            worker_preload_from_json(extra);
            QFAIL("no error thrown");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("preload: unknown key \"cells\""), e.what());
        }
        auto repeated = document;
        repeated["preload"][1]["id"] = in.kernels[0].id;
        QVERIFY_THROWS_EXCEPTION(Error, worker_preload_from_json(repeated));

        WorkerEvent loaded;
        loaded.kind = WorkerEvent::Kind::Loaded;
        loaded.kernel = some_id();
        const WorkerLine ok = parse_worker_line(format_worker_event(loaded));
        QVERIFY2(ok.event && ok.event->kind == WorkerEvent::Kind::Loaded, ok.error.c_str());
        QCOMPARE(ok.event->kernel, loaded.kernel);
        QVERIFY(ok.event->load_error.empty());
        loaded.load_error = "hipErrorInvalidImage";
        const WorkerLine failed = parse_worker_line(format_worker_event(loaded));
        QVERIFY2(failed.event.has_value(), failed.error.c_str());
        QCOMPARE(failed.event->load_error, loaded.load_error);
    }

    void garbageLinesAreErrors_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("needle");
        QTest::newRow("not json") << "hello from the GPU"
                                  << "not a JSON line";
        QTest::newRow("array") << "[1,2]"
                               << "expected an object";
        QTest::newRow("unknown event") << "{\"event\":\"boom\",\"cell\":1}"
                                       << "unknown event";
        QTest::newRow("cell string") << "{\"event\":\"begin\",\"cell\":\"1\"}"
                                     << "cell: expected an integer";
        QTest::newRow("extra key") << "{\"event\":\"begin\",\"cell\":1,\"x\":2}"
                                   << "unknown key \"x\"";
        QTest::newRow("crash status") << "{\"event\":\"result\",\"cell\":1,\"status\":\"crash\"}"
                                      << "not a status a worker may report";
        QTest::newRow("ok no latency") << "{\"event\":\"result\",\"cell\":1,\"status\":\"ok\"}"
                                       << "needs a positive latency_ms";
        QTest::newRow("latency string")
            << "{\"event\":\"result\",\"cell\":1,\"status\":\"ok\",\"latency_ms\":\"fast\"}"
            << "latency_ms: expected a number";
        QTest::newRow("negative span")
            << "{\"event\":\"result\",\"cell\":1,\"status\":\"ok\",\"latency_ms\":1,"
               "\"gpu_span_ms\":-2}"
            << "gpu_span_ms: must not be negative";
        QTest::newRow("loaded without kernel") << "{\"event\":\"loaded\"}"
                                               << "missing \"kernel\"";
        QTest::newRow("truncated") << "{\"event\":\"result\",\"cell\":1,\"sta"
                                   << "not a JSON line";
    }
    void garbageLinesAreErrors() {
        QFETCH(QString, line);
        QFETCH(QString, needle);
        const WorkerLine parsed = parse_worker_line(line.toStdString());
        QVERIFY(!parsed.event);
        QVERIFY2(QString::fromStdString(parsed.error).contains(needle), parsed.error.c_str());
    }
};

QTEST_APPLESS_MAIN(TestWorkerProtocol)
#include "tst_worker_protocol.moc"
