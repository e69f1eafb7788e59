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

// Kernel arguments laid out as the device ABI lays out a parameter list: each value at its
// natural alignment (a 64-byte-aligned tensor map included), in a 64-byte-aligned buffer.
// Launched through the per-argument pointer array, which the driver copies by the kernel's own
// parameter layout (a packed buffer with an over-aligned member is refused at launch).
class KernelArgs {
public:
    template <typename T> KernelArgs& add(const T& value) {
        static_assert(std::is_trivially_copyable_v<T>, "kernel arguments are copied bytewise");
        static_assert(alignof(T) <= k_max_align, "kernel argument over-aligned");
        const std::size_t offset = (size_ + alignof(T) - 1) / alignof(T) * alignof(T);
        size_ = offset + sizeof(T);
        blocks_.resize((size_ + k_max_align - 1) / k_max_align);
        std::memcpy(bytes() + offset, &value, sizeof(T));
        offsets_.push_back(offset);
        return *this;
    }
    const void* data() const { return blocks_.data(); }
    std::size_t size() const { return size_; }
    // One pointer per argument into data(), valid while this object lives unchanged.
    std::vector<void*> pointers() const {
        std::vector<void*> out;
        for (const std::size_t offset : offsets_)
            out.push_back(const_cast<unsigned char*>(
                reinterpret_cast<const unsigned char*>(blocks_.data()) + offset));
        return out;
    }

private:
    static constexpr std::size_t k_max_align = 64;
    struct alignas(k_max_align) Block {
        unsigned char b[k_max_align];
    };
    unsigned char* bytes() { return reinterpret_cast<unsigned char*>(blocks_.data()); }
    std::vector<Block> blocks_;
    std::vector<std::size_t> offsets_;
    std::size_t size_ = 0;
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
