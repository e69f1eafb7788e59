#pragma once
// Times a run of launches back to back on one stream: an event before the first launch and
// after each one, so that the queue stays full (no host gap inside the run) and each launch's
// time is the difference of neighbouring events.
#include <hip/hip_runtime_api.h>

#include <functional>
#include <vector>

namespace gconv::worker {

class LaunchTimer {
public:
    explicit LaunchTimer(int launches);
    ~LaunchTimer();
    LaunchTimer(const LaunchTimer&) = delete;
    LaunchTimer& operator=(const LaunchTimer&) = delete;

    // Calls `launch` `launches` times between events; `between` (may be empty) runs after each
    // launch's closing event and before the next opening one, outside the timed intervals
    // (an L2 flush). Returns each launch's milliseconds.
    std::vector<float> run(hipStream_t stream, const std::function<void()>& launch,
                           const std::function<void()>& between = {});

private:
    std::vector<hipEvent_t> events_;
};

} // namespace gconv::worker
