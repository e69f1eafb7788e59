#pragma once
// Loading JIT-compiled code objects (cubin / PTX on NVIDIA, hsaco on AMD) and launching their
// kernels through the HIP module API. Callers must have made a context current first
// (gpu/context.h).
#include "gpu/hip_check.h"

#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace gconv::gpu {

// Kernel arguments packed as the device ABI lays out a parameter list: each value at its
// natural alignment. Passed with HIP_LAUNCH_PARAM_BUFFER_POINTER, so any mix of pointers and
// scalars (and trivially copyable structs) works without building a void* array.
class KernelArgs {
public:
    template <typename T> KernelArgs& add(const T& value) {
        static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are copied bytewise");
        const std::size_t offset = (bytes_.size() + alignof(T) - 1) / alignof(T) * alignof(T);
        bytes_.resize(offset + sizeof(T));
        std::memcpy(bytes_.data() + offset, &value, sizeof(T));
        return *this;
    }
    const void* data() const { return bytes_.data(); }
    std::size_t size() const { return bytes_.size(); }

private:
    std::vector<unsigned char> bytes_;
};

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
};

struct LaunchConfig {
    Dim3 grid;
    Dim3 block;
    unsigned dynamic_shared_bytes = 0;
    hipStream_t stream = nullptr;
};

struct KernelAttributes {
    int registers = 0; // per thread
    int static_shared_bytes = 0;
    int local_bytes = 0; // per thread; > 0 means spills or stack
    int max_threads_per_block = 0;
};

class Kernel {
public:
    Kernel(hipFunction_t function, std::string name)
        : function_(function), name_(std::move(name)) {}

    hipFunction_t get() const { return function_; }
    const std::string& name() const { return name_; }
    KernelAttributes attributes() const;

    // Lets the kernel use more dynamic shared memory than the default 48 KB (NVIDIA). On AMD
    // there is no opt-in: a workgroup may use the whole LDS, so this only checks the request.
    void allow_dynamic_shared(std::size_t bytes);
    std::size_t dynamic_shared_allowed() const { return dynamic_shared_allowed_; }

private:
    hipFunction_t function_;
    std::string name_;
    std::size_t dynamic_shared_allowed_ = 48 * 1024;
};

class Module {
public:
    // Throws GpuError (e.g. hipErrorInvalidImage / invalid context) when the driver refuses it.
    explicit Module(std::span<const char> code_object);
    ~Module();
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;
    Module(Module&& other) noexcept;
    Module& operator=(Module&& other) noexcept;

    // `name` is the symbol name: declare kernels extern "C" to keep it unmangled.
    Kernel function(const std::string& name) const;

private:
    hipModule_t module_ = nullptr;
};

// Raises the kernel's dynamic shared memory limit first when the launch needs more.
void launch(Kernel& kernel, const LaunchConfig& config, const KernelArgs& args);

} // namespace gconv::gpu
