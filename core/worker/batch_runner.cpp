#include "worker/batch_runner.h"

#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"
#include "codegen/launch_sequence.h"
#include "config/config_json.h"
#include "gpu/buffer.h"
#include "gpu/context.h"
#include "gpu/device.h"
#include "gpu/hip_check.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "jit/cache.h"
#include "jit/compiler.h"
#include "problem/problem_json.h"
#include "sweep/cell_pipeline.h"
#include "sweep/measurement.h"
#include "util/error.h"
#include "util/json_file.h"
#include "worker/baseline.h"
#include "worker/kernel_launch.h"
#include "worker/launch_timer.h"
#include "worker/stream_hold.h"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

namespace gconv::worker {
namespace {

using gpu::DeviceBuffer;
using gpu::GpuError;

// Which tensor a direction computes, and which it reads.
enum class Tensor { In, Wei, Out };
Tensor result_tensor(Variant v) {
    return v == Variant::Forward ? Tensor::Out : v == Variant::BwdData ? Tensor::In : Tensor::Wei;
}
std::string_view reference_entry_for(Variant v) {
    return v == Variant::Forward   ? reference_entry::forward
           : v == Variant::BwdData ? reference_entry::bwd_data
                                   : reference_entry::bwd_weight;
}

struct ReferenceKernels {
    gpu::Module module;
    gpu::Kernel compute, fill_random, fill_poison, verify, abs_max;
};

ReferenceKernels load_reference(DataType dtype, Variant variant, const std::string& arch,
                                const jit::KernelCache& cache) {
    jit::CompileRequest request;
    request.name = "gconv_reference.hip";
    request.source = generate_reference_source(dtype);
    request.headers = jit::embedded_headers();
    request.arch = arch;
    const jit::CompileResult compiled =
        jit::compile_cached(cache, jit::native_toolchain(), request);
    if (!compiled.ok) throw Error("the reference kernels did not compile:\n" + compiled.log);
    gpu::Module module(compiled.code);
    auto fn = [&](std::string_view name) { return module.function(std::string(name)); };
    gpu::Kernel compute = fn(reference_entry_for(variant));
    gpu::Kernel fill = fn(reference_entry::fill_random), poison = fn(reference_entry::fill_poison);
    gpu::Kernel verify = fn(reference_entry::verify), abs_max = fn(reference_entry::abs_max);
    return {std::move(module), compute, fill, poison, verify, abs_max};
}

struct LoadedKernel {
    KernelConfig config;
    gpu::Module module;
    gpu::Kernel kernel;
};

std::vector<char> read_code_object(const std::string& path) {
    const std::string text = read_text_file(path);
    return std::vector<char>(text.begin(), text.end());
}

// The tensors of one problem and the fp32 reference of its result tensor, kept on the GPU:
// cells compare against it there.
struct ProblemData {
    Problem problem;
    std::size_t elements[3] = {0, 0, 0}; // In, Wei, Out
    DeviceBuffer tensors[3];
    DeviceBuffer reference; // fp32, the result tensor
    double reference_scale = 0.0;
    Tensor result = Tensor::Out;
    double baseline_ms = k_no_value; // the baseline provider's mean latency, when it ran

    DeviceBuffer& buffer(Tensor t) { return tensors[int(t)]; }
    std::size_t count(Tensor t) const { return elements[int(t)]; }
};

gpu::LaunchConfig grid_stride(std::size_t n, int sm_count, hipStream_t stream) {
    gpu::LaunchConfig c;
    c.block = {256, 1, 1};
    const std::size_t blocks =
        std::min<std::size_t>((n + 255) / 256, std::size_t(std::max(sm_count, 1)) * 32);
    c.grid = {unsigned(std::max<std::size_t>(blocks, 1)), 1, 1};
    c.stream = stream;
    return c;
}

} // namespace

// Everything a worker keeps between the batches it serves: the context, the stream, the
// loaded modules, the reference kernels and the problem now on the GPU (consecutive batches
// of one problem reuse its tensors and reference).
class Session::State {
public:
    explicit State(const BatchOptions& options) : options_(options) {
        gpu::make_context_current(options_.device);
        info_ = gpu::query(options_.device);
        cache_ = std::make_unique<jit::KernelCache>(
            options_.cache_root.empty() ? jit::KernelCache::default_root() : options_.cache_root);
        stream_ = std::make_unique<gpu::Stream>();
        tally_ = DeviceBuffer(4 * sizeof(uint32_t));
        GCONV_HIP_CHECK(hipEventCreate(&span_start_));
    }
    ~State() {
        if (span_start_) (void)hipEventDestroy(span_start_);
    }

    int preload(const WorkerPreload& preload, const EventSink& sink) {
        const auto t0 = Clock::now();
        int code = k_worker_exit_ok;
        for (const WorkerKernel& k : preload.kernels) {
            WorkerEvent loaded;
            loaded.kind = WorkerEvent::Kind::Loaded;
            loaded.kernel = k.id;
            const std::string key = kernel_key(k);
            if (!loaded_.count(key) && !load_failures_.count(key)) {
                try {
                    load_kernel(k, "preload.kernels[id=" + std::to_string(k.id) + "]", true);
                    ++split_.preloaded;
                } catch (const GpuError& e) {
                    load_failures_[key] = e.what();
                    if (e.sticky())
                        code = k_worker_exit_sticky;
                    else
                        (void)hipGetLastError();
                } catch (const std::exception& e) {
                    load_failures_[key] = e.what();
                }
            }
            if (auto failed = load_failures_.find(key); failed != load_failures_.end())
                loaded.load_error = failed->second;
            sink.write(loaded);
            sink.flush();
            if (code != k_worker_exit_ok) break;
        }
        split_.preload_s += seconds(t0, Clock::now());
        return code;
    }

    int run(const WorkerRequest& request, const EventSink& sink) {
        const auto entered = Clock::now();
        if (has_served_) split_.between_requests_s += seconds(left_, entered);
        has_served_ = true;
        ++split_.requests;
        request_ = &request;
        sink_ = &sink;
        variant_ = *enum_from_string<Variant>(request.variant);
        dtype_ = *enum_from_string<DataType>(request.dtype);
        problems_json_.clear();
        kernels_json_.clear();
        parsed_.clear();
        for (const auto& p : request.problems) problems_json_[p.id] = &p;
        for (const auto& k : request.kernels) kernels_json_[k.id] = &k;
        wait_done_.reset();

        bool went_on = false;
        StreamHold::set_enabled(request.launch_hold);
        try {
            if (request.flush_l2 && !flush_.data())
                flush_ = DeviceBuffer(std::max<std::size_t>(info_.l2_bytes * 2, 1 << 20));
            BatchSteps steps(*this);
            went_on = run_cell_pipeline(request.cells.size(), steps);
        } catch (...) {
            sink.flush(); // the results written so far
            left_ = Clock::now();
            throw;
        }
        sink.flush();
        left_ = Clock::now();
        return went_on ? k_worker_exit_ok : k_worker_exit_sticky;
    }

    std::string host_time_split() const {
        const HostTimeSplit& t = split_;
        char line[720];
        std::snprintf(line, sizeof line,
                      "cells=%zu requests=%zu prepare_ms=%.3f code_objects_loaded=%zu "
                      "load_ms=%.3f setup_ms=%.3f queue_ms=%.3f wait_ms=%.3f report_ms=%.3f "
                      "gap_ms=%.3f between_requests_ms=%.3f preloaded=%zu preload_ms=%.3f",
                      t.cells, t.requests, 1e3 * t.prepare_s, t.loaded - t.preloaded,
                      1e3 * (t.load_s - t.preload_load_s), 1e3 * t.setup_s, 1e3 * t.queue_s,
                      1e3 * t.wait_s, 1e3 * t.report_s, 1e3 * t.gap_s, 1e3 * t.between_requests_s,
                      t.preloaded, 1e3 * t.preload_s);
        return line;
    }

private:
    using Clock = std::chrono::steady_clock;
    static double seconds(Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double>(b - a).count();
    }

    // Where the host's time went, summed over every cell this worker ran (host_time_split()).
    struct HostTimeSplit {
        std::size_t cells = 0, requests = 0, loaded = 0;
        std::size_t preloaded = 0;     // of `loaded`, by preload requests
        double prepare_s = 0;          // prepare(): code object loads included
        double load_s = 0;             // reading and loading code objects (preloads included)
        double preload_load_s = 0;     // of it, in preload requests
        double preload_s = 0;          // preload requests, answers included
        double setup_s = 0;            // a problem's tensors and reference (first cell on it)
        double queue_s = 0;            // start() besides the set-up: queueing the launches
        double wait_s = 0;             // blocked on the GPU in finish()
        double report_s = 0;           // finish() besides waiting: the result and its line
        double gap_s = 0;              // a cell's wait ending to the next cell's start()
        double between_requests_s = 0; // one request done to the next one arriving, parsed
    };

    // A cell from prepare() to finish(): what the host made ready, then what was queued.
    struct CellWork {
        const WorkerCell* cell = nullptr;
        LoadedKernel* kernel = nullptr;
        const Problem* sizes = nullptr;
        std::optional<std::string> unsupported; // why the kernel cannot run the problem
        std::optional<KernelLaunch> launch;
        ProblemData* data = nullptr;
        // Decided before any wait: a failure while preparing or queueing, or an unsupported cell.
        std::optional<WorkerCellResult> outcome;
        bool sticky = false; // outcome is a GPU error that leaves the context unusable
    };

    // The pipeline's steps over the request's cells; two CellWork slots, the cell in flight and
    // the one being prepared.
    class BatchSteps final : public CellPipelineSteps {
    public:
        explicit BatchSteps(State& state) : s_(state) {}
        void prepare(std::size_t i) override {
            // After a sticky error in the cell before, this one is never announced: leave the
            // broken context alone.
            if (i > 0 && slot(i - 1).sticky) return;
            CellWork& w = slot(i);
            w = CellWork{};
            w.cell = &s_.request_->cells[i];
            s_.prepare_cell(w);
        }
        void announce(std::size_t i) override {
            s_.emit_begin(slot(i).cell->cell);
            s_.sink_->flush();
        }
        void start(std::size_t i) override { s_.start_cell(slot(i)); }
        bool finish(std::size_t i) override { return s_.finish_cell(slot(i)); }

    private:
        CellWork& slot(std::size_t i) { return work_[i % 2]; }
        State& s_;
        CellWork work_[2];
    };

    void keep_failure(CellWork& w, const GpuError& e) {
        w.outcome = failure(e.out_of_memory() ? CellStatus::Oom : CellStatus::Error, e.what());
        w.sticky = e.sticky();
    }

    // Host work only: nothing is queued on the GPU, so it may run while the cell before is in
    // flight (docs/worker-protocol.md, "Order of work inside a batch"). Loading a code object
    // and looking up its entries is host work; an error doing so is this cell's and is reported
    // after its "begin".
    void prepare_cell(CellWork& w) {
        const auto t0 = Clock::now();
        try {
            w.kernel = &kernel(w.cell->kernel);
            w.sizes = &sizes(w.cell->problem);
            if (auto support = is_supported(w.kernel->config, *w.sizes, info_.warp_size,
                                            k_max_piece_elements, info_.shared_per_block_optin);
                !support.ok)
                w.unsupported = support.reason;
            else
                // One run is the config's whole launch sequence: the zeroing an accumulating
                // kernel needs, the GEMM and a convert kernel (codegen/launch_sequence.h); all of
                // it is timed.
                w.launch.emplace(w.kernel->module,
                                 plan_sequence(w.kernel->config, *w.sizes, info_.warp_size,
                                               info_.shared_per_block_optin));
        } catch (const GpuError& e) {
            keep_failure(w, e);
        } catch (const std::exception& e) {
            w.outcome = failure(CellStatus::Error, e.what());
        }
        split_.prepare_s += seconds(t0, Clock::now());
    }

    // After the cell's "begin": its problem's set-up when it is new, then verification, warm-up
    // and timed launches, all queued; the one wait is in finish_cell().
    void start_cell(CellWork& w) {
        const auto t0 = Clock::now();
        if (wait_done_) split_.gap_s += seconds(*wait_done_, t0);
        wait_done_.reset();
        ++split_.cells;
        if (w.outcome) {
            // A failed call can leave a pending error; drain it so the next cell starts clean.
            if (!w.sticky) (void)hipGetLastError();
            return;
        }
        double setup_s = 0;
        try {
            if (w.unsupported) {
                w.outcome = unsupported_result(w);
            } else {
                const auto s0 = Clock::now();
                w.data = &problem(w.cell->problem);
                setup_s = seconds(s0, Clock::now());
                queue_measurement(w);
            }
        } catch (const GpuError& e) {
            keep_failure(w, e);
            if (!w.sticky) (void)hipGetLastError();
        } catch (const std::exception& e) {
            w.outcome = failure(CellStatus::Error, e.what());
        }
        split_.setup_s += setup_s;
        split_.queue_s += seconds(t0, Clock::now()) - setup_s;
    }

    // Waits for the cell's launches and writes its result (flushed with the next "begin", or
    // when the batch ends). False after a sticky GPU error: the batch stops there.
    bool finish_cell(CellWork& w) {
        const auto t0 = Clock::now();
        WorkerCellResult result;
        bool sticky = w.sticky;
        double wait_s = 0;
        if (w.outcome) {
            result = std::move(*w.outcome);
        } else {
            try {
                result = measured_result(w, wait_s);
            } catch (const GpuError& e) {
                result = failure(e.out_of_memory() ? CellStatus::Oom : CellStatus::Error, e.what());
                sticky = e.sticky();
                if (!sticky) (void)hipGetLastError();
            } catch (const std::exception& e) {
                result = failure(CellStatus::Error, e.what());
            }
        }
        emit_result(w.cell->cell, result);
        const auto t1 = Clock::now();
        wait_done_ = t1;
        split_.wait_s += wait_s;
        split_.report_s += seconds(t0, t1) - wait_s;
        return !sticky;
    }

    static WorkerCellResult failure(CellStatus status, std::string why) {
        WorkerCellResult r;
        r.status = status;
        r.error = std::move(why);
        return r;
    }

    void emit_begin(int64_t cell) {
        WorkerEvent e;
        e.kind = WorkerEvent::Kind::Begin;
        e.cell = cell;
        sink_->write(e);
    }
    void emit_result(int64_t cell, const WorkerCellResult& r) {
        WorkerEvent e;
        e.kind = WorkerEvent::Kind::Result;
        e.cell = cell;
        e.result = r;
        sink_->write(e);
    }

    ReferenceKernels& reference() {
        const std::string key =
            std::string(to_string(dtype_)) + "/" + std::string(to_string(variant_));
        auto& slot = references_[key];
        if (!slot)
            slot = std::make_unique<ReferenceKernels>(
                load_reference(dtype_, variant_, info_.arch, *cache_));
        return *slot;
    }

    void fill(gpu::Kernel& kernel, DeviceBuffer& buffer, std::size_t n, uint64_t seed) {
        gpu::KernelArgs args;
        args.add(buffer.data()).add((long long)n).add((unsigned long long)seed).add(1.0f);
        gpu::launch(kernel, grid_stride(n, info_.sm_count, stream_->get()), args);
    }

    void poison(DeviceBuffer& buffer, std::size_t n) {
        gpu::KernelArgs args;
        args.add(buffer.data()).add((long long)n);
        gpu::launch(reference().fill_poison, grid_stride(n, info_.sm_count, stream_->get()), args);
    }

    // The four counters of gconv_verify.h / the max of gconv_abs_max, after `launch` ran.
    std::array<uint32_t, 4> tally(const std::function<void(gpu::KernelArgs&)>& add_args,
                                  gpu::Kernel& kernel, std::size_t n) {
        GCONV_HIP_CHECK(hipMemsetAsync(tally_.data(), 0, tally_.bytes(), stream_->get()));
        gpu::KernelArgs args;
        add_args(args);
        args.add(tally_.as<unsigned>());
        gpu::launch(kernel, grid_stride(n, info_.sm_count, stream_->get()), args);
        std::array<uint32_t, 4> host{};
        GCONV_HIP_CHECK(hipMemcpyAsync(host.data(), tally_.data(), sizeof host,
                                       hipMemcpyDeviceToHost, stream_->get()));
        stream_->synchronize();
        return host;
    }

    static float as_float(uint32_t bits) {
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }

    // Allocates and fills the tensors of problem `id` and computes its reference, unless the
    // same sizes, direction, type and seed are already on the GPU (from this batch or the one
    // before). Out-of-memory is remembered so its other cells report it without trying again.
    ProblemData& problem(int64_t id) {
        const Problem& p = sizes(id);
        // The fill seeds depend on the id, so it is part of what makes the data the same.
        const std::string key = p.key() + "/" + std::to_string(id) + "/" + request_->variant + "/" +
                                request_->dtype + "/" + std::to_string(request_->seed);
        if (current_ && current_key_ == key) return *current_;
        current_.reset();
        if (auto it = oom_.find(key); it != oom_.end())
            throw GpuError(it->second, hipErrorOutOfMemory, __FILE__, __LINE__);
        auto data = std::make_unique<ProblemData>();
        data->problem = p;
        data->elements[0] = std::size_t(p.input_elements());
        data->elements[1] = std::size_t(p.weight_elements());
        data->elements[2] = std::size_t(p.output_elements());
        data->result = result_tensor(variant_);
        const std::size_t bytes = std::size_t(element_bytes(dtype_));
        try {
            for (int t = 0; t < 3; ++t) data->tensors[t] = DeviceBuffer(data->elements[t] * bytes);
            data->reference = DeviceBuffer(data->count(data->result) * sizeof(float));
        } catch (const GpuError& e) {
            if (e.out_of_memory()) oom_[key] = "allocating the tensors of problem " + p.key();
            throw;
        }
        auto& ref = reference();
        // Every tensor gets random values (the result one too: a kernel that accumulates into
        // stale data must not pass), each from its own seed.
        for (int t = 0; t < 3; ++t)
            fill(ref.fill_random, data->tensors[t], data->elements[t],
                 request_->seed * 3 + uint64_t(t) + uint64_t(id) * 7919);
        ConvParams params =
            make_params(p, data->buffer(Tensor::In).data(), data->buffer(Tensor::Wei).data(),
                        data->buffer(Tensor::Out).data());
        gpu::KernelArgs args;
        args.add(params).add(data->reference.as<float>());
        const std::size_t n = data->count(data->result);
        gpu::launch(ref.compute, grid_stride(n, info_.sm_count, stream_->get()), args);
        const auto scale =
            tally([&](gpu::KernelArgs& a) { a.add(data->reference.as<float>()).add((long long)n); },
                  ref.abs_max, n);
        data->reference_scale = as_float(scale[0]);
        if (request_->baseline != "none") run_baseline(*data);
        current_ = std::move(data);
        current_key_ = key;
        return *current_;
    }

    const Problem& sizes(int64_t id) {
        if (auto it = parsed_.find(id); it != parsed_.end()) return it->second;
        Problem p = problem_from_json(problems_json_.at(id)->problem,
                                      "request.problems[id=" + std::to_string(id) + "]");
        return parsed_.emplace(id, std::move(p)).first->second;
    }

    static std::string kernel_key(const WorkerKernel& k) {
        return k.code_object + "\n" + k.entry + "\n" + k.name;
    }

    // Modules stay loaded for the worker's life: later batches reuse them. A kernel whose
    // preload failed gets the same error here, for each of its cells.
    LoadedKernel& kernel(int64_t id) {
        const WorkerKernel& k = *kernels_json_.at(id);
        const std::string key = kernel_key(k);
        if (auto it = loaded_.find(key); it != loaded_.end()) return *it->second;
        if (auto failed = load_failures_.find(key); failed != load_failures_.end())
            throw Error(failed->second + " (when the worker preloaded it)");
        return load_kernel(k, "request.kernels[id=" + std::to_string(id) + "]", false);
    }

    // `path` names the kernel in messages; `preloading`: the time counts as preload time.
    LoadedKernel& load_kernel(const WorkerKernel& k, const std::string& path, bool preloading) {
        KernelConfig config = config_from_json(k.config, path + ".config");
        const auto t0 = Clock::now();
        gpu::Module module(read_code_object(k.code_object));
        gpu::Kernel fn = module.function(k.entry);
        const double took = seconds(t0, Clock::now());
        split_.load_s += took;
        if (preloading) split_.preload_load_s += took;
        ++split_.loaded;
        auto loaded = std::make_unique<LoadedKernel>(LoadedKernel{config, std::move(module), fn});
        return *loaded_.emplace(kernel_key(k), std::move(loaded)).first->second;
    }

    // The vendor library (cuDNN, MIOpen) on this problem's tensors, timed like a cell and
    // verified against the same reference; diagnostics go to stderr (the worker log), the
    // latency into every cell.
    void run_baseline(ProblemData& data) {
        if (!baseline_tried_) {
            baseline_tried_ = true;
            std::string why;
            baseline_ = load_baseline(request_->baseline, why);
            if (!baseline_)
                std::fprintf(stderr, "gconv-worker: no %s baseline: %s\n",
                             request_->baseline.c_str(), why.c_str());
            else
                std::fprintf(stderr, "gconv-worker: %s loaded for baselines\n",
                             baseline_->description().c_str());
        }
        if (!baseline_) return;
        const BaselineTensors tensors{data.buffer(Tensor::In).data(),
                                      data.buffer(Tensor::Wei).data(),
                                      data.buffer(Tensor::Out).data()};
        // Every candidate the library offers is checked like a kernel: on a poisoned result tensor.
        const BaselineVerifier verify = [&](const std::function<void()>& launch_once) {
            queue_verification(data, launch_once);
            stream_->synchronize();
            const Verification v = verification_result(data);
            BaselineCheck check{v.passed, v.max_rel_err, {}};
            if (!v.passed)
                check.detail = "max_rel_err " + std::to_string(v.max_rel_err) + ", " +
                               std::to_string(v.mismatches) + " off, " +
                               std::to_string(v.nan_count) + " non-finite";
            return check;
        };
        const BaselineResult r =
            baseline_->run(variant_, dtype_, data.problem, tensors, stream_->get(),
                           request_->warmup, request_->repeat, verify);
        const std::string key = data.problem.key();
        const std::string library = baseline_->library();
        for (const std::string& line : r.log)
            std::fprintf(stderr, "gconv-worker: %s baseline for %s: %s\n", library.c_str(),
                         key.c_str(), line.c_str());
        if (!r.ok) {
            std::fprintf(stderr, "gconv-worker: %s baseline for %s: %s\n", library.c_str(),
                         key.c_str(), r.error.c_str());
            return;
        }
        const double ms = summarize_timings(r.launch_ms).mean_ms;
        data.baseline_ms = ms;
        std::fprintf(stderr,
                     "gconv-worker: %s baseline for %s: %.4f ms kept (%s, max_rel_err %.2g)\n",
                     library.c_str(), key.c_str(), ms, r.algorithm.c_str(), r.max_rel_err);
    }

    // Poisons the result tensor, runs the kernel once and queues the check of every element
    // on the GPU, with its tally copied to pinned host memory: nothing waits here, the
    // warm-up and timed launches queue behind it and one synchronisation serves both.
    void queue_verification(ProblemData& data, const std::function<void()>& run_once) {
        poison(data.buffer(data.result), data.count(data.result));
        run_once();
        queue_check(data);
    }

    // Queues the comparison of the result tensor as it stands with the reference.
    void queue_check(ProblemData& data) {
        const std::size_t n = data.count(data.result);
        GCONV_HIP_CHECK(hipMemsetAsync(tally_.data(), 0, tally_.bytes(), stream_->get()));
        gpu::KernelArgs args;
        args.add(static_cast<const void*>(data.buffer(data.result).data()))
            .add(static_cast<const float*>(data.reference.as<float>()))
            .add((long long)n)
            .add(float(verification_limit(dtype_, data.reference_scale)))
            .add(tally_.as<unsigned>());
        gpu::launch(reference().verify, grid_stride(n, info_.sm_count, stream_->get()), args);
        GCONV_HIP_CHECK(hipMemcpyAsync(pinned_tally(), tally_.data(), tally_.bytes(),
                                       hipMemcpyDeviceToHost, stream_->get()));
    }

    // After the stream has been synchronised.
    Verification verification_result(const ProblemData& data) {
        const uint32_t* t = pinned_tally();
        VerificationTally counted;
        counted.max_abs_err = as_float(t[0]);
        counted.non_finite = t[1];
        counted.off = t[2];
        counted.non_zero = t[3];
        return verification_from_tally(counted, data.count(data.result), data.reference_scale);
    }

    uint32_t* pinned_tally() {
        if (!pinned_tally_) {
            void* p = nullptr;
            GCONV_HIP_CHECK(hipHostMalloc(&p, 4 * sizeof(uint32_t), hipHostMallocDefault));
            pinned_tally_.reset(static_cast<uint32_t*>(p));
        }
        return pinned_tally_.get();
    }

    // An unsupported cell still carries its problem's baseline, which may need the problem's
    // set-up on the GPU: hence after the cell's "begin".
    WorkerCellResult unsupported_result(const CellWork& w) {
        WorkerCellResult r = failure(CellStatus::Unsupported, *w.unsupported);
        // The baseline covers every problem of the batch, those no kernel runs included.
        if (request_->baseline != "none") {
            try {
                r.baseline_ms = problem(w.cell->problem).baseline_ms;
            } catch (const GpuError& e) {
                if (!e.out_of_memory()) throw; // too big for a baseline: still unsupported
            }
        }
        return r;
    }

    // Grow-only, so that cells neither allocate nor free device memory in the steady state.
    // Called from start_cell(): the cell before has been waited for, nothing uses the old one.
    void* workspace(std::size_t bytes) {
        if (bytes == 0) return nullptr;
        if (workspace_.bytes() < bytes) {
            workspace_.reset();
            workspace_ = DeviceBuffer(bytes);
        }
        return workspace_.data();
    }

    // Verify first, on a poisoned result tensor, so an element the kernel never writes fails.
    // That launch is the first warm-up launch: it loads the code and the caches alike. Then the
    // remaining warm-ups and the timed launches, all queued behind it without a wait.
    void queue_measurement(CellWork& w) {
        ProblemData& data = *w.data;
        KernelLaunch& launch = *w.launch;
        void* space = workspace(launch.workspace_bytes());
        const LaunchTensors tensors{data.buffer(Tensor::In).data(), data.buffer(Tensor::Wei).data(),
                                    data.buffer(Tensor::Out).data()};
        auto run_once = [&] { launch.run(tensors, space, stream_->get()); };
        // A workspace kept zero (LaunchSequence::workspace_kept_zero) is zeroed once here, the
        // workspace being every cell's; the verified run is then the second, which starts from
        // what the first left, so a run that leaves a sum or ticket set fails verification.
        const bool kept_zero = launch.sequence().workspace_kept_zero;
        if (kept_zero)
            GCONV_HIP_CHECK(hipMemsetAsync(space, 0, launch.workspace_bytes(), stream_->get()));
        // The cell's GPU span starts here and ends with the last timed launch's event.
        GCONV_HIP_CHECK(hipEventRecord(span_start_, stream_->get()));
        if (kept_zero) run_once();
        queue_verification(data, run_once);
        for (int i = kept_zero ? 2 : 1; i < request_->warmup; ++i) run_once();
        const int repeat = std::max(request_->repeat, 1);
        if (!timer_ || timer_repeat_ != repeat) {
            timer_ = std::make_unique<LaunchTimer>(repeat);
            timer_repeat_ = repeat;
        }
        std::function<void()> between;
        if (request_->flush_l2)
            between = [&] {
                GCONV_HIP_CHECK(hipMemsetAsync(flush_.data(), 0, flush_.bytes(), stream_->get()));
            };
        timer_->queue(stream_->get(), run_once, between);
    }

    // The one wait of a cell: the last timed launch's event (the verification tally was copied
    // before the warm-ups, so it is in by then).
    WorkerCellResult measured_result(const CellWork& w, double& wait_s) {
        const ProblemData& data = *w.data;
        const Problem& p = *w.sizes;
        const auto t0 = Clock::now();
        const std::vector<float> launch_ms = timer_->collect();
        wait_s = seconds(t0, Clock::now());
        float span_ms = 0;
        GCONV_HIP_CHECK(hipEventElapsedTime(&span_ms, span_start_, timer_->last_event()));
        const TimingStats stats = summarize_timings(launch_ms);
        const Verification v = verification_result(data);

        WorkerCellResult r;
        r.status = v.passed ? CellStatus::Ok : CellStatus::Fail;
        r.latency_ms = stats.mean_ms;
        r.latency_median_ms = stats.median_ms;
        r.cv = stats.cv;
        r.tflops = p.flops() / (stats.mean_ms * 1e9);
        r.gbps = p.min_bytes(dtype_) / (stats.mean_ms * 1e6);
        r.non_zero = v.non_zero;
        r.max_rel_err = v.max_rel_err;
        r.verified = v.passed;
        r.baseline_ms = data.baseline_ms;
        r.gpu_span_ms = span_ms;
        if (!v.passed) {
            std::ostringstream why;
            why << "verification failed: max_rel_err " << v.max_rel_err << " (tolerance "
                << verification_tolerance(dtype_) << "), " << v.mismatches << " of "
                << data.count(data.result) << " elements off, " << v.nan_count
                << " NaN or unwritten";
            if (v.ref_max_abs <= 0) why << ", the reference is all zeros";
            r.error = why.str();
        }
        return r;
    }

    BatchOptions options_;
    gpu::DeviceInfo info_;
    std::unique_ptr<jit::KernelCache> cache_;
    std::unique_ptr<gpu::Stream> stream_;
    DeviceBuffer flush_;
    DeviceBuffer tally_;
    DeviceBuffer workspace_; // shared by every cell's launch sequence (workspace())
    struct HostFree {
        void operator()(uint32_t* p) const { (void)hipHostFree(p); }
    };
    std::unique_ptr<uint32_t, HostFree> pinned_tally_;
    std::unique_ptr<LaunchTimer> timer_; // its events are reused by every cell
    std::unique_ptr<VendorBaseline> baseline_;
    bool baseline_tried_ = false;
    int timer_repeat_ = 0;
    std::map<std::string, std::unique_ptr<ReferenceKernels>> references_;
    std::map<std::string, std::unique_ptr<LoadedKernel>> loaded_;
    std::map<std::string, std::string> load_failures_; // preloads that failed, by kernel_key()
    hipEvent_t span_start_ = nullptr;                  // recorded before each cell's first launch
    std::unique_ptr<ProblemData> current_;
    std::string current_key_;
    std::map<std::string, std::string> oom_;

    HostTimeSplit split_;
    bool has_served_ = false;
    Clock::time_point left_{};                   // the last request was done
    std::optional<Clock::time_point> wait_done_; // the last cell's finish_cell() ended

    // The request being served.
    const WorkerRequest* request_ = nullptr;
    const EventSink* sink_ = nullptr;
    Variant variant_ = Variant::Forward;
    DataType dtype_ = DataType::BF16;
    std::map<int64_t, const WorkerProblem*> problems_json_;
    std::map<int64_t, const WorkerKernel*> kernels_json_;
    std::map<int64_t, Problem> parsed_;
};

Session::Session(const BatchOptions& options) : state_(std::make_unique<State>(options)) {}
Session::~Session() = default;

int Session::run(const WorkerRequest& request, const EventSink& sink) {
    return state_->run(request, sink);
}

int Session::preload(const WorkerPreload& preload, const EventSink& sink) {
    return state_->preload(preload, sink);
}

std::string Session::host_time_split() const {
    return state_->host_time_split();
}

int run_batch(const WorkerRequest& request, const EventSink& sink, const BatchOptions& options) {
    return Session(options).run(request, sink);
}

} // namespace gconv::worker
