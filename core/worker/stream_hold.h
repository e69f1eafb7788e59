#pragma once
// Holds a stream while the host queues a run of timed launches, so that the run measures the
// GPU's time alone. Without it, launches whose host side takes longer than their GPU side (a
// library call that spends a few microseconds of host time on a few microseconds of GPU work)
// leave the GPU idle between them and the gaps count; the more so on a slow or cold host. One
// block spins until the host lets it go (a generation number in mapped host memory) or a
// time-out passes (so a lost release costs a second, not a hang).
// On by default: LaunchTimer holds every run it queues while the process's hold is enabled
// (a batch's request says, `launch_hold`; gconv-bench --launch-hold off times launches as they
// come).
#include <hip/hip_runtime_api.h>

#include <memory>
#include <string>

namespace gconv::worker {

class StreamHold {
public:
    // For the current context's device; nullptr with `why` where the kernel does not compile
    // or mapped host memory is refused.
    static std::unique_ptr<StreamHold> create(std::string& why);
    ~StreamHold();
    StreamHold(const StreamHold&) = delete;
    StreamHold& operator=(const StreamHold&) = delete;

    // Queues the spinning block on `stream`: what is queued behind it waits for release().
    void hold(hipStream_t stream);
    // Lets the last hold() go.
    void release();

    // Whether LaunchTimer holds the runs it queues (true until set otherwise).
    static void set_enabled(bool enabled);
    // The process's hold while enabled (created on first use in the current context), else
    // nullptr; a hold that cannot be created is reported once on stderr and not tried again.
    static StreamHold* active();

private:
    struct Impl;
    explicit StreamHold(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace gconv::worker
