#pragma once
// A device allocation owned by one object.
#include "gpu/hip_check.h"

#include <cstddef>
#include <span>
#include <utility>

namespace gconv::gpu {

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
        if (bytes_ > 0) GCONV_HIP_CHECK(hipMalloc(&data_, bytes_));
    }
    ~DeviceBuffer() { reset(); }

    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            data_ = std::exchange(other.data_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
        }
        return *this;
    }

    void* data() const { return data_; }
    template <typename T> T* as() const { return static_cast<T*>(data_); }
    std::size_t bytes() const { return bytes_; }

    template <typename T> void upload(std::span<const T> host) {
        check_fits(host.size_bytes(), "upload");
        GCONV_HIP_CHECK(hipMemcpy(data_, host.data(), host.size_bytes(), hipMemcpyHostToDevice));
    }
    template <typename T> void download(std::span<T> host) const {
        check_fits(host.size_bytes(), "download");
        GCONV_HIP_CHECK(hipMemcpy(host.data(), data_, host.size_bytes(), hipMemcpyDeviceToHost));
    }
    // Fills every byte, e.g. with a poison pattern before a kernel that must overwrite all;
    // done when it returns. hipMemset on device memory returns before the fill and is ordered
    // only on the legacy stream, which the non-blocking gpu::Stream does not wait for: a kernel
    // launched next on one could run before (or under) the fill.
    void fill_bytes(unsigned char value) {
        if (bytes_ == 0) return;
        GCONV_HIP_CHECK(hipMemset(data_, value, bytes_));
        GCONV_HIP_CHECK(hipStreamSynchronize(nullptr));
    }

    void reset() noexcept {
        // hipFree's status is ignored: a destructor cannot throw, and after a sticky error the
        // context is gone anyway.
        if (data_) (void)hipFree(data_);
        data_ = nullptr;
        bytes_ = 0;
    }

private:
    void check_fits(std::size_t bytes, const char* what) const {
        if (bytes > bytes_) throw GpuError(what, hipErrorInvalidValue, __FILE__, __LINE__);
    }

    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

} // namespace gconv::gpu
