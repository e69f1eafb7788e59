#pragma once
// Times a run of launches back to back on one stream: an event before the first launch and
// after each one, so that the queue stays full (no host gap inside the run) and each launch's
// time is the difference of neighbouring events. The queue stays full only while the host
// queues faster than the GPU runs, so the run waits behind a StreamHold until all of it is
// queued (unless the hold is disabled): a launch with a slow host side is timed on the GPU
// alone (worker/stream_hold.h).
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

    // run() in two halves, so that the host can do other work while the launches execute:
    // queue() records the events and launches without waiting; collect() waits for the last
    // event and returns each launch's milliseconds. The same events serve every queue().
    void queue(hipStream_t stream, const std::function<void()>& launch,
               const std::function<void()>& between = {});
    std::vector<float> collect();
    // The event after the last launch of the last queue(): where that run ends on the stream.
    hipEvent_t last_event() const;

private:
    void queue_events(hipStream_t stream, const std::function<void()>& launch,
                      const std::function<void()>& between);
    std::vector<hipEvent_t> events_;
    bool interleaved_ = false; // the last queue() had a `between`: one event pair per launch
};

} // namespace gconv::worker
