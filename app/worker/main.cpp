// gconv-worker: runs one batch of (kernel, problem) cells in a fresh GPU context.
// Request: one JSON document on stdin (docs/worker-protocol.md). Events: one JSON line each on
// stdout, flushed at every "begin" and at the end of a batch. Diagnostics go to stderr, which the
// orchestrator keeps in a log.
#include "gpu/device.h"
#include "sweep/worker_protocol.h"
#include "util/error.h"
#include "worker/batch_runner.h"
#include "worker/ceilings.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>

namespace {

// Events are buffered in stdout and leave when the runner flushes (after each "begin", so a
// cell's result and the next cell's announcement share one write) and after "end".
void write_event(const gconv::WorkerEvent& event) {
    const std::string line = gconv::format_worker_event(event) + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
}
void flush_events() {
    std::fflush(stdout);
}
const gconv::worker::EventSink k_stdout_events{write_event, flush_events};

// The worker log's account of the host time (docs/worker-protocol.md, "Host time split").
void log_host_time(const gconv::worker::Session& session) {
    std::fprintf(stderr, "gconv-worker: host time split: %s\n", session.host_time_split().c_str());
}

const char* k_help =
    "usage: gconv-worker [--device N] < request.json\n"
    "       gconv-worker --serve [--device N]   (one request per stdin line, until end of file)\n"
    "       gconv-worker --query [--device N]   (the device's properties as JSON)\n"
    "       gconv-worker --list-devices   (every visible device's properties, the platform and\n"
    "                                      its visibility variable, as one JSON line)\n"
    "       gconv-worker --ceilings [--device N]   (measured copy GB/s and bf16 matmul TFLOP/s,\n"
    "                                               one JSON line; see docs/worker-protocol.md)\n\n"
    "Runs one batch of cells (kernels x problems) described by a JSON request on stdin and\n"
    "writes one JSON line per event on stdout: begin (before a cell's first launch), result,\n"
    "end. With --serve it keeps its GPU context, loaded modules and the problem on the GPU\n"
    "between requests, each request one JSON line answered by its events and an end; a\n"
    "preload line loads code objects ahead of their cells (one \"loaded\" event each). See\n"
    "docs/worker-protocol.md. gconv-bench starts it; it is not meant to be run by "
    "hand.\n\n"
    "exit status: 0 done, 2 bad request, 3 sticky GPU error (the cell in flight was reported).\n";

nlohmann::json device_json(const gconv::gpu::DeviceInfo& d, const std::string& driver) {
    return {{"index", d.index},
            {"name", d.name},
            {"arch", d.arch},
            {"pci_bus_id", d.pci_bus_id},
            {"sm_count", d.sm_count},
            {"shared_per_block_optin", d.shared_per_block_optin},
            {"l2_bytes", d.l2_bytes},
            {"warp_size", d.warp_size},
            {"clock_khz", d.clock_khz},
            {"memory_clock_khz", d.memory_clock_khz},
            {"memory_bytes", d.memory_bytes},
            {"driver", driver},
            {"driver_version", d.driver_version},
            {"runtime_version", d.runtime_version}};
}

// The one-shot modes (--list-devices, --query, --ceilings): one JSON line on stdout, or the
// failure (`what` before it) on stderr and exit code 1.
int print_json(const std::function<nlohmann::json()>& make, const char* what = "") {
    try {
        std::cout << make().dump() << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "gconv-worker: " << what << e.what() << "\n";
        return 1;
    }
}

// gconv-bench's view of the host's GPUs, from a process of its own (docs/worker-protocol.md).
nlohmann::json host_devices() {
    const std::string driver = gconv::gpu::kernel_driver_version();
    nlohmann::json devices = nlohmann::json::array();
    for (int i = 0, n = gconv::gpu::device_count(); i < n; ++i)
        devices.push_back(device_json(gconv::gpu::query(i), driver));
    return {{"platform", gconv::gpu::platform_name()},
            {"visibility_env", gconv::gpu::visibility_variable()},
            {"devices", devices}};
}

// After a request or preload that went through, its "end".
int ended(int code) {
    if (code == gconv::k_worker_exit_ok) {
        gconv::WorkerEvent end;
        end.kind = gconv::WorkerEvent::Kind::End;
        write_event(end);
        flush_events();
    }
    return code;
}

int run_one(gconv::worker::Session& session, const gconv::WorkerRequest& request) {
    return ended(session.run(request, k_stdout_events));
}

// The GPU context is made once, on the first request or preload: a worker that is never sent
// anything costs no context. gconv-bench sends a preload at once, so the context is made while
// its build phase runs.
int serve_requests(int device) {
    // Requests arrive as long lines on a pipe: unsynchronised C++ input reads them in blocks.
    std::ios::sync_with_stdio(false);
    std::unique_ptr<gconv::worker::Session> session;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        gconv::WorkerRequest request;
        std::optional<gconv::WorkerPreload> preload;
        try {
            const auto document = nlohmann::json::parse(line, nullptr, false);
            if (document.is_discarded())
                request = gconv::parse_worker_request(line); // throws, saying why
            else if (gconv::is_preload_request(document))
                preload = gconv::worker_preload_from_json(document);
            else
                request = gconv::worker_request_from_json(document);
        } catch (const std::exception& e) {
            std::cerr << "gconv-worker: bad request: " << e.what() << "\n";
            return gconv::k_worker_exit_bad_request;
        }
        try {
            if (!session)
                session = std::make_unique<gconv::worker::Session>(
                    gconv::worker::BatchOptions{device, {}});
            const int code = preload ? ended(session->preload(*preload, k_stdout_events))
                                     : run_one(*session, request);
            if (code != gconv::k_worker_exit_ok) return code;
        } catch (const std::exception& e) {
            std::cerr << "gconv-worker: " << e.what() << "\n";
            return 1;
        }
    }
    if (session) log_host_time(*session);
    return gconv::k_worker_exit_ok;
}

} // namespace

int main(int argc, char** argv) {
    int device = 0;
    bool query = false;
    bool serve = false;
    bool ceilings = false;
    bool list = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::cout << k_help;
            return 0;
        }
        if (!std::strcmp(argv[i], "--query")) {
            query = true;
        } else if (!std::strcmp(argv[i], "--list-devices")) {
            list = true;
        } else if (!std::strcmp(argv[i], "--ceilings")) {
            ceilings = true;
        } else if (!std::strcmp(argv[i], "--serve")) {
            serve = true;
        } else if (!std::strcmp(argv[i], "--device") && i + 1 < argc) {
            device = std::atoi(argv[++i]);
        } else {
            std::cerr << "gconv-worker: unknown argument " << argv[i] << " (see --help)\n";
            return gconv::k_worker_exit_bad_request;
        }
    }
    if (list) return print_json(host_devices);
    if (query)
        return print_json([&] {
            return device_json(gconv::gpu::query(device), gconv::gpu::kernel_driver_version());
        });
    if (ceilings)
        return print_json(
            [&] {
                return gconv::worker::ceilings_to_json(
                    gconv::worker::measure_ceilings({.device = device}));
            },
            "ceilings: ");
    if (serve) return serve_requests(device);
    gconv::WorkerRequest request;
    try {
        const std::string text((std::istreambuf_iterator<char>(std::cin)),
                               std::istreambuf_iterator<char>());
        request = gconv::parse_worker_request(text);
    } catch (const std::exception& e) {
        std::cerr << "gconv-worker: bad request: " << e.what() << "\n";
        return gconv::k_worker_exit_bad_request;
    }
    try {
        gconv::worker::Session session({device, {}});
        const int code = run_one(session, request);
        if (code == gconv::k_worker_exit_ok) log_host_time(session);
        return code;
    } catch (const std::exception& e) {
        // A failure outside any cell (no device, no context, the reference does not compile).
        std::cerr << "gconv-worker: " << e.what() << "\n";
        return 1;
    }
}
