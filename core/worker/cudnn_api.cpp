#include "worker/cudnn_api.h"

#include "gpu/shared_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace gconv::worker {

namespace {

std::vector<std::string> library_candidates() {
    std::vector<std::string> out;
    if (const char* env = std::getenv("GCONV_CUDNN_LIBRARY")) out.emplace_back(env);
    out.emplace_back("libcudnn.so.9");
    out.emplace_back("libcudnn.so");
    // The nvidia-cudnn wheels (pip) keep the library inside the Python tree.
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const char* root : {"/usr/local/lib", "/usr/lib", "/opt/conda/lib"}) {
        for (const auto& entry : fs::directory_iterator(root, ec)) {
            const std::string name = entry.path().filename().string();
            if (name.rfind("python3", 0) != 0) continue;
            for (const char* sub : {"site-packages", "dist-packages"}) {
                const fs::path lib =
                    entry.path() / sub / "nvidia" / "cudnn" / "lib" / "libcudnn.so.9";
                if (fs::exists(lib, ec)) out.push_back(lib.string());
            }
        }
    }
    for (const char* dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/lib"}) {
        const fs::path lib = fs::path(dir) / "libcudnn.so.9";
        if (fs::exists(lib, ec)) out.push_back(lib.string());
    }
    return out;
}

} // namespace

int cudnn_data_type(DataType d) {
    return d == DataType::BF16   ? cudnn::k_bfloat16
           : d == DataType::FP16 ? cudnn::k_half
                                 : cudnn::k_float;
}

CudnnApi::~CudnnApi() {
    if (handle && destroy) destroy(handle);
    if (library) dlclose(library);
}

std::string CudnnApi::failure(const char* call, cudnn::Status s) const {
    return std::string(call) + " failed: " + (error_string ? error_string(s) : "?") + " (status " +
           std::to_string(s) + ")";
}

std::string CudnnApi::version() const {
    const size_t v = get_version();
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
           std::to_string(v % 100);
}

std::unique_ptr<CudnnApi> CudnnApi::load(std::string& why) {
#if !defined(GCONV_HIP_PLATFORM_NVIDIA)
    why = "cuDNN baselines need the NVIDIA platform (on ROCm: --baseline miopen)";
    return nullptr;
#else
    auto api = std::make_unique<CudnnApi>();
    std::string tried;
    api->library = open_first_library(library_candidates(), tried);
    if (!api->library) {
        why = "cannot load cuDNN (set GCONV_CUDNN_LIBRARY): " + tried;
        return nullptr;
    }
    std::string missing;
    void* l = api->library;
    bind_symbol(l, "cudnnCreate", api->create, missing);
    bind_symbol(l, "cudnnDestroy", api->destroy, missing);
    bind_symbol(l, "cudnnSetStream", api->set_stream, missing);
    bind_symbol(l, "cudnnGetErrorString", api->error_string, missing);
    bind_symbol(l, "cudnnGetVersion", api->get_version, missing);
    bind_symbol(l, "cudnnCreateTensorDescriptor", api->create_tensor, missing);
    bind_symbol(l, "cudnnDestroyTensorDescriptor", api->destroy_tensor, missing);
    bind_symbol(l, "cudnnSetTensorNdDescriptorEx", api->set_tensor, missing);
    bind_symbol(l, "cudnnCreateFilterDescriptor", api->create_filter, missing);
    bind_symbol(l, "cudnnDestroyFilterDescriptor", api->destroy_filter, missing);
    bind_symbol(l, "cudnnSetFilterNdDescriptor", api->set_filter, missing);
    bind_symbol(l, "cudnnCreateConvolutionDescriptor", api->create_conv, missing);
    bind_symbol(l, "cudnnDestroyConvolutionDescriptor", api->destroy_conv, missing);
    bind_symbol(l, "cudnnSetConvolutionNdDescriptor", api->set_conv, missing);
    bind_symbol(l, "cudnnSetConvolutionGroupCount", api->set_groups, missing);
    bind_symbol(l, "cudnnSetConvolutionMathType", api->set_math, missing);
    bind_symbol(l, "cudnnFindConvolutionForwardAlgorithmEx", api->find_fwd, missing);
    bind_symbol(l, "cudnnFindConvolutionBackwardDataAlgorithmEx", api->find_bwd_data, missing);
    bind_symbol(l, "cudnnFindConvolutionBackwardFilterAlgorithmEx", api->find_bwd_filter, missing);
    bind_symbol(l, "cudnnConvolutionForward", api->fwd, missing);
    bind_symbol(l, "cudnnConvolutionBackwardData", api->bwd_data, missing);
    bind_symbol(l, "cudnnConvolutionBackwardFilter", api->bwd_filter, missing);
    if (!missing.empty()) {
        why = "cuDNN lacks " + missing;
        return nullptr;
    }
    // The graph path is optional: without it the legacy search alone is the baseline.
    bind_symbol(l, "cudnnBackendCreateDescriptor", api->backend_create, api->graph_missing);
    bind_symbol(l, "cudnnBackendDestroyDescriptor", api->backend_destroy, api->graph_missing);
    bind_symbol(l, "cudnnBackendFinalize", api->backend_finalize, api->graph_missing);
    bind_symbol(l, "cudnnBackendSetAttribute", api->backend_set, api->graph_missing);
    bind_symbol(l, "cudnnBackendGetAttribute", api->backend_get, api->graph_missing);
    bind_symbol(l, "cudnnBackendExecute", api->backend_execute, api->graph_missing);
    if (const cudnn::Status s = api->create(&api->handle); s != cudnn::k_success) {
        why = api->failure("cudnnCreate", s);
        return nullptr;
    }
    return api;
#endif
}

} // namespace gconv::worker
