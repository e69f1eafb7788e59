#include "worker/cudnn_baseline.h"

#include "gpu/hip_check.h"
#include "worker/launch_timer.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>

namespace gconv::worker {

// The few cuDNN 9 entry points and constants used here, declared by value so that no cuDNN
// header is needed to build gconv (values from cudnn_graph_v9.h / cudnn_cnn_v9.h; the C ABI is
// stable across 9.x).
namespace cudnn {
using Handle = void*;
using Descriptor = void*;
using Status = int;
constexpr int k_success = 0;
constexpr int k_float = 0, k_half = 2, k_bfloat16 = 9; // cudnnDataType_t
constexpr int k_nhwc = 1;                              // cudnnTensorFormat_t
constexpr int k_cross_correlation = 1;                 // cudnnConvolutionMode_t
constexpr int k_tensor_op_math = 1, k_fma_math = 3;    // cudnnMathType_t

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t share this layout.
struct AlgoPerf {
    int algo;
    Status status;
    float time;
    size_t memory;
    int determinism;
    int math_type;
    int reserved[3];
};
} // namespace cudnn

struct CudnnBaseline::Api {
    void* library = nullptr;
    cudnn::Handle handle = nullptr;

    cudnn::Status (*create)(cudnn::Handle*);
    cudnn::Status (*destroy)(cudnn::Handle);
    cudnn::Status (*set_stream)(cudnn::Handle, hipStream_t);
    const char* (*error_string)(cudnn::Status);
    size_t (*get_version)();
    cudnn::Status (*create_tensor)(cudnn::Descriptor*);
    cudnn::Status (*destroy_tensor)(cudnn::Descriptor);
    cudnn::Status (*set_tensor)(cudnn::Descriptor, int format, int type, int dims, const int*);
    cudnn::Status (*create_filter)(cudnn::Descriptor*);
    cudnn::Status (*destroy_filter)(cudnn::Descriptor);
    cudnn::Status (*set_filter)(cudnn::Descriptor, int type, int format, int dims, const int*);
    cudnn::Status (*create_conv)(cudnn::Descriptor*);
    cudnn::Status (*destroy_conv)(cudnn::Descriptor);
    cudnn::Status (*set_conv)(cudnn::Descriptor, int length, const int* pad, const int* stride,
                              const int* dilation, int mode, int compute_type);
    cudnn::Status (*set_groups)(cudnn::Descriptor, int);
    cudnn::Status (*set_math)(cudnn::Descriptor, int);
    cudnn::Status (*find_fwd)(cudnn::Handle, cudnn::Descriptor, const void*, cudnn::Descriptor,
                              const void*, cudnn::Descriptor, cudnn::Descriptor, void*, int, int*,
                              cudnn::AlgoPerf*, void*, size_t);
    cudnn::Status (*find_bwd_data)(cudnn::Handle, cudnn::Descriptor, const void*, cudnn::Descriptor,
                                   const void*, cudnn::Descriptor, cudnn::Descriptor, void*, int,
                                   int*, cudnn::AlgoPerf*, void*, size_t);
    cudnn::Status (*find_bwd_filter)(cudnn::Handle, cudnn::Descriptor, const void*,
                                     cudnn::Descriptor, const void*, cudnn::Descriptor,
                                     cudnn::Descriptor, void*, int, int*, cudnn::AlgoPerf*, void*,
                                     size_t);
    cudnn::Status (*fwd)(cudnn::Handle, const void*, cudnn::Descriptor, const void*,
                         cudnn::Descriptor, const void*, cudnn::Descriptor, int, void*, size_t,
                         const void*, cudnn::Descriptor, void*);
    cudnn::Status (*bwd_data)(cudnn::Handle, const void*, cudnn::Descriptor, const void*,
                              cudnn::Descriptor, const void*, cudnn::Descriptor, int, void*, size_t,
                              const void*, cudnn::Descriptor, void*);
    cudnn::Status (*bwd_filter)(cudnn::Handle, const void*, cudnn::Descriptor, const void*,
                                cudnn::Descriptor, const void*, cudnn::Descriptor, int, void*,
                                size_t, const void*, cudnn::Descriptor, void*);

    ~Api() {
        if (handle && destroy) destroy(handle);
        if (library) dlclose(library);
    }

    std::string failure(const char* call, cudnn::Status s) const {
        return std::string(call) + " failed: " + (error_string ? error_string(s) : "?") +
               " (status " + std::to_string(s) + ")";
    }
};

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

template <typename F> bool bind(void* library, const char* name, F& fn, std::string& missing) {
    fn = reinterpret_cast<F>(dlsym(library, name));
    if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
    return fn != nullptr;
}

int cudnn_type(DataType d) {
    return d == DataType::BF16   ? cudnn::k_bfloat16
           : d == DataType::FP16 ? cudnn::k_half
                                 : cudnn::k_float;
}

// Frees cuDNN descriptors on every path out of run().
struct Descriptors {
    const CudnnBaseline::Api* api = nullptr;
    cudnn::Descriptor x = nullptr, y = nullptr, w = nullptr, conv = nullptr;
};

} // namespace

std::unique_ptr<CudnnBaseline> CudnnBaseline::load(std::string& why) {
#if !defined(GCONV_HIP_PLATFORM_NVIDIA)
    why = "cuDNN baselines need the NVIDIA platform (no MIOpen provider yet)";
    return nullptr;
#else
    auto api = std::make_unique<Api>();
    std::string tried;
    for (const auto& candidate : library_candidates()) {
        api->library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (api->library) break;
        tried += (tried.empty() ? "" : "; ") + candidate + ": " + dlerror();
    }
    if (!api->library) {
        why = "cannot load cuDNN (set GCONV_CUDNN_LIBRARY): " + tried;
        return nullptr;
    }
    std::string missing;
    void* l = api->library;
    bind(l, "cudnnCreate", api->create, missing);
    bind(l, "cudnnDestroy", api->destroy, missing);
    bind(l, "cudnnSetStream", api->set_stream, missing);
    bind(l, "cudnnGetErrorString", api->error_string, missing);
    bind(l, "cudnnGetVersion", api->get_version, missing);
    bind(l, "cudnnCreateTensorDescriptor", api->create_tensor, missing);
    bind(l, "cudnnDestroyTensorDescriptor", api->destroy_tensor, missing);
    bind(l, "cudnnSetTensorNdDescriptorEx", api->set_tensor, missing);
    bind(l, "cudnnCreateFilterDescriptor", api->create_filter, missing);
    bind(l, "cudnnDestroyFilterDescriptor", api->destroy_filter, missing);
    bind(l, "cudnnSetFilterNdDescriptor", api->set_filter, missing);
    bind(l, "cudnnCreateConvolutionDescriptor", api->create_conv, missing);
    bind(l, "cudnnDestroyConvolutionDescriptor", api->destroy_conv, missing);
    bind(l, "cudnnSetConvolutionNdDescriptor", api->set_conv, missing);
    bind(l, "cudnnSetConvolutionGroupCount", api->set_groups, missing);
    bind(l, "cudnnSetConvolutionMathType", api->set_math, missing);
    bind(l, "cudnnFindConvolutionForwardAlgorithmEx", api->find_fwd, missing);
    bind(l, "cudnnFindConvolutionBackwardDataAlgorithmEx", api->find_bwd_data, missing);
    bind(l, "cudnnFindConvolutionBackwardFilterAlgorithmEx", api->find_bwd_filter, missing);
    bind(l, "cudnnConvolutionForward", api->fwd, missing);
    bind(l, "cudnnConvolutionBackwardData", api->bwd_data, missing);
    bind(l, "cudnnConvolutionBackwardFilter", api->bwd_filter, missing);
    if (!missing.empty()) {
        why = "cuDNN lacks " + missing;
        return nullptr;
    }
    if (const cudnn::Status s = api->create(&api->handle); s != cudnn::k_success) {
        why = api->failure("cudnnCreate", s);
        return nullptr;
    }
    return std::unique_ptr<CudnnBaseline>(new CudnnBaseline(std::move(api)));
#endif
}

CudnnBaseline::CudnnBaseline(std::unique_ptr<Api> api) : api_(std::move(api)) {}
CudnnBaseline::~CudnnBaseline() = default;

std::string CudnnBaseline::version() const {
    const size_t v = api_->get_version();
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
           std::to_string(v % 100);
}

BaselineResult CudnnBaseline::run(Variant variant, DataType dtype, const Problem& p,
                                  const BaselineTensors& t, hipStream_t stream, int warmup,
                                  int repeat) {
    BaselineResult result;
    Api& a = *api_;
    Descriptors d{&a};
    struct Release {
        Descriptors& d;
        ~Release() {
            if (d.x) d.api->destroy_tensor(d.x);
            if (d.y) d.api->destroy_tensor(d.y);
            if (d.w) d.api->destroy_filter(d.w);
            if (d.conv) d.api->destroy_conv(d.conv);
        }
    } release{d};
    auto check = [&](const char* call, cudnn::Status s) {
        if (s != cudnn::k_success && result.error.empty()) result.error = a.failure(call, s);
        return s == cudnn::k_success;
    };

    const bool three_d = p.ndim_spatial == 3;
    const int type = cudnn_type(dtype);
    // Dimensions in NC(D)HW order; the NHWC format makes them channels-last, which is gconv's
    // NHWGC / GKYXC / NHWGK with the groups folded into the channels.
    std::vector<int> x_dims{int(p.N), int(p.C)}, y_dims{int(p.N), int(p.K)},
        w_dims{int(p.K), int(p.C / p.G)}, pad, stride, dilation;
    if (three_d) {
        x_dims.push_back(int(p.Di));
        y_dims.push_back(int(p.Do()));
        w_dims.push_back(int(p.Z));
        pad.push_back(int(p.pad_d));
        stride.push_back(int(p.stride_d));
        dilation.push_back(int(p.dilation_d));
    }
    x_dims.insert(x_dims.end(), {int(p.Hi), int(p.Wi)});
    y_dims.insert(y_dims.end(), {int(p.Ho()), int(p.Wo())});
    w_dims.insert(w_dims.end(), {int(p.Y), int(p.X)});
    pad.insert(pad.end(), {int(p.pad_h), int(p.pad_w)});
    stride.insert(stride.end(), {int(p.stride_h), int(p.stride_w)});
    dilation.insert(dilation.end(), {int(p.dilation_h), int(p.dilation_w)});
    const int dims = int(x_dims.size());

    if (!check("cudnnSetStream", a.set_stream(a.handle, stream)) ||
        !check("cudnnCreateTensorDescriptor", a.create_tensor(&d.x)) ||
        !check("cudnnCreateTensorDescriptor", a.create_tensor(&d.y)) ||
        !check("cudnnCreateFilterDescriptor", a.create_filter(&d.w)) ||
        !check("cudnnCreateConvolutionDescriptor", a.create_conv(&d.conv)) ||
        !check("cudnnSetTensorNdDescriptorEx (input)",
               a.set_tensor(d.x, cudnn::k_nhwc, type, dims, x_dims.data())) ||
        !check("cudnnSetTensorNdDescriptorEx (output)",
               a.set_tensor(d.y, cudnn::k_nhwc, type, dims, y_dims.data())) ||
        !check("cudnnSetFilterNdDescriptor",
               a.set_filter(d.w, type, cudnn::k_nhwc, dims, w_dims.data())) ||
        !check("cudnnSetConvolutionNdDescriptor",
               a.set_conv(d.conv, dims - 2, pad.data(), stride.data(), dilation.data(),
                          cudnn::k_cross_correlation, cudnn::k_float)) ||
        !check("cudnnSetConvolutionGroupCount", a.set_groups(d.conv, int(p.G))) ||
        // fp32 against gconv's SIMT fp32: no TF32 shortcuts for cuDNN either.
        !check("cudnnSetConvolutionMathType",
               a.set_math(d.conv,
                          dtype == DataType::FP32 ? cudnn::k_fma_math : cudnn::k_tensor_op_math)))
        return result;

    // cuDNN's search may use up to this much workspace; less when memory is short.
    void* workspace = nullptr;
    size_t workspace_bytes = size_t(1) << 30;
    while (workspace_bytes >= (size_t(1) << 20) &&
           hipMalloc(&workspace, workspace_bytes) != hipSuccess) {
        (void)hipGetLastError();
        workspace = nullptr;
        workspace_bytes /= 4;
    }
    struct FreeWorkspace {
        void*& p;
        ~FreeWorkspace() {
            if (p) (void)hipFree(p);
        }
    } free_workspace{workspace};
    if (!workspace) workspace_bytes = 0;

    constexpr int k_algos = 16;
    cudnn::AlgoPerf perf[k_algos] = {};
    int found = 0;
    const char* find_name = "";
    cudnn::Status s = cudnn::k_success;
    switch (variant) {
    case Variant::Forward:
        find_name = "cudnnFindConvolutionForwardAlgorithmEx";
        s = a.find_fwd(a.handle, d.x, t.in, d.w, t.wei, d.conv, d.y, t.out, k_algos, &found, perf,
                       workspace, workspace_bytes);
        break;
    case Variant::BwdData:
        find_name = "cudnnFindConvolutionBackwardDataAlgorithmEx";
        s = a.find_bwd_data(a.handle, d.w, t.wei, d.y, t.out, d.conv, d.x, t.in, k_algos, &found,
                            perf, workspace, workspace_bytes);
        break;
    case Variant::BwdWeight:
        find_name = "cudnnFindConvolutionBackwardFilterAlgorithmEx";
        s = a.find_bwd_filter(a.handle, d.x, t.in, d.y, t.out, d.conv, d.w, t.wei, k_algos, &found,
                              perf, workspace, workspace_bytes);
        break;
    }
    if (!check(find_name, s)) return result;
    const cudnn::AlgoPerf* best = nullptr;
    for (int i = 0; i < found; ++i)
        if (perf[i].status == cudnn::k_success && perf[i].memory <= workspace_bytes &&
            (!best || perf[i].time < best->time))
            best = &perf[i];
    if (!best) {
        result.error = std::string(find_name) + " found no algorithm that runs this problem";
        return result;
    }

    const float alpha = 1.0f, beta = 0.0f;
    const int algo = best->algo;
    cudnn::Status launch_status = cudnn::k_success;
    auto launch = [&] {
        cudnn::Status r = cudnn::k_success;
        switch (variant) {
        case Variant::Forward:
            r = a.fwd(a.handle, &alpha, d.x, t.in, d.w, t.wei, d.conv, algo, workspace,
                      best->memory, &beta, d.y, t.out);
            break;
        case Variant::BwdData:
            r = a.bwd_data(a.handle, &alpha, d.w, t.wei, d.y, t.out, d.conv, algo, workspace,
                           best->memory, &beta, d.x, t.in);
            break;
        case Variant::BwdWeight:
            r = a.bwd_filter(a.handle, &alpha, d.x, t.in, d.y, t.out, d.conv, algo, workspace,
                             best->memory, &beta, d.w, t.wei);
            break;
        }
        if (r != cudnn::k_success && launch_status == cudnn::k_success) launch_status = r;
    };
    for (int i = 0; i < warmup; ++i) launch();
    LaunchTimer timer(std::max(repeat, 1));
    result.launch_ms = timer.run(stream, launch);
    if (!check("cudnnConvolution (timed launches)", launch_status)) return result;
    std::ostringstream name;
    name << "cudnn " << version() << " algo " << algo
         << (best->math_type == cudnn::k_tensor_op_math ? " tensor-op" : "") << ", "
         << (best->memory + (1 << 20) - 1) / (1 << 20) << " MB workspace";
    result.algorithm = name.str();
    result.ok = true;
    return result;
}

} // namespace gconv::worker
