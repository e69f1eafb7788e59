#include "worker/launch_timer.h"

#include "gpu/hip_check.h"
#include "worker/stream_hold.h"

namespace gconv::worker {

LaunchTimer::LaunchTimer(int launches) {
    // Back to back needs launches + 1 events; with a flush between launches each one needs
    // its own pair.
    events_.resize(std::size_t(2 * launches));
    for (auto& e : events_) GCONV_HIP_CHECK(hipEventCreate(&e));
}

LaunchTimer::~LaunchTimer() {
    for (auto e : events_)
        if (e) (void)hipEventDestroy(e);
}

std::vector<float> LaunchTimer::run(hipStream_t stream, const std::function<void()>& launch,
                                    const std::function<void()>& between) {
    queue(stream, launch, between);
    return collect();
}

void LaunchTimer::queue(hipStream_t stream, const std::function<void()>& launch,
                        const std::function<void()>& between) {
    StreamHold* const hold = StreamHold::active();
    if (hold) hold->hold(stream);
    queue_events(stream, launch, between);
    if (hold) hold->release();
}

void LaunchTimer::queue_events(hipStream_t stream, const std::function<void()>& launch,
                               const std::function<void()>& between) {
    const int n = int(events_.size() / 2);
    interleaved_ = bool(between);
    if (!interleaved_) {
        GCONV_HIP_CHECK(hipEventRecord(events_[0], stream));
        for (int i = 0; i < n; ++i) {
            launch();
            GCONV_HIP_CHECK(hipEventRecord(events_[std::size_t(i + 1)], stream));
        }
        return;
    }
    for (int i = 0; i < n; ++i) {
        GCONV_HIP_CHECK(hipEventRecord(events_[std::size_t(2 * i)], stream));
        launch();
        GCONV_HIP_CHECK(hipEventRecord(events_[std::size_t(2 * i + 1)], stream));
        between();
    }
}

std::vector<float> LaunchTimer::collect() {
    const int n = int(events_.size() / 2);
    std::vector<float> ms(std::size_t(n), 0.0f);
    if (!interleaved_) {
        GCONV_HIP_CHECK(hipEventSynchronize(events_[std::size_t(n)]));
        for (int i = 0; i < n; ++i)
            GCONV_HIP_CHECK(hipEventElapsedTime(&ms[std::size_t(i)], events_[std::size_t(i)],
                                                events_[std::size_t(i + 1)]));
        return ms;
    }
    GCONV_HIP_CHECK(hipEventSynchronize(events_.back()));
    for (int i = 0; i < n; ++i)
        GCONV_HIP_CHECK(hipEventElapsedTime(&ms[std::size_t(i)], events_[std::size_t(2 * i)],
                                            events_[std::size_t(2 * i + 1)]));
    return ms;
}

hipEvent_t LaunchTimer::last_event() const {
    return interleaved_ ? events_.back() : events_[events_.size() / 2];
}

} // namespace gconv::worker
