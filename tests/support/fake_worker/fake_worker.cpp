// gconv-fake-worker: a stand-in for gconv-worker that speaks the real protocol
// (docs/worker-protocol.md) without a GPU, for the orchestrator's tests.
//
// What it does with a cell is chosen by a tag in the kernel's name, or by GCONV_FAKE_SCRIPT,
// a JSON object {"<cell id>": "<tag>"} that wins over the name:
//   (none)    succeed with plausible numbers      @fail     fail verification
//   @crash    abort() after "begin"               @segv     SIGSEGV after "begin"
//   @hang     sleep forever after "begin"         @garbage  a non-JSON line instead of the result
//   @exit     exit 0 before "begin"               @exitmid  exit 1 after "begin"
//   @sticky   an error result, then exit 3        @truncate half a result line, then exit 0
//   @oom      report status oom
//   @loadfail its code object "does not load": the preload answers an error, every cell of it
//             gets status error
//   @preloadcrash  abort() while preloading it (cells of it run normally)
// Preload requests (--serve) are answered per kernel; GCONV_FAKE_PRELOAD_LOG gets
// "<GCONV_FAKE_TAG> preload <kernel>" per kernel preloaded (the same file as GCONV_FAKE_LOG
// shows the order of both).
// Results carry gpu_span_ms = latency_ms x (warmup + repeat) + 0.01 unless GCONV_FAKE_NO_SPAN
// is set (a worker that predates the field).
// GCONV_FAKE_SUPPORT=1: cells the kernel does not support (is_supported) are answered
// unsupported, as the real worker answers them.
// GCONV_FAKE_LOG: a file that gets "<GCONV_FAKE_TAG> <cell> <kernel>" per cell begun.
// GCONV_FAKE_DELAY_MS: time each successful cell takes.
// GCONV_FAKE_REQUEST_LOG: a file that gets "launch_hold <0|1> repeat <n>" per request run.
//
// Devices: GCONV_FAKE_DEVICES="NAME[@ARCH],..." are the GPUs it pretends the host has (ARCH
// defaults to sm_90a); --query and --list-devices answer from it (and fail without it), and,
// as a real runtime does, CUDA_VISIBLE_DEVICES (HIP_VISIBLE_DEVICES with
// GCONV_FAKE_PLATFORM=amd) restricts and renumbers them. A worker's device is the one it would
// run on: entry --device of the visible list.
// GCONV_FAKE_DEVICE_LOG: a file that gets "<device> <visibility value or -> <cell> <kernel>"
// per cell begun. GCONV_FAKE_CRASH_DEVICE=D with GCONV_FAKE_CRASH_ONCE=FILE: the first worker
// on device D to create FILE (which then holds "<cell> <kernel>") aborts after that cell's
// "begin"; every other cell runs normally.
#include "codegen/launch_plan.h"
#include "config/config_json.h"
#include "problem/problem_json.h"
#include "sweep/worker_protocol.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace gconv;

namespace {

void say(const WorkerEvent& event) {
    const std::string line = format_worker_event(event) + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

void say_raw(const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

std::string tag_of(const std::string& kernel, int64_t cell, const nlohmann::json& script) {
    if (script.is_object()) {
        auto found = script.find(std::to_string(cell));
        if (found != script.end() && found->is_string()) return found->get<std::string>();
    }
    const auto at = kernel.find('@');
    return at == std::string::npos ? "" : kernel.substr(at);
}

int64_t field(const nlohmann::json& problem, const char* key, int64_t fallback) {
    auto found = problem.find(key);
    return found != problem.end() && found->is_number_integer() ? found->get<int64_t>() : fallback;
}

double flops_of(const nlohmann::json& p) {
    auto out = [&](const char* in, const char* filt, const char* pad, const char* stride,
                   const char* dil) {
        const int64_t span = field(p, in, 1) + 2 * field(p, pad, 0) -
                             ((field(p, filt, 1) - 1) * field(p, dil, 1) + 1);
        return span < 0 ? 0 : span / field(p, stride, 1) + 1;
    };
    const double spatial = static_cast<double>(out("Di", "Z", "pad_d", "stride_d", "dilation_d") *
                                               out("Hi", "Y", "pad_h", "stride_h", "dilation_h") *
                                               out("Wi", "X", "pad_w", "stride_w", "dilation_w"));
    const double filter =
        static_cast<double>(field(p, "Z", 1) * field(p, "Y", 1) * field(p, "X", 1));
    return 2.0 * field(p, "N", 1) * field(p, "K", 1) * spatial *
           (field(p, "C", 1) / std::max<int64_t>(field(p, "G", 1), 1)) * filter;
}

// Deterministic per cell, different across cells.
double pseudo_random(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return static_cast<double>(x % 1000000) / 1e6;
}

struct FakeDevice {
    int index = 0; // on the host, before any visibility variable
    std::string name, arch;
};

std::vector<std::string> split(const std::string& text, char by) {
    std::vector<std::string> parts;
    size_t from = 0;
    for (;;) {
        const size_t at = text.find(by, from);
        parts.push_back(text.substr(from, at - from));
        if (at == std::string::npos) return parts;
        from = at + 1;
    }
}

const char* visibility_variable() {
    const char* platform = std::getenv("GCONV_FAKE_PLATFORM");
    return platform && std::string(platform) == "amd" ? "HIP_VISIBLE_DEVICES"
                                                      : "CUDA_VISIBLE_DEVICES";
}

// The devices this process sees, in the order it numbers them.
std::vector<FakeDevice> visible_devices() {
    std::vector<FakeDevice> host, visible;
    const char* spec = std::getenv("GCONV_FAKE_DEVICES");
    if (!spec || !*spec) return {};
    for (const std::string& entry : split(spec, ',')) {
        const auto at = entry.find('@');
        host.push_back({int(host.size()), entry.substr(0, at),
                        at == std::string::npos ? "sm_90a" : entry.substr(at + 1)});
    }
    const char* only = std::getenv(visibility_variable());
    if (!only) return host;
    // As CUDA does: the listed devices in the listed order, up to the first bad entry.
    for (const std::string& entry : split(only, ',')) {
        if (entry.empty() || entry.find_first_not_of("0123456789") != std::string::npos) break;
        const size_t i = std::stoul(entry);
        if (i >= host.size()) break;
        visible.push_back(host[i]);
    }
    return visible;
}

nlohmann::json device_json(const FakeDevice& d, int index) {
    char bus[32];
    std::snprintf(bus, sizeof bus, "0000:%02x:00.0", 0x10 + d.index);
    return {{"index", index},       {"name", d.name},          {"arch", d.arch},
            {"pci_bus_id", bus},    {"sm_count", 132},         {"warp_size", 32},
            {"driver", "fake 1.0"}, {"driver_version", 13000}, {"runtime_version", 13000}};
}

int device_argument(int argc, char** argv) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--device") return std::atoi(argv[i + 1]);
    return 0;
}

// --query / --list-devices, answered from GCONV_FAKE_DEVICES.
int answer_device_question(const std::string& question, int device) {
    const std::vector<FakeDevice> devices = visible_devices();
    if (!std::getenv("GCONV_FAKE_DEVICES")) {
        std::fprintf(stderr, "gconv-fake-worker: no GCONV_FAKE_DEVICES, so no device\n");
        return 1;
    }
    if (question == "--list-devices") {
        nlohmann::json list = nlohmann::json::array();
        for (size_t i = 0; i < devices.size(); ++i) list.push_back(device_json(devices[i], int(i)));
        const bool amd = std::string(visibility_variable()) == "HIP_VISIBLE_DEVICES";
        std::printf("%s\n", nlohmann::json{{"platform", amd ? "amd" : "nvidia"},
                                           {"visibility_env", visibility_variable()},
                                           {"devices", list}}
                                .dump()
                                .c_str());
        return 0;
    }
    if (device < 0 || size_t(device) >= devices.size()) {
        std::fprintf(stderr, "gconv-fake-worker: no device %d\n", device);
        return 1;
    }
    std::printf("%s\n", device_json(devices[size_t(device)], device).dump().c_str());
    return 0;
}

// The host index of the device this worker runs on ("-" when it has none).
std::string own_device(int device) {
    const std::vector<FakeDevice> devices = visible_devices();
    if (device < 0 || size_t(device) >= devices.size()) return "-";
    return std::to_string(devices[size_t(device)].index);
}

int g_device = 0; // --device

// GCONV_FAKE_CRASH_DEVICE / GCONV_FAKE_CRASH_ONCE: true for the one cell that is to crash.
bool crash_once_here(int64_t cell, const std::string& kernel) {
    const char* device = std::getenv("GCONV_FAKE_CRASH_DEVICE");
    const char* marker = std::getenv("GCONV_FAKE_CRASH_ONCE");
    if (!device || !marker || own_device(g_device) != device) return false;
    const int fd = ::open(marker, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return false;
    const std::string text = std::to_string(cell) + " " + kernel + "\n";
    (void)!::write(fd, text.data(), text.size());
    ::close(fd);
    return true;
}

// Why the kernel does not support the problem, or "" (also when the test's kernel or problem
// is not a parseable one: the tag-driven tests name kernels freely).
std::string unsupported_reason(const WorkerKernel& kernel, const nlohmann::json& problem) {
    try {
        const SupportCheck s = is_supported(config_from_json(kernel.config, kernel.name),
                                            problem_from_json(problem, "problem"));
        return s.ok ? "" : s.reason;
    } catch (const std::exception&) {
        return "";
    }
}

std::string load_error(const WorkerKernel& kernel) {
    return "fake: the code object of " + kernel.name + " does not load";
}

// Answers a preload: one "loaded" per kernel, then "end".
void run_preload(const WorkerPreload& preload) {
    const char* log_path = std::getenv("GCONV_FAKE_PRELOAD_LOG");
    const char* run_tag = std::getenv("GCONV_FAKE_TAG");
    for (const WorkerKernel& kernel : preload.kernels) {
        const std::string tag = tag_of(kernel.name, -1, nullptr);
        if (log_path) {
            std::ofstream log(log_path, std::ios::app);
            log << (run_tag ? run_tag : "-") << " preload " << kernel.name << '\n';
        }
        if (tag == "@preloadcrash") {
            std::fprintf(stderr, "fake worker: crash while preloading %s\n", kernel.name.c_str());
            std::fflush(stderr);
            std::abort();
        }
        WorkerEvent loaded;
        loaded.kind = WorkerEvent::Kind::Loaded;
        loaded.kernel = kernel.id;
        if (tag == "@loadfail") loaded.load_error = load_error(kernel);
        say(loaded);
    }
    say({WorkerEvent::Kind::End, 0, {}});
}

// Runs one request; returns -1 to go on with the next one (serve mode) or an exit code.
int run_request(const WorkerRequest& request) {
    nlohmann::json script;
    if (const char* text = std::getenv("GCONV_FAKE_SCRIPT"))
        script = nlohmann::json::parse(text, nullptr, false);
    if (const char* path = std::getenv("GCONV_FAKE_REQUEST_LOG"))
        std::ofstream(path, std::ios::app)
            << "launch_hold " << request.launch_hold << " repeat " << request.repeat << "\n";
    const char* log_path = std::getenv("GCONV_FAKE_LOG");
    const char* run_tag = std::getenv("GCONV_FAKE_TAG");
    const bool by_problem = std::getenv("GCONV_FAKE_NOISE") &&
                            std::string(std::getenv("GCONV_FAKE_NOISE")) == "problem";
    const int delay_ms =
        std::getenv("GCONV_FAKE_DELAY_MS") ? std::atoi(std::getenv("GCONV_FAKE_DELAY_MS")) : 0;

    std::map<int64_t, const WorkerKernel*> kernels;
    for (const auto& k : request.kernels) kernels[k.id] = &k;
    std::map<int64_t, const WorkerProblem*> problems;
    for (const auto& p : request.problems) problems[p.id] = &p;

    for (const WorkerCell& cell : request.cells) {
        const WorkerKernel& kernel = *kernels.at(cell.kernel);
        std::string tag = tag_of(kernel.name, cell.cell, script);
        if (tag == "@exit") {
            std::fprintf(stderr, "fake worker: leaving before cell %lld\n", (long long)cell.cell);
            return 0;
        }
        if (log_path) {
            std::ofstream log(log_path, std::ios::app);
            log << (run_tag ? run_tag : "-") << ' ' << cell.cell << ' ' << kernel.name << '\n';
        }
        if (const char* path = std::getenv("GCONV_FAKE_DEVICE_LOG")) {
            const char* visible = std::getenv(visibility_variable());
            std::ofstream log(path, std::ios::app);
            log << own_device(g_device) << ' ' << (visible ? visible : "-") << ' ' << cell.cell
                << ' ' << kernel.name << '\n';
        }
        if (crash_once_here(cell.cell, kernel.name)) tag = "@crash";
        say({WorkerEvent::Kind::Begin, cell.cell, {}});
        if (tag == "@crash" || tag == "@segv" || tag == "@exitmid" || tag == "@hang")
            std::fprintf(stderr, "fake worker: %s on cell %lld\n", tag.c_str(),
                         (long long)cell.cell);
        std::fflush(stderr);
        if (tag == "@crash") std::abort();
        if (tag == "@segv") std::raise(SIGSEGV);
        if (tag == "@exitmid") return 1;
        if (tag == "@hang")
            for (;;) pause();
        if (tag == "@garbage") {
            say_raw("GPU says hello, this is not JSON {\n");
            continue;
        }
        if (tag == "@truncate") {
            say_raw("{\"event\":\"result\",\"cell\":" + std::to_string(cell.cell) + ",\"sta");
            return 0;
        }
        if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));

        WorkerEvent result{WorkerEvent::Kind::Result, cell.cell, {}};
        WorkerCellResult& r = result.result;
        if (tag == "@loadfail") {
            r.status = CellStatus::Error;
            r.error = load_error(kernel);
            say(result);
            continue;
        }
        // GCONV_FAKE_SUPPORT=1, as the real worker: a cell the kernel does not support
        // (gconv-bench sends one per problem when a baseline is asked for) is reported
        // unsupported, with the baseline. Opt-in: the other tests pair kernels and problems
        // freely.
        if (const std::string why =
                std::getenv("GCONV_FAKE_SUPPORT")
                    ? unsupported_reason(kernel, problems.at(cell.problem)->problem)
                    : std::string();
            !why.empty()) {
            r.status = CellStatus::Unsupported;
            r.error = why;
            if (request.baseline == "cudnn") r.baseline_ms = 1.0;
            say(result);
            continue;
        }
        // GCONV_FAKE_NOISE=problem: the numbers depend on the kernel and the problem only, not
        // on the cell's id in the plan (so a sharded sweep measures what the whole one does).
        const uint64_t cell_seed =
            by_problem ? std::hash<std::string>{}(problems.at(cell.problem)->problem.dump())
                       : static_cast<uint64_t>(cell.cell);
        const double noise =
            pseudo_random(cell_seed * 7919u + std::hash<std::string>{}(kernel.name));
        r.latency_ms = 0.02 + 2.0 * noise;
        r.latency_median_ms = r.latency_ms * 0.99;
        r.tflops = flops_of(problems.at(cell.problem)->problem) / (r.latency_ms * 1e9);
        r.gbps = 100.0 + 900.0 * noise;
        r.cv = 0.001 + 0.05 * noise;
        r.non_zero = true;
        r.max_rel_err = 1e-3 * noise;
        r.verified = true;
        // A stand-in for the cuDNN baseline: 1.5x the kernel's latency.
        if (request.baseline == "cudnn") r.baseline_ms = 1.5 * r.latency_ms;
        if (!std::getenv("GCONV_FAKE_NO_SPAN"))
            r.gpu_span_ms = r.latency_ms * (request.warmup + request.repeat) + 0.01;
        if (tag == "@fail") {
            r.status = CellStatus::Fail;
            r.verified = false;
            r.max_rel_err = 0.5 + noise;
            r.error = "max relative error " + std::to_string(r.max_rel_err) + " > tolerance";
        } else if (tag == "@oom") {
            r = {};
            r.status = CellStatus::Oom;
            r.error = "out of memory allocating the workspace";
        } else if (tag == "@sticky") {
            r = {};
            r.status = CellStatus::Error;
            r.error = "illegal memory access (sticky)";
        }
        say(result);
        if (tag == "@sticky") return k_worker_exit_sticky;
    }
    say({WorkerEvent::Kind::End, 0, {}});
    return -1;
}

WorkerRequest parse_or_exit(const std::string& text) {
    try {
        return parse_worker_request(text);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gconv-fake-worker: bad request: %s\n", e.what());
        std::exit(k_worker_exit_bad_request);
    }
}

} // namespace

// --serve: one request per line, as gconv-worker --serve; GCONV_FAKE_SERVE_LOG gets a line per
// request served (preloads not counted), so tests can count how many batches one process took.
int main(int argc, char** argv) {
    bool serve = false;
    g_device = device_argument(argc, argv);
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--query" || arg == "--list-devices")
            return answer_device_question(arg, g_device);
        serve |= arg == "--serve";
    }
    if (!serve) {
        const std::string input{std::istreambuf_iterator<char>(std::cin), {}};
        const int code = run_request(parse_or_exit(input));
        return code < 0 ? 0 : code;
    }
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        const auto document = nlohmann::json::parse(line, nullptr, false);
        if (is_preload_request(document)) {
            try {
                run_preload(worker_preload_from_json(document));
            } catch (const std::exception& e) {
                std::fprintf(stderr, "gconv-fake-worker: bad preload: %s\n", e.what());
                return k_worker_exit_bad_request;
            }
            continue;
        }
        if (const char* path = std::getenv("GCONV_FAKE_SERVE_LOG")) {
            std::ofstream log(path, std::ios::app);
            log << ::getpid() << '\n';
        }
        if (const int code = run_request(parse_or_exit(line)); code >= 0) return code;
    }
    return 0;
}
