#include "sweep/early_workers.h"

#include "sweep/worker_slot.h"
#include "util/error.h"

#include <utility>

namespace gconv {

using Clock = std::chrono::steady_clock;

void OutstandingPreloads::sent(const WorkerPreload& preload) {
    std::deque<int64_t> ids;
    for (const WorkerKernel& k : preload.kernels) {
        ids.push_back(k.id);
        names[k.id] = k.name;
    }
    requests.push_back(std::move(ids));
}

std::optional<std::string> OutstandingPreloads::take(const WorkerEvent& event) {
    if (requests.empty()) return "protocol violation: a preload answer with no preload sent";
    std::deque<int64_t>& front = requests.front();
    switch (event.kind) {
    case WorkerEvent::Kind::Loaded:
        if (front.empty() || front.front() != event.kernel)
            return "protocol violation: \"loaded\" for kernel " + std::to_string(event.kernel) +
                   (front.empty() ? " after the whole preload was answered"
                                  : " while kernel " + std::to_string(front.front()) + " was next");
        front.pop_front();
        if (event.load_error.empty())
            ++loaded;
        else
            load_errors.push_back("kernel " + names[event.kernel] + ": " + event.load_error);
        return std::nullopt;
    case WorkerEvent::Kind::End:
        if (!front.empty())
            return "protocol violation: \"end\" of a preload before kernel " +
                   std::to_string(front.front()) + " was answered";
        requests.pop_front();
        return std::nullopt;
    default:
        return std::string("protocol violation: a cell's event while preloading code objects");
    }
}

std::string OutstandingPreloads::loading() const {
    for (const auto& ids : requests)
        if (!ids.empty()) {
            auto name = names.find(ids.front());
            return "kernel " + (name != names.end() ? name->second : std::to_string(ids.front()));
        }
    return "the GPU context";
}

ProcessOptions worker_process_options(const BenchOptions& options, const BenchSlot& slot,
                                      bool serve) {
    ProcessOptions process;
    process.argv = options.worker_command;
    if (serve) process.argv.push_back("--serve");
    process.environment = options.worker_environment;
    process.environment.insert(process.environment.end(), slot.environment.begin(),
                               slot.environment.end());
    process.stderr_log = slot.worker_log.empty() ? options.worker_log : slot.worker_log;
    return process;
}

EarlyWorkers::EarlyWorkers(const BenchOptions& options) : options_(options) {
    std::vector<BenchSlot> slots = options.gpus;
    if (slots.empty()) slots.emplace_back();
    for (const BenchSlot& slot : slots) {
        StartedWorker w;
        w.spawned = Clock::now();
        try {
            w.process = std::make_unique<ChildProcess>(worker_process_options(options, slot, true));
        } catch (const Error&) {
            workers_.emplace_back(); // the phase tries again and writes the error rows
            continue;
        }
        const WorkerPreload context_only;
        w.process->send(to_json(context_only).dump() + "\n");
        w.preloads.sent(context_only);
        workers_.emplace_back(std::move(w));
    }
}

EarlyWorkers::~EarlyWorkers() {
    // Workers never taken (the sweep stopped before its benchmark phase): end of stdin ends
    // them; ChildProcess kills what is left.
    for (auto& w : workers_)
        if (w && w->process->running()) w->process->terminate(options_.terminate_grace);
}

void EarlyWorkers::preload(const std::vector<WorkerKernel>& kernels) {
    if (kernels.empty()) return;
    WorkerPreload preload;
    preload.kernels = kernels;
    const std::string line = to_json(preload).dump() + "\n";
    for (size_t i = 0; i < workers_.size(); ++i) {
        if (!workers_[i]) continue;
        workers_[i]->process->send(line);
        workers_[i]->preloads.sent(preload);
        drain(i, Clock::now());
    }
}

void EarlyWorkers::settle(Clock::time_point deadline) {
    for (size_t i = 0; i < workers_.size(); ++i)
        while (workers_[i] && !workers_[i]->preloads.empty() && Clock::now() < deadline)
            drain(i, std::min(deadline, Clock::now() + std::chrono::milliseconds(100)));
}

bool EarlyWorkers::drain(size_t index, Clock::time_point deadline) {
    StartedWorker& w = *workers_[index];
    std::string line;
    for (;;) {
        const auto status = w.process->read_line(line, deadline);
        if (status == ChildProcess::ReadStatus::Timeout) return true;
        if (status == ChildProcess::ReadStatus::EndOfFile) {
            const ProcessExit exit = w.process->wait(Clock::now() + options_.terminate_grace);
            warnings_.push_back(clip_text(
                "a benchmark worker started ahead died while loading " + w.preloads.loading() +
                " (" + exit.describe() +
                "); a new one takes its cells; stderr tail: " + w.process->stderr_tail(800)));
            workers_[index].reset();
            return false;
        }
        const WorkerLine parsed = parse_worker_line(line);
        if (!parsed.event) { // as outside a cell in the phase: noted, not fatal
            warnings_.push_back("invalid worker output outside a cell (ignored): " + parsed.error);
            continue;
        }
        if (const std::optional<std::string> wrong = w.preloads.take(*parsed.event)) {
            warnings_.push_back("a benchmark worker started ahead was ended: " + *wrong);
            w.process->terminate(options_.terminate_grace);
            workers_[index].reset();
            return false;
        }
    }
}

std::optional<StartedWorker> EarlyWorkers::take(size_t index) {
    if (index >= workers_.size() || !workers_[index]) return std::nullopt;
    std::optional<StartedWorker> w = std::move(workers_[index]);
    workers_[index].reset();
    return w;
}

std::vector<std::string> EarlyWorkers::take_warnings() {
    return std::exchange(warnings_, {});
}

} // namespace gconv
