#pragma once
// A HIP stream and an event pair that times the work queued between start() and stop().
#include "gpu/hip_check.h"

namespace gconv::gpu {

class Stream {
public:
    Stream();
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    hipStream_t get() const { return stream_; }
    void synchronize() const;

private:
    hipStream_t stream_ = nullptr;
};

class EventTimer {
public:
    EventTimer();
    ~EventTimer();
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;

    void start(hipStream_t stream);
    void stop(hipStream_t stream);
    // Waits for the stop event; milliseconds of device time between the two events.
    float elapsed_ms() const;

private:
    hipEvent_t start_ = nullptr;
    hipEvent_t stop_ = nullptr;
};

} // namespace gconv::gpu
