#include "gpu/module.h"

#include <utility>

namespace gconv::gpu {

KernelAttributes Kernel::attributes() const {
    KernelAttributes out;
    GCONV_HIP_CHECK(hipFuncGetAttribute(&out.registers, HIP_FUNC_ATTRIBUTE_NUM_REGS, function_));
    GCONV_HIP_CHECK(hipFuncGetAttribute(&out.static_shared_bytes,
                                        HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function_));
    GCONV_HIP_CHECK(
        hipFuncGetAttribute(&out.local_bytes, HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, function_));
    GCONV_HIP_CHECK(hipFuncGetAttribute(&out.max_threads_per_block,
                                        HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function_));
    return out;
}

void Kernel::allow_dynamic_shared(std::size_t bytes) {
    if (bytes <= dynamic_shared_allowed_) return;
#if defined(GCONV_HIP_PLATFORM_NVIDIA)
    // HIP 5.2's hipFuncSetAttribute takes a runtime-API entry address (cudaFuncSetAttribute),
    // not a module function; for a hipFunction_t (a CUfunction) the driver call is the one.
    GCONV_HIP_CHECK(hipCUResultTohipError(cuFuncSetAttribute(
        function_, HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(bytes))));
#else
        // AMD: no opt-in exists; a request above the LDS size fails at launch with a clear code.
#endif
    dynamic_shared_allowed_ = bytes;
}

Module::Module(std::span<const char> code_object) {
    if (code_object.empty()) {
        throw GpuError("hipModuleLoadData(empty code object)", hipErrorInvalidImage, __FILE__,
                       __LINE__);
    }
    GCONV_HIP_CHECK(hipModuleLoadData(&module_, code_object.data()));
}

Module::~Module() {
    if (module_) (void)hipModuleUnload(module_);
}

Module::Module(Module&& other) noexcept : module_(std::exchange(other.module_, nullptr)) {}

Module& Module::operator=(Module&& other) noexcept {
    if (this != &other) {
        if (module_) (void)hipModuleUnload(module_);
        module_ = std::exchange(other.module_, nullptr);
    }
    return *this;
}

Kernel Module::function(const std::string& name) const {
    hipFunction_t function = nullptr;
    const hipError_t status = hipModuleGetFunction(&function, module_, name.c_str());
    if (status != hipSuccess) {
        throw GpuError("hipModuleGetFunction(\"" + name + "\")", status, __FILE__, __LINE__);
    }
    return Kernel(function, name);
}

void launch(Kernel& kernel, const LaunchConfig& config, const KernelArgs& args) {
    kernel.allow_dynamic_shared(config.dynamic_shared_bytes);
    std::vector<void*> params = args.pointers();
    const hipError_t status = hipModuleLaunchKernel(
        kernel.get(), config.grid.x, config.grid.y, config.grid.z, config.block.x, config.block.y,
        config.block.z, config.dynamic_shared_bytes, config.stream,
        params.empty() ? nullptr : params.data(), nullptr);
    if (status != hipSuccess) {
        throw GpuError("hipModuleLaunchKernel(" + kernel.name() + ")", status, __FILE__, __LINE__);
    }
}

} // namespace gconv::gpu
