// The real gconv-worker under faults, driven with hand-made batch requests
// (docs/worker-protocol.md):
// - a kernel compiled here that writes through a wild pointer (an illegal address, which
//   poisons the GPU context): the worker reports that cell (begin, then an error result), runs
//   nothing after it and exits with the sticky-error code; the next batch, in a new worker, runs
//   fine;
// - a problem whose tensors exceed the GPU's memory: each of its cells reports oom, and a small
//   problem of the same batch, before and after it, passes verification;
// - a code object without the worker's entry, prepared while the cell before it is on the GPU:
//   the error is that cell's own result, after its begin, and the cells around it pass.
// Skips without a device or without a built worker.
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"
#include "config/arch_spec.h"
#include "config/config_json.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "gpu/device.h"
#include "jit/cache.h"
#include "jit/compiler.h"
#include "jit/kernel_build.h"
#include "problem/problem_json.h"
#include "sweep/worker_protocol.h"
#include "test_paths.h"

#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <optional>

using namespace gconv;

namespace {

// The worker's kernel signature (one ConvParams by value) and entry name. Every thread writes
// through the output pointer with bit 47 set: above x86-64's user address space, where neither
// a device allocation nor (with HMM) host memory can be mapped, so the store is an illegal
// address.
std::string wild_pointer_source(unsigned salt) {
    return "#include \"gconv_params.h\"\n"
           "extern \"C\" __global__ void " +
           std::string(kernel_entry_name()) +
           "(gconv::ConvParams p) {\n"
           "    const unsigned long long wild = reinterpret_cast<unsigned long long>(p.out) |\n"
           "                                    (1ull << 47);\n"
           "    reinterpret_cast<volatile float*>(wild)[threadIdx.x] = " +
           std::to_string(salt % 1000) + ".0f;\n}\n";
}

struct WorkerRun {
    int exit_code = -1;
    bool finished = false;
    std::vector<WorkerEvent> events;
    QStringList bad_lines;
    QString stderr_text;

    std::optional<WorkerCellResult> result(int64_t cell) const {
        for (const auto& e : events)
            if (e.kind == WorkerEvent::Kind::Result && e.cell == cell) return e.result;
        return std::nullopt;
    }
    // The event kinds in order: "b17 r17 e" (begin, result, end).
    QString trace() const {
        QStringList out;
        for (const auto& e : events)
            out << (e.kind == WorkerEvent::Kind::Begin    ? QString("b%1").arg(e.cell)
                    : e.kind == WorkerEvent::Kind::Result ? QString("r%1").arg(e.cell)
                                                          : QString("e"));
        return out.join(' ');
    }
};

WorkerKernel worker_kernel(int64_t id, const std::string& name, const std::string& code_object,
                           const KernelConfig& config) {
    WorkerKernel k;
    k.id = id;
    k.name = name;
    k.code_object = code_object;
    k.entry = std::string(kernel_entry_name());
    k.config = config_to_json(config);
    return k;
}

WorkerProblem worker_problem(int64_t id, const Problem& p) {
    return {id, problem_to_json(p)};
}

QString status_name(const std::optional<WorkerCellResult>& r) {
    return r ? QString::fromStdString(std::string(to_string(r->status))) : QString("none");
}

} // namespace

class TestWorkerFaults : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    gpu::DeviceInfo info_;
    Problem small_;
    Problem huge_;
    // Forward bf16 kernels (from the shipped pool) that can compute both problems.
    std::vector<KernelConfig> kernels_;
    std::vector<std::string> code_objects_;

    WorkerRequest base_request() const {
        WorkerRequest r;
        r.variant = "forward";
        r.dtype = "bf16";
        r.warmup = 1;
        r.repeat = 3;
        r.seed = QRandomGenerator::global()->generate();
        return r;
    }

    WorkerRun run_worker(const WorkerRequest& request) const {
        WorkerRun run;
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("GCONV_CACHE_DIR", dir_.filePath("cache"));
        p.setProcessEnvironment(env);
        p.start(test::tool_path("gconv-worker"), {});
        if (!p.waitForStarted()) return run;
        p.write(QByteArray::fromStdString(to_json(request).dump()));
        p.closeWriteChannel();
        run.finished = p.waitForFinished(240000);
        if (!run.finished) {
            p.kill();
            p.waitForFinished();
        }
        run.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        run.stderr_text = QString::fromUtf8(p.readAllStandardError());
        for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
            if (line.isEmpty()) continue;
            const WorkerLine parsed = parse_worker_line(line.toStdString());
            if (parsed.event)
                run.events.push_back(*parsed.event);
            else
                run.bad_lines << QString::fromUtf8(line) + " (" +
                                     QString::fromStdString(parsed.error) + ")";
        }
        return run;
    }

private slots:
    void initTestCase() {
        if (gpu::device_count() == 0) QSKIP("no GPU device visible");
        if (!QFile::exists(test::tool_path("gconv-worker"))) QSKIP("gconv-worker is not built");
        QVERIFY(dir_.isValid());
        info_ = gpu::query(0);
        const ArchSpecs& specs = default_arch_specs();
        const auto names = specs.names();
        if (std::find(names.begin(), names.end(), info_.arch) == names.end())
            QSKIP(qPrintable("no arch spec for " + QString::fromStdString(info_.arch)));

        auto* random = QRandomGenerator::global();
        small_.N = 1 + random->bounded(3);
        small_.G = 2, small_.C = 64, small_.K = 64;
        small_.Hi = 9 + random->bounded(8), small_.Wi = 9 + random->bounded(8);
        small_.Y = 3, small_.X = 3, small_.pad_h = 1, small_.pad_w = 1;
        // Input and output are 200 GB each, in bf16: no GPU holds one of them.
        huge_ = small_;
        huge_.N = 250000;
        huge_.C = huge_.K = 128;
        huge_.Hi = huge_.Wi = 56;
        QVERIFY(double(huge_.input_elements()) * 2 > double(info_.memory_bytes));

        const auto pool = enumerate_pool(
            load_trait_config(test::source_path("configs/forward_bf16.json").toStdString()),
            specs.get(info_.arch), specs);
        for (const KernelConfig& c : pool.kernels) {
            if (kernels_.size() == 2) break;
            // Split image: without it the huge problem is unsupported, never allocated.
            if (c.split_image && is_supported(c, small_, info_.warp_size).ok &&
                is_supported(c, huge_, info_.warp_size).ok)
                kernels_.push_back(c);
        }
        QVERIFY2(!kernels_.empty(), "no split-image bf16 kernel supports both problems");
        const jit::KernelCache cache(dir_.filePath("cache").toStdString());
        const auto built = jit::build_kernels(kernels_, info_.arch, cache, 2);
        for (const auto& k : built.kernels) {
            QVERIFY2(k.ok, k.log_head.c_str());
            code_objects_.push_back(k.code_object.string());
        }
        qInfo("kernels: %s", kernel_name(kernels_.front()).c_str());
    }

    void stickyFaultEndsWorkerAfterReportingTheCell() {
        const jit::KernelCache cache(dir_.filePath("cache").toStdString());
        jit::CompileRequest request;
        request.name = "wild_pointer.hip";
        request.source = wild_pointer_source(QRandomGenerator::global()->generate());
        request.headers = jit::embedded_headers();
        request.arch = info_.arch;
        const auto compiled = jit::compile_cached(cache, jit::native_toolchain(), request);
        QVERIFY2(compiled.ok, compiled.log.c_str());
        const QString wild_path = dir_.filePath("wild_pointer.code");
        {
            std::ofstream f(wild_path.toStdString(), std::ios::binary);
            f.write(compiled.code.data(), std::streamsize(compiled.code.size()));
            QVERIFY(f.good());
        }

        // A good cell, the wild one, and a good cell that must never start.
        WorkerRequest batch = base_request();
        batch.kernels = {worker_kernel(1, "wild_pointer", wild_path.toStdString(), kernels_[0]),
                         worker_kernel(2, kernel_name(kernels_[0]), code_objects_[0], kernels_[0])};
        batch.problems = {worker_problem(0, small_)};
        batch.cells = {{10, 2, 0}, {11, 1, 0}, {12, 2, 0}};
        const WorkerRun run = run_worker(batch);
        QVERIFY2(run.finished, qPrintable(run.stderr_text));
        QVERIFY2(run.bad_lines.isEmpty(), qPrintable(run.bad_lines.join('\n')));
        QCOMPARE(run.trace(), QString("b10 r10 b11 r11"));
        QCOMPARE(status_name(run.result(10)), QString("ok"));
        const auto wild = run.result(11);
        QCOMPARE(status_name(wild), QString("error"));
        qInfo("wild-pointer cell: %s", wild->error.c_str());
        QVERIFY2(QString::fromStdString(wild->error).contains("illegal", Qt::CaseInsensitive),
                 wild->error.c_str());
        QCOMPARE(run.exit_code, k_worker_exit_sticky);

        // A new worker (a new context) runs the rest of the batch.
        WorkerRequest rest = batch;
        rest.cells = {{12, 2, 0}};
        const WorkerRun next = run_worker(rest);
        QCOMPARE(next.trace(), QString("b12 r12 e"));
        const auto good = next.result(12);
        QCOMPARE(status_name(good), QString("ok"));
        QVERIFY(good->verified.value_or(false));
        QVERIFY(good->latency_ms > 0);
        QCOMPARE(next.exit_code, k_worker_exit_ok);
    }

    void outOfMemoryIsReportedPerCellAndTheBatchGoesOn() {
        const std::size_t second = kernels_.size() > 1 ? 1 : 0;
        WorkerRequest batch = base_request();
        batch.kernels = {worker_kernel(1, kernel_name(kernels_[0]), code_objects_[0], kernels_[0]),
                         // A second id for the same artifact when the pool offers one kernel only.
                         worker_kernel(2, kernel_name(kernels_[second]) + (second ? "" : "#2"),
                                       code_objects_[second], kernels_[second])};
        batch.problems = {worker_problem(0, small_), worker_problem(1, huge_)};
        batch.cells = {{20, 1, 0}, {21, 1, 1}, {22, 2, 1}, {23, 2, 0}};
        const WorkerRun run = run_worker(batch);
        QVERIFY2(run.finished, qPrintable(run.stderr_text));
        QVERIFY2(run.bad_lines.isEmpty(), qPrintable(run.bad_lines.join('\n')));
        QCOMPARE(run.trace(), QString("b20 r20 b21 r21 b22 r22 b23 r23 e"));
        for (int64_t cell : {21, 22}) {
            const auto r = run.result(cell);
            QCOMPARE(status_name(r), QString("oom"));
            QVERIFY(!r->error.empty());
            qInfo("cell %lld: %s", static_cast<long long>(cell), r->error.c_str());
        }
        for (int64_t cell : {20, 23}) {
            const auto r = run.result(cell);
            QCOMPARE(status_name(r), QString("ok"));
            QVERIFY(r->verified.value_or(false));
            QVERIFY(r->non_zero.value_or(false));
        }
        QCOMPARE(run.exit_code, k_worker_exit_ok);
    }

    // The worker loads the next cell's code object while the current cell's launches run
    // (docs/worker-protocol.md, "Order of work inside a batch"); a load that fails must still
    // land on the cell it belongs to, not on the one in flight. The code object loads but has
    // no entry of the worker's name.
    void codeObjectWithoutTheEntryIsItsOwnCellsError() {
        const jit::KernelCache cache(dir_.filePath("cache").toStdString());
        jit::CompileRequest request;
        request.name = "no_entry.hip";
        request.source = "extern \"C\" __global__ void gconv_not_the_entry_" +
                         std::to_string(QRandomGenerator::global()->generate()) + "() {}\n";
        request.arch = info_.arch;
        const auto compiled = jit::compile_cached(cache, jit::native_toolchain(), request);
        QVERIFY2(compiled.ok, compiled.log.c_str());
        const QString no_entry_path = dir_.filePath("no_entry.code");
        {
            std::ofstream f(no_entry_path.toStdString(), std::ios::binary);
            f.write(compiled.code.data(), std::streamsize(compiled.code.size()));
            QVERIFY(f.good());
        }
        WorkerRequest batch = base_request();
        batch.kernels = {worker_kernel(1, kernel_name(kernels_[0]), code_objects_[0], kernels_[0]),
                         worker_kernel(2, "no_entry", no_entry_path.toStdString(), kernels_[0])};
        batch.problems = {worker_problem(0, small_)};
        batch.cells = {{30, 1, 0}, {31, 2, 0}, {32, 1, 0}};
        const WorkerRun run = run_worker(batch);
        QVERIFY2(run.finished, qPrintable(run.stderr_text));
        QVERIFY2(run.bad_lines.isEmpty(), qPrintable(run.bad_lines.join('\n')));
        QCOMPARE(run.trace(), QString("b30 r30 b31 r31 b32 r32 e"));
        const auto bad = run.result(31);
        QCOMPARE(status_name(bad), QString("error"));
        qInfo("cell 31: %s", bad->error.c_str());
        QVERIFY2(QString::fromStdString(bad->error).contains("hipModuleGetFunction"),
                 bad->error.c_str());
        for (int64_t cell : {30, 32}) {
            const auto r = run.result(cell);
            QCOMPARE(status_name(r), QString("ok"));
            QVERIFY(r->verified.value_or(false));
        }
        QCOMPARE(run.exit_code, k_worker_exit_ok);
        // The worker log accounts for its host time; the failed load does not count as loaded.
        QVERIFY2(run.stderr_text.contains("host time split: cells=3 requests=1 "),
                 qPrintable(run.stderr_text));
        QVERIFY2(run.stderr_text.contains(" code_objects_loaded=1 "), qPrintable(run.stderr_text));
    }
};

QTEST_APPLESS_MAIN(TestWorkerFaults)
#include "tst_worker_faults.moc"
