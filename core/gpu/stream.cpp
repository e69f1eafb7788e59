#include "gpu/stream.h"

namespace gconv::gpu {

Stream::Stream() {
    GCONV_HIP_CHECK(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking));
}

Stream::~Stream() {
    if (stream_) (void)hipStreamDestroy(stream_);
}

void Stream::synchronize() const {
    GCONV_HIP_CHECK(hipStreamSynchronize(stream_));
}

EventTimer::EventTimer() {
    GCONV_HIP_CHECK(hipEventCreate(&start_));
    try {
        GCONV_HIP_CHECK(hipEventCreate(&stop_));
    } catch (...) {
        (void)hipEventDestroy(start_);
        throw;
    }
}

EventTimer::~EventTimer() {
    (void)hipEventDestroy(start_);
    if (stop_) (void)hipEventDestroy(stop_);
}

void EventTimer::start(hipStream_t stream) {
    GCONV_HIP_CHECK(hipEventRecord(start_, stream));
}

void EventTimer::stop(hipStream_t stream) {
    GCONV_HIP_CHECK(hipEventRecord(stop_, stream));
}

float EventTimer::elapsed_ms() const {
    GCONV_HIP_CHECK(hipEventSynchronize(stop_));
    float ms = 0.0f;
    GCONV_HIP_CHECK(hipEventElapsedTime(&ms, start_, stop_));
    return ms;
}

} // namespace gconv::gpu
