#include "worker/miopen_api.h"

#include "gpu/shared_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace gconv::worker {

int miopen_data_type(DataType d) {
    return d == DataType::BF16   ? miopen::k_bfloat16
           : d == DataType::FP16 ? miopen::k_half
                                 : miopen::k_float;
}

std::vector<std::string> miopen_library_candidates() {
    std::vector<std::string> out;
    if (const char* env = std::getenv("GCONV_MIOPEN_LIBRARY")) out.emplace_back(env);
    out.emplace_back("libMIOpen.so.1");
    out.emplace_back("libMIOpen.so");
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const char* dir : {"/opt/rocm/lib", "/opt/rocm/lib64"}) {
        const fs::path lib = fs::path(dir) / "libMIOpen.so.1";
        if (fs::exists(lib, ec)) out.push_back(lib.string());
    }
    return out;
}

MiopenApi::~MiopenApi() {
    if (handle && destroy) destroy(handle);
    if (library) dlclose(library);
}

std::string MiopenApi::failure(const char* call, miopen::Status s) const {
    return std::string(call) + " failed: " + (error_string ? error_string(s) : "?") + " (status " +
           std::to_string(s) + ")";
}

std::string MiopenApi::version() const {
    size_t major = 0, minor = 0, patch = 0;
    if (get_version(&major, &minor, &patch) != miopen::k_success) return "?";
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::unique_ptr<MiopenApi> MiopenApi::open(const std::vector<std::string>& candidates,
                                           std::string& why) {
    auto api = std::make_unique<MiopenApi>();
    std::string tried;
    api->library = open_first_library(candidates, tried);
    if (!api->library) {
        why = "cannot load MIOpen (set GCONV_MIOPEN_LIBRARY): " + tried;
        return nullptr;
    }
    std::string missing;
    void* l = api->library;
    bind_symbol(l, "miopenCreate", api->create, missing);
    bind_symbol(l, "miopenDestroy", api->destroy, missing);
    bind_symbol(l, "miopenSetStream", api->set_stream, missing);
    bind_symbol(l, "miopenGetErrorString", api->error_string, missing);
    bind_symbol(l, "miopenGetVersion", api->get_version, missing);
    bind_symbol(l, "miopenCreateTensorDescriptor", api->create_tensor, missing);
    bind_symbol(l, "miopenDestroyTensorDescriptor", api->destroy_tensor, missing);
    bind_symbol(l, "miopenSetTensorDescriptor", api->set_tensor, missing);
    bind_symbol(l, "miopenCreateConvolutionDescriptor", api->create_conv, missing);
    bind_symbol(l, "miopenDestroyConvolutionDescriptor", api->destroy_conv, missing);
    bind_symbol(l, "miopenInitConvolutionNdDescriptor", api->init_conv, missing);
    bind_symbol(l, "miopenSetConvolutionGroupCount", api->set_groups, missing);
    bind_symbol(l, "miopenConvolutionForwardGetWorkSpaceSize", api->fwd_workspace, missing);
    bind_symbol(l, "miopenConvolutionBackwardDataGetWorkSpaceSize", api->bwd_data_workspace,
                missing);
    bind_symbol(l, "miopenConvolutionBackwardWeightsGetWorkSpaceSize", api->bwd_weights_workspace,
                missing);
    bind_symbol(l, "miopenFindConvolutionForwardAlgorithm", api->find_fwd, missing);
    bind_symbol(l, "miopenFindConvolutionBackwardDataAlgorithm", api->find_bwd_data, missing);
    bind_symbol(l, "miopenFindConvolutionBackwardWeightsAlgorithm", api->find_bwd_weights, missing);
    bind_symbol(l, "miopenConvolutionForward", api->fwd, missing);
    bind_symbol(l, "miopenConvolutionBackwardData", api->bwd_data, missing);
    bind_symbol(l, "miopenConvolutionBackwardWeights", api->bwd_weights, missing);
    if (!missing.empty()) {
        why = "MIOpen lacks " + missing;
        return nullptr;
    }
    return api;
}

std::unique_ptr<MiopenApi> MiopenApi::load(std::string& why) {
#if !defined(GCONV_HIP_PLATFORM_AMD)
    why = "MIOpen baselines need the ROCm platform (on NVIDIA: --baseline cudnn)";
    return nullptr;
#else
    std::unique_ptr<MiopenApi> api = open(miopen_library_candidates(), why);
    if (!api) return nullptr;
    if (const miopen::Status s = api->create(&api->handle); s != miopen::k_success) {
        why = api->failure("miopenCreate", s);
        api->handle = nullptr;
        return nullptr;
    }
    return api;
#endif
}

} // namespace gconv::worker
