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
// GCONV_FAKE_LOG: a file that gets "<GCONV_FAKE_TAG> <cell> <kernel>" per cell begun.
// GCONV_FAKE_DELAY_MS: time each successful cell takes.
#include "sweep/worker_protocol.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>

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

// Runs one request; returns -1 to go on with the next one (serve mode) or an exit code.
int run_request(const WorkerRequest& request) {
    nlohmann::json script;
    if (const char* text = std::getenv("GCONV_FAKE_SCRIPT"))
        script = nlohmann::json::parse(text, nullptr, false);
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
        const std::string tag = tag_of(kernel.name, cell.cell, script);
        if (tag == "@exit") {
            std::fprintf(stderr, "fake worker: leaving before cell %lld\n", (long long)cell.cell);
            return 0;
        }
        if (log_path) {
            std::ofstream log(log_path, std::ios::app);
            log << (run_tag ? run_tag : "-") << ' ' << cell.cell << ' ' << kernel.name << '\n';
        }
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
// request served, so tests can count how many batches one process took.
int main(int argc, char** argv) {
    bool serve = false;
    for (int i = 1; i < argc; ++i) serve |= std::string(argv[i]) == "--serve";
    if (!serve) {
        const std::string input{std::istreambuf_iterator<char>(std::cin), {}};
        const int code = run_request(parse_or_exit(input));
        return code < 0 ? 0 : code;
    }
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        if (const char* path = std::getenv("GCONV_FAKE_SERVE_LOG")) {
            std::ofstream log(path, std::ios::app);
            log << ::getpid() << '\n';
        }
        if (const int code = run_request(parse_or_exit(line)); code >= 0) return code;
    }
    return 0;
}
