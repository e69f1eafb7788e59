// The order in which a worker takes the cells of a batch (sweep/cell_pipeline.h), against a
// fake GPU that checks the worker's guarantees at every step: a cell touches the GPU only after
// its announcement and while no other cell is in flight, it is announced only after the cell
// before has its result, and the host prepares the next cell while the current one is in flight.
#include "sweep/cell_pipeline.h"

#include <QtTest>

#include <optional>
#include <string>
#include <vector>

using namespace gconv;

namespace {

class FakeGpu final : public CellPipelineSteps {
public:
    explicit FakeGpu(std::size_t count, std::optional<std::size_t> sticky_at = std::nullopt)
        : prepared_(count, false), announced_(count, false), reported_(count, false),
          sticky_at_(sticky_at) {}

    void prepare(std::size_t i) override {
        log("p", i);
        check(!prepared_[i], "prepared twice", i);
        check(!announced_[i], "prepared after its announcement", i);
        // The overlap: the host gets cell i ready while cell i-1 runs, not after it.
        if (i > 0) check(in_flight_ == std::optional<std::size_t>(i - 1), "no overlap", i);
        prepared_[i] = true;
    }
    void announce(std::size_t i) override {
        log("a", i);
        check(prepared_[i], "announced before it was prepared", i);
        check(!in_flight_, "announced while another cell is in flight", i);
        for (std::size_t k = 0; k < i; ++k)
            check(reported_[k], "announced before an earlier cell's result", i);
        announced_[i] = true;
    }
    void start(std::size_t i) override {
        log("s", i);
        check(announced_[i], "on the GPU before its announcement", i);
        check(!in_flight_, "on the GPU beside another cell", i);
        in_flight_ = i;
    }
    bool finish(std::size_t i) override {
        log("f", i);
        check(in_flight_ == std::optional<std::size_t>(i), "finished without being in flight", i);
        in_flight_.reset();
        reported_[i] = true;
        return sticky_at_ != i;
    }

    std::string trace() const { return trace_; }
    std::string violations() const { return violations_; }

private:
    void log(const char* step, std::size_t i) {
        if (!trace_.empty()) trace_ += ' ';
        trace_ += step + std::to_string(i);
    }
    void check(bool ok, const char* what, std::size_t i) {
        if (!ok) violations_ += "cell " + std::to_string(i) + ": " + what + "; ";
    }

    std::vector<bool> prepared_, announced_, reported_;
    std::optional<std::size_t> in_flight_;
    std::optional<std::size_t> sticky_at_;
    std::string trace_, violations_;
};

} // namespace

class TestCellPipeline : public QObject {
    Q_OBJECT

private slots:
    void next_cell_is_prepared_while_the_current_one_runs() {
        FakeGpu gpu(3);
        QVERIFY(run_cell_pipeline(3, gpu));
        QVERIFY2(gpu.violations().empty(), gpu.violations().c_str());
        QCOMPARE(gpu.trace(), std::string("p0 a0 s0 p1 f0 a1 s1 p2 f1 a2 s2 f2"));
    }

    void a_single_cell_has_nothing_to_overlap() {
        FakeGpu gpu(1);
        QVERIFY(run_cell_pipeline(1, gpu));
        QVERIFY2(gpu.violations().empty(), gpu.violations().c_str());
        QCOMPARE(gpu.trace(), std::string("p0 a0 s0 f0"));
    }

    void an_empty_batch_calls_nothing() {
        FakeGpu gpu(0);
        QVERIFY(run_cell_pipeline(0, gpu));
        QCOMPARE(gpu.trace(), std::string());
    }

    // After a sticky error the cell already prepared is dropped: never announced, never on the
    // GPU, and nothing after it is prepared.
    void a_sticky_error_stops_before_the_prepared_cell_is_announced() {
        FakeGpu gpu(4, 1);
        QVERIFY(!run_cell_pipeline(4, gpu));
        QVERIFY2(gpu.violations().empty(), gpu.violations().c_str());
        QCOMPARE(gpu.trace(), std::string("p0 a0 s0 p1 f0 a1 s1 p2 f1"));
    }

    void a_sticky_error_in_the_last_cell_still_reports_it() {
        FakeGpu gpu(2, 1);
        QVERIFY(!run_cell_pipeline(2, gpu));
        QVERIFY2(gpu.violations().empty(), gpu.violations().c_str());
        QCOMPARE(gpu.trace(), std::string("p0 a0 s0 p1 f0 a1 s1 f1"));
    }
};

QTEST_APPLESS_MAIN(TestCellPipeline)
#include "tst_cell_pipeline.moc"
