// gconv-bench: the full sweep. Enumerate a kernel pool, compile it in parallel through the
// cache (the process never touches the GPU), then benchmark every kernel on every problem in
// isolated gconv-worker processes, writing one CSV row per cell as it finishes.
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"
#include "codegen/launch_sequence.h"
#include "config/arch_spec.h"
#include "config/config_filter.h"
#include "config/config_json.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "csv/csv_reader.h"
#include "csv/csv_writer.h"
#include "filter/filter_error.h"
#include "jit/compiler.h"
#include "jit/kernel_build.h"
#include "merge_command.h"
#include "problem/problem_json.h"
#include "problem/registry.h"
#include "sweep/bench_runner.h"
#include "sweep/early_workers.h"
#include "sweep/progress_reporter.h"
#include "sweep/shard.h"
#include "sweep_devices.h"
#include "util/build_info.h"
#include "util/cli_args.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/sha256.h"
#include "worker_query.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <thread>

namespace {

using namespace gconv;
namespace fs = std::filesystem;

CliArgs make_cli() {
    const std::string cores = std::to_string(std::max(1u, std::thread::hardware_concurrency()));
    return CliArgs(
        "gconv-bench",
        "--variant forward|bwd_data|bwd_weight --problems KEY[,KEY...] --output FILE.csv "
        "[options]\n"
        "       gconv-bench merge A.csv B.csv ... -o OUT.csv [--force]   (see gconv-bench merge "
        "--help)",
        {
            {"--variant", "V", "forward, bwd_data or bwd_weight (required)", ""},
            {"--problems", "KEYS",
             "problem-set registry keys, comma-separated (problems/<key>.json)", ""},
            {"--problems-file", "FILE",
             "a problem-set file of your own, instead of or besides --problems; give it again "
             "for more files",
             "", true},
            {"--output", "FILE", "results CSV (required); overwritten unless --resume", ""},
            {"--config", "FILE", "trait config",
             "configs/forward_bf16.json, bwd_data.json or bwd_weight.json by variant"},
            {"--arch", "ARCH",
             "target architecture, or auto to ask the GPU (through a worker process)", "auto"},
            {"--workers", "N", "parallel compiler threads of the build phase", cores},
            {"--filter", "EXPR", "keep kernels for which EXPR holds (docs/filter-language.md)", ""},
            {"--filter-file", "FILE", "one filter expression per line, AND-ed", ""},
            {"--max-kernels", "N", "keep at most the first N kernels of the filtered pool", "all"},
            {"--batch-size", "N", "cells per batch (one problem; the unit a worker is given)",
             "20"},
            {"--batches-per-worker", "N",
             "batches one worker process serves before a fresh one takes over; 1 gives every "
             "batch a fresh process and GPU context (as the tile engine does), 0 no limit "
             "(a worker is replaced only after a crash, hang or sticky GPU error)",
             "0"},
            {"--kernel-timeout", "S",
             "seconds a cell may run before its worker is killed (timeout row)", "30"},
            {"--warmup", "N", "untimed launches per cell", "3"},
            {"--repeat", "N", "timed launches per cell", "10"},
            {"--flush-l2", "", "flush the L2 between timed launches (small problems)", ""},
            {"--launch-hold", "on|off",
             "on: each timed run waits until the host has queued all of it, so the GPU's time "
             "alone is timed (kernels and baseline alike); off: launches timed as they come, "
             "with any host gap between them",
             "on"},
            {"--seed", "N", "seed of the random inputs", "1"},
            {"--baseline", "LIB",
             "time a vendor library on every problem beside the kernels, same data and timing: "
             "none, cudnn (NVIDIA) or miopen (ROCm; GCONV_MIOPEN_EXHAUSTIVE=1 lets its search "
             "tune); fills baseline_ms and speedup",
             "none"},
            {"--ceilings", "",
             "measure the device's copy bandwidth and bf16 matmul rate before the benchmark "
             "phase (gconv-worker --ceilings) into the sidecar's \"ceilings\"; implied by "
             "--baseline other than none",
             ""},
            {"--resume", "",
             "keep the cells already in --output (same kernel, problem, arch, toolchain) and run "
             "the rest",
             ""},
            {"--build-only", "", "stop after the build phase", ""},
            {"--all-entries", "",
             "build every optional entry of each module (default: those the cells launch)", ""},
            {"--shard", "I/N",
             "run only shard I of N (1 <= I <= N): a cell belongs to shard 1 + hash(kernel name, "
             "problem key) mod N, whatever the pool's order or which kernels compile, so N hosts "
             "given 1/N..N/N cover every cell once; only the shard's kernels are built; join the "
             "CSVs with gconv-bench merge",
             "1/1"},
            {"--devices", "LIST",
             "the GPUs to run on: all (every visible one) or indices such as 0,1 (as the "
             "platform numbers what gconv-bench sees); each GPU runs its workers one at a time "
             "(given only that GPU through CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES), an idle "
             "GPU takes the next batch, all write one CSV whose device_index column names the "
             "GPU; GPUs of different models are refused unless --allow-mixed",
             "device 0 of those visible"},
            {"--allow-mixed", "",
             "with --devices: run on GPUs of different models (of one architecture) anyway", ""},
            {"--progress", "MODE",
             "bar (a terminal progress bar), jsonl (one JSON event per line on stdout) or none",
             "bar"},
            {"--csv-schema", "FORM",
             "full (gconv's columns) or seed (exactly the seed README's columns)", "full"},
            {"--worker", "PATH", "worker executable", "gconv-worker next to gconv-bench"},
            {"--cache-dir", "DIR", "kernel cache",
             "$GCONV_CACHE_DIR or $XDG_CACHE_HOME/gconv/kernels"},
            {"--help", "", "show this help", ""},
        });
}

const char* k_details = "Phases: build (enumerate, filter, compile in parallel through the cache; "
                        "compile failures become\n"
                        "compile_error rows) and benchmark (batches of cells of one problem per "
                        "gconv-worker process, one at a\n"
                        "time per GPU; a crash marks only the cell in flight, a hang past "
                        "--kernel-timeout is killed and\n"
                        "marked timeout; with --devices each GPU runs its own workers and an idle "
                        "GPU takes the next batch\n"
                        "of one queue, docs/scale-out.md). Every row is flushed as written; the "
                        "workers' stderr goes to\n"
                        "FILE.csv.worker.log (FILE.csv.gpu<I>.worker.log per GPU with several "
                        "--devices) and provenance to\n"
                        "FILE.csv.meta.json.\n\n"
                        "exit status: 0 sweep finished (failed cells are rows, not errors), 1 bad "
                        "input or a failed phase,\n"
                        "2 bad command line, 128 + signal (130 SIGINT, 143 SIGTERM) stopped: the "
                        "rows written stay in the CSV\n"
                        "and --resume runs the rest (a second signal ends it at once).\n";

// SIGTERM / SIGINT ask for a clean stop: the build hands out no new kernel, the benchmark phase
// kills the worker in flight (its cell gets no row, so --resume re-runs it) and the sweep ends
// with every finished row on disk, the sidecar saying "stopped" and exit status 128 + signal.
// A second signal ends the process at once.
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_stop_signal = 0;
static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag is set in a signal handler");

extern "C" void on_stop_signal(int signal) {
    if (g_stop.load()) {
        std::signal(signal, SIG_DFL);
        std::raise(signal);
        return;
    }
    g_stop_signal = signal;
    g_stop.store(true);
}

void install_stop_handlers() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART; // poll() still returns early; blocking reads elsewhere resume
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
}

fs::path self_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path() : exe.parent_path();
}

// The sidecar's "ceilings": what the share-of-ceiling columns of bench/report.py divide by,
// measured on this run's device by a short worker of its own before the benchmark phase (so
// the sweep's workers stay as they are, and the GPU is idle while it is measured).
nlohmann::json measure_ceilings(const std::string& worker, const SweepDevices& devices) {
    const nlohmann::json c =
        ask_worker(worker, {"--ceilings", "--device", std::to_string(devices.worker_device(0))},
                   devices.environment(0));
    nlohmann::json out = {{"copy_gbps", c.value("copy_gbps", nlohmann::json())},
                          {"matmul_bf16_tflops", c.value("matmul_bf16_tflops", nlohmann::json())},
                          {"how", c.value("how", "")}};
    for (const char* key : {"copy_kernel_gbps", "memcpy_gbps", "copy_bytes", "launch_floor_ms",
                            "matmul_library", "notes", "device"})
        if (c.contains(key)) out[key] = c[key];
    return out;
}

// Per GPU of the benchmark phase: what the summary event and the sidecar's "benchmark" say.
nlohmann::json slot_summaries(const BenchSummary& s) {
    nlohmann::json out = nlohmann::json::array();
    for (const BenchSlotSummary& slot : s.gpus)
        out.push_back({{"device", slot.device_index},
                       {"batches", slot.batches},
                       {"rows_written", slot.rows_written},
                       {"cells_measured", slot.cells_measured},
                       {"workers_started", slot.workers_started},
                       {"busy_s", slot.busy_s}});
    return out;
}

std::string file_hash(const std::string& path) {
    return sha256_hex(read_text_file(path));
}

struct Sweep {
    CliArgs cli = make_cli();
    Variant variant = Variant::Forward;
    std::string output, config_path, arch, worker;
    nlohmann::json device = nlohmann::json::object();
    std::optional<std::vector<int>> wanted_devices; // --devices; nullopt with all
    SweepDevices devices;
    std::unique_ptr<ProgressReporter> progress;
    nlohmann::json provenance;
    ShardSpec shard;
    bool launch_hold = true; // --launch-hold

    int run(int argc, char** argv) {
        if (auto code = cli.parse_or_exit(argc, argv, k_details)) return *code;
        if (!cli.positional().empty())
            return usage("unexpected argument '" + cli.positional()[0] + "'");
        const auto v = cli.get("--variant");
        if (!v) return usage("--variant is required (forward, bwd_data or bwd_weight)");
        const auto parsed = enum_from_string<Variant>(*v);
        if (!parsed)
            return usage("--variant: unknown value '" + *v +
                         "' (allowed: forward, bwd_data, bwd_weight)");
        variant = *parsed;
        if (!cli.has("--output")) return usage("--output FILE.csv is required");
        if (!cli.has("--problems") && !cli.has("--problems-file") && !cli.has("--build-only"))
            return usage("--problems KEY[,KEY...] or --problems-file FILE is required");
        const std::string mode = cli.get_or("--progress", "bar");
        if (mode != "bar" && mode != "jsonl" && mode != "none")
            return usage("--progress takes bar, jsonl or none");
        progress = std::make_unique<ProgressReporter>(mode == "jsonl"  ? ProgressMode::Jsonl
                                                      : mode == "none" ? ProgressMode::None
                                                                       : ProgressMode::Bar);
        const std::string schema = cli.get_or("--csv-schema", "full");
        const std::string baseline = cli.get_or("--baseline", "none");
        if (!is_baseline_choice(baseline))
            return usage("--baseline: unknown value '" + baseline +
                         "' (allowed: none, cudnn, miopen)");
        if (schema != "full" && schema != "seed") return usage("--csv-schema takes full or seed");
        const std::string hold = cli.get_or("--launch-hold", "on");
        if (hold != "on" && hold != "off")
            return usage("--launch-hold: unknown value '" + hold + "' (allowed: on, off)");
        launch_hold = hold == "on";
        if (schema == "seed" && cli.has("--resume"))
            return usage("--resume needs --csv-schema full (it reads content keys)");
        if (auto text = cli.get("--devices")) {
            try {
                wanted_devices = parse_device_indices(*text);
            } catch (const DeviceChoiceError& e) {
                return usage(e.what());
            }
        } else if (cli.has("--allow-mixed")) {
            return usage("--allow-mixed goes with --devices");
        }
        if (auto text = cli.get("--shard")) {
            try {
                shard = parse_shard(*text);
            } catch (const Error& e) {
                return usage(e.what());
            }
            if (!cli.has("--problems") && !cli.has("--problems-file"))
                return usage("--shard splits cells: it needs --problems or --problems-file");
        }
        output = *cli.get("--output");
        worker = cli.get_or("--worker", (self_dir() / "gconv-worker").string());
        return sweep(schema == "seed" ? CsvForm::Seed : CsvForm::Full);
    }

    int usage(const std::string& why) {
        std::cerr << "gconv-bench: " << why << " (see gconv-bench --help)\n";
        return 2;
    }

    std::vector<BenchProblem> load_problems() {
        std::vector<ProblemSet> sets;
        ProblemRegistry registry;
        if (auto keys = cli.get("--problems"))
            for (const auto& key : parse_key_list(*keys)) sets.push_back(registry.load(key));
        for (const auto& file : cli.get_all("--problems-file"))
            sets.push_back(ProblemRegistry::load_file(file));
        std::vector<BenchProblem> problems;
        nlohmann::json hashes = nlohmann::json::object();
        for (const auto& set : sets) {
            if (set.direction != variant)
                progress->message("warning", "problem set " + set.key + " is for " +
                                                 std::string(to_string(set.direction)) +
                                                 ", benchmarked here as " +
                                                 std::string(to_string(variant)));
            hashes[set.key] = file_hash(set.source.string());
            for (std::size_t i = 0; i < set.problems.size(); ++i) {
                BenchProblem p;
                p.problem = set.problems[i];
                p.json = problem_to_json(set.problems[i]);
                p.key = set.problems[i].key();
                p.problem_idx = int64_t(i);
                p.set = set.key;
                problems.push_back(std::move(p));
            }
        }
        provenance["problem_sets"] = hashes;
        return problems;
    }

    std::vector<KernelConfig> load_pool(const ArchSpecs& specs) {
        config_path = cli.get_or("--config", default_config_path(variant));
        const TraitConfig traits = load_trait_config(config_path, variant);
        const KernelPool pool = enumerate_pool(traits, specs.get(arch), specs);
        FilterSet filters;
        if (auto f = cli.get("--filter")) filters.add(*f, FilterOrigin{"--filter", 0});
        if (auto f = cli.get("--filter-file")) filters.add_file(*f);
        std::vector<KernelConfig> kernels = apply_config_filter(pool.kernels, filters);
        const auto max = cli.get_int("--max-kernels", (long long)kernels.size(), 1, 1LL << 40);
        if (std::size_t(max) < kernels.size()) kernels.resize(std::size_t(max));
        provenance["config"] = {{"path", config_path},
                                {"sha256", file_hash(config_path)},
                                {"candidates", pool.candidates},
                                {"legal", pool.kernels.size()},
                                {"selected", kernels.size()}};
        if (kernels.empty())
            throw Error(config_path + ": no kernel left on " + arch +
                        " after the rules and filters");
        // A run allocates and verifies its tensors in one element type.
        for (const KernelConfig& k : kernels)
            if (k.dtype != kernels.front().dtype)
                throw Error(config_path + ": data_type: the pool holds " +
                            std::string(to_string(kernels.front().dtype)) + " and " +
                            std::string(to_string(k.dtype)) +
                            " kernels; a run takes one type (add --filter \"c.dtype == '" +
                            std::string(to_string(kernels.front().dtype)) + "'\")");
        return kernels;
    }

    // Every cell of the plan, or only this shard's; `configs` keeps only the kernels those cells
    // use, so the build compiles nothing another shard needs.
    std::vector<BenchCell> select_shard(std::vector<KernelConfig>& configs,
                                        const std::vector<BenchProblem>& problems) {
        std::vector<BenchCell> cells;
        if (!cli.has("--shard")) {
            for (std::size_t p = 0; p < problems.size(); ++p)
                for (std::size_t k = 0; k < configs.size(); ++k) cells.push_back({k, p});
            return cells;
        }
        std::vector<std::string> names;
        for (const auto& c : configs) names.push_back(kernel_name(c));
        std::vector<std::size_t> new_index(configs.size(), SIZE_MAX);
        std::vector<KernelConfig> used;
        for (std::size_t p = 0; p < problems.size(); ++p)
            for (std::size_t k = 0; k < configs.size(); ++k) {
                if (!cell_in_shard(shard, names[k], problems[p].key)) continue;
                if (new_index[k] == SIZE_MAX) new_index[k] = SIZE_MAX - 1; // used, numbered below
                cells.push_back({k, p});
            }
        for (std::size_t k = 0; k < configs.size(); ++k)
            if (new_index[k] != SIZE_MAX) {
                new_index[k] = used.size();
                used.push_back(configs[k]);
            }
        for (auto& cell : cells) cell.kernel = new_index[cell.kernel];
        provenance["shard"] = {
            {"index", shard.index},   {"count", shard.count},
            {"text", shard.text()},   {"cells", cells.size()},
            {"kernels", used.size()}, {"cells_unsharded", configs.size() * problems.size()}};
        configs = std::move(used);
        return cells;
    }

    void write_provenance(const char* state) {
        provenance["state"] = state;
        provenance["end_time"] = utc_timestamp_now();
        const std::string path = output + ".meta.json";
        std::ofstream out(path + ".tmp");
        out << provenance.dump(2) << "\n";
        out.close();
        std::error_code ec;
        fs::rename(path + ".tmp", path, ec);
    }

    // After a stop request: the sidecar and the summary say so; the CSV keeps what is written.
    int stopped(nlohmann::json summary) {
        const int signal = g_stop_signal ? int(g_stop_signal) : SIGTERM;
        const std::string what = std::string("stopped by ") +
                                 (signal == SIGINT ? "SIGINT" : "SIGTERM") +
                                 "; the rows written are in " + output + ", --resume runs the rest";
        provenance["stopped"] = true;
        provenance["command_line"] = command_line_;
        write_provenance("stopped");
        progress->message("warning", what);
        summary["stopped"] = true;
        progress->summary(summary);
        if (progress->mode() != ProgressMode::Jsonl) std::cerr << "gconv-bench: " << what << "\n";
        return 128 + signal;
    }

    int sweep(CsvForm form) {
        provenance["tool"] = "gconv-bench";
        provenance["version"] = GCONV_VERSION;
        provenance["git_commit"] = git_commit();
        provenance["start_time"] = utc_timestamp_now();
        provenance["variant"] = std::string(to_string(variant));
        provenance["launch_hold"] = launch_hold;
        arch = cli.get_or("--arch", "auto");
        if (arch == "auto" || !cli.has("--build-only")) {
            // The benchmark phase needs the devices' identity even when the arch is given.
            if (cli.has("--devices")) {
                try {
                    devices = listed_devices(worker, wanted_devices, cli.has("--allow-mixed"));
                } catch (const DeviceChoiceError& e) {
                    return usage(e.what());
                }
                device = devices.first();
            } else {
                try {
                    devices = default_device(worker);
                    device = devices.first();
                } catch (const Error& e) {
                    if (arch == "auto") throw;
                    progress->message("warning", e.what());
                }
            }
            if (arch == "auto") arch = device.value("arch", "");
        }
        if (devices.chosen.empty()) devices.chosen.push_back({0, "0", nlohmann::json::object()});
        provenance["device"] = device;
        provenance["arch"] = arch;
        const ArchSpecs& specs = default_arch_specs();
        std::vector<KernelConfig> configs = load_pool(specs);
        const std::string dtype = std::string(to_string(configs.front().dtype));
        provenance["dtype"] = dtype;
        const std::vector<BenchProblem> problems =
            cli.has("--build-only") && !cli.has("--problems") && !cli.has("--problems-file")
                ? std::vector<BenchProblem>{}
                : load_problems();
        const std::vector<BenchCell> cells = select_shard(configs, problems);

        // Probe the output before spending time on the build.
        std::error_code ec;
        if (!cli.has("--resume") || !fs::exists(output, ec)) {
            std::ofstream probe(output, std::ios::app);
            if (!probe) throw Error("cannot write the output " + output);
        }

        // The benchmark phase's workers start now (serving ones), so that their start and GPU
        // context, and the loading of each kernel's code object as it is built, overlap the
        // build; this process still never touches the GPU.
        BenchOptions options;
        options.worker_command = {worker, "--device", std::to_string(devices.worker_device(0))};
        options.worker_log = output + ".worker.log";
        options.gpus = benchmark_slots(devices, output);
        options.batches_per_worker =
            std::size_t(cli.get_int("--batches-per-worker", 0, 0, 1 << 30));
        const int warp_size = specs.get(arch).warp_size;
        const auto shared_optin = std::size_t(specs.get(arch).shared_memory_per_block_optin);
        auto supported = [&](const BenchCell& cell) {
            return is_supported(configs[cell.kernel], problems[cell.problem].problem, warp_size,
                                k_max_piece_elements, shared_optin);
        };
        std::optional<EarlyWorkers> early;
        std::vector<bool> preload_wanted(configs.size(), false); // a cell will run it
        std::vector<WorkerKernel> to_preload;
        if (!cli.has("--build-only") && options.batches_per_worker != 1 && !cells.empty()) {
            for (const BenchCell& cell : cells)
                if (!preload_wanted[cell.kernel] && supported(cell).ok)
                    preload_wanted[cell.kernel] = true;
            early.emplace(options);
        }
        // Each module holds the optional entries its cells launch (all of them without cells).
        std::vector<ModuleEntries> entries;
        if (!cells.empty() && !cli.has("--all-entries")) {
            entries.assign(configs.size(), ModuleEntries{false, {}});
            for (const BenchCell& cell : cells)
                note_entries(configs[cell.kernel], problems[cell.problem].problem,
                             entries[cell.kernel]);
        }
        // Preloads go in small groups, so a worker loads while the build goes on.
        auto send_preloads = [&] {
            early->preload(to_preload);
            to_preload.clear();
        };

        // Build phase.
        const jit::KernelCache cache(cli.has("--cache-dir") ? fs::path(*cli.get("--cache-dir"))
                                                            : jit::KernelCache::default_root());
        progress->phase("build", configs.size());
        const int workers = int(
            cli.get_int("--workers", std::max(1u, std::thread::hardware_concurrency()), 1, 4096));
        jit::KernelBuilt on_built;
        if (early)
            on_built = [&](std::size_t i, const fs::path& code_object) {
                if (!preload_wanted[i]) return;
                to_preload.push_back({int64_t(i), kernel_name(configs[i]), code_object.string(),
                                      std::string(kernel_entry_name()),
                                      config_to_json(configs[i])});
                if (to_preload.size() >= 8) send_preloads();
            };
        const jit::KernelBuildResult built = jit::build_kernels(
            configs, arch, cache, workers,
            [&](const jit::BuildProgress& p) {
                progress->item({{"kernel", kernel_name(configs[p.index])},
                                {"status", jit::to_string(p.status)},
                                {"seconds", p.seconds},
                                {"log", p.log_head}},
                               p.status == jit::BuildStatus::failed);
            },
            &g_stop, on_built, entries.empty() ? nullptr : &entries);
        if (early) send_preloads();
        provenance["toolchain"] = built.toolchain;
        provenance["build"] = {{"compiled", built.stats.compiled},
                               {"cached", built.stats.cached},
                               {"failed", built.stats.failed},
                               {"wall_s", built.stats.wall_seconds}};
        const std::string build_line =
            "build: " + std::to_string(built.stats.compiled) + " compiled, " +
            std::to_string(built.stats.cached) + " cached, " + std::to_string(built.stats.failed) +
            " failed in " + std::to_string(built.stats.wall_seconds) + " s";
        progress->message("info", build_line);
        if (progress->mode() == ProgressMode::None) std::cerr << build_line << "\n";
        if (g_stop.load()) return stopped(provenance["build"]);
        if (cli.has("--build-only")) {
            progress->summary(provenance["build"]);
            return built.stats.failed ? 1 : 0;
        }

        // Benchmark phase.
        BenchPlan plan;
        plan.variant = std::string(to_string(variant));
        plan.dtype = dtype;
        plan.arch = arch;
        plan.device = devices_label(devices);
        plan.toolchain = built.toolchain;
        plan.warmup = int(cli.get_int("--warmup", 3, 0, 10000));
        plan.repeat = int(cli.get_int("--repeat", 10, 1, 100000));
        plan.flush_l2 = cli.has("--flush-l2");
        plan.launch_hold = launch_hold;
        plan.seed = uint64_t(cli.get_int("--seed", 1, 0, 1LL << 62));
        plan.baseline = cli.get_or("--baseline", "none");
        for (std::size_t i = 0; i < configs.size(); ++i) {
            BenchKernel k;
            k.name = built.kernels[i].name;
            k.code_object = built.kernels[i].code_object.string();
            k.entry = std::string(kernel_entry_name());
            k.config = config_to_json(configs[i]);
            if (!built.kernels[i].ok)
                k.compile_error = "compile error: " + built.kernels[i].log_head;
            plan.kernels.push_back(std::move(k));
        }
        plan.problems = problems;
        plan.cells = cells;

        provenance["devices"] = devices_provenance(devices, options.gpus);
        options.batch_size = std::size_t(cli.get_int("--batch-size", 20, 1, 1 << 20));
        options.early = early ? &*early : nullptr;
        options.kernel_timeout_s = cli.get_double("--kernel-timeout", 30.0, 0.01, 1e6);
        options.stop = &g_stop;
        // With a baseline, one unsupported cell per problem still goes to the worker, which
        // times the baseline on it and reports the cell unsupported itself: shapes no kernel
        // runs get their vendor figure too.
        options.unsupported = [&, baselined = std::set<std::size_t>()](
                                  const BenchPlan&,
                                  const BenchCell& cell) mutable -> std::optional<std::string> {
            const SupportCheck s = supported(cell);
            if (s.ok) return std::nullopt;
            if (plan.baseline != "none" && baselined.insert(cell.problem).second)
                return std::nullopt;
            return s.reason;
        };

        CsvWriterOptions writer_options;
        writer_options.form = form;
        writer_options.three_d = !problems.empty() && problems.front().problem.ndim_spatial == 3;
        if (cli.has("--resume") && fs::exists(output, ec) && fs::file_size(output, ec) > 0) {
            const CsvReadResult previous = read_results_csv(output);
            for (const auto& w : previous.warnings) progress->message("warning", w);
            const auto* keys = previous.table.column("content_key");
            if (!keys)
                throw Error(
                    output +
                    ": --resume needs a CSV written by gconv-bench (it has no content_key column)");
            for (std::size_t r = 0; r < previous.table.rows(); ++r)
                options.done_keys.insert(std::string(keys->text(r)));
            writer_options.keep_bytes = previous.valid_bytes;
            writer_options.append = true;
            progress->message("info", "resume: " + std::to_string(options.done_keys.size()) +
                                          " cells already in " + output);
        }
        if (cli.has("--ceilings") || plan.baseline != "none") {
            // The GPU to itself: the early workers' loads are done first.
            if (early) early->settle(std::chrono::steady_clock::now() + std::chrono::seconds(60));
            try {
                provenance["ceilings"] = measure_ceilings(worker, devices);
            } catch (const Error& e) {
                progress->message("warning", e.what());
                provenance["ceilings"] = {{"copy_gbps", nullptr},
                                          {"matmul_bf16_tflops", nullptr},
                                          {"how", std::string("not measured: ") + e.what()}};
            }
        }
        provenance["command_line"] = command_line_;
        write_provenance("running");
        CsvWriter writer(output, writer_options);
        progress->phase("benchmark", plan.cells.size());
        CsvResultSink sink(writer, [&](const BenchProgress& p) {
            progress->item(cell_event_details(p.last), p.last && counts_as_failure(*p.last));
        });
        const BenchSummary s = run_benchmarks(plan, options, sink);
        writer.close();
        nlohmann::json statuses = nlohmann::json::object();
        for (const auto& [status, count] : s.by_status)
            statuses[std::string(to_string(status))] = count;
        provenance["benchmark"] = {{"cells", s.cells_total},
                                   {"resumed", s.skipped_done},
                                   {"rows_written", s.rows_written},
                                   {"by_status", statuses},
                                   {"batches", s.batches},
                                   {"workers_started", s.workers_started},
                                   {"wall_s", s.wall_s},
                                   {"gpu_busy_share", s.gpu_busy_share},
                                   {"gpu_work_share", s.gpu_work_share},
                                   {"timed_gpu_s", s.timed_gpu_s},
                                   {"gpu_span_s", s.gpu_span_s},
                                   {"kernels_preloaded", s.kernels_preloaded},
                                   {"overhead_per_cell_ms", s.overhead_per_cell_ms},
                                   {"overhead_per_batch_ms", s.overhead_per_batch_ms},
                                   {"in_cell_overhead_ms", s.in_cell_overhead_ms},
                                   {"devices", slot_summaries(s)}};
        provenance["devices"] = devices_provenance(devices, options.gpus, &s);
        for (const auto& w : s.warnings) progress->message("warning", w);
        if (s.stopped) return stopped(provenance["benchmark"]);
        write_provenance("finished");
        progress->summary(provenance["benchmark"]);
        if (progress->mode() != ProgressMode::Jsonl) {
            std::cerr << "benchmark: " << s.rows_written << " rows written, " << s.skipped_done
                      << " resumed;";
            for (const auto& [status, count] : s.by_status)
                std::cerr << " " << to_string(status) << " " << count;
            std::cerr << "\nresults: " << output << "\n";
        }
        return 0;
    }

    std::string command_line_;
};

} // namespace

int main(int argc, char** argv) {
    std::string command_line;
    for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
    if (argc > 1 && std::string(argv[1]) == "merge")
        return run_merge_command(argc - 1, argv + 1, command_line);
    install_stop_handlers();
    Sweep sweep;
    sweep.command_line_ = command_line;
    try {
        return sweep.run(argc, argv);
    } catch (const gconv::FilterError& e) {
        std::cerr << e.what() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "gconv-bench: " << e.what() << "\n";
    }
    if (!sweep.output.empty() && !sweep.provenance.is_null()) sweep.write_provenance("failed");
    return 1;
}
