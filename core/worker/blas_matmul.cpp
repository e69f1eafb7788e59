#include "worker/blas_matmul.h"

#include "gpu/buffer.h"
#include "gpu/shared_library.h"
#include "worker/launch_timer.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <span>
#include <vector>

namespace gconv::worker {
namespace {

// The cuBLAS v2 entry points and constants used here, by value, so that no cuBLAS header is
// needed to build gconv (cublas_api.h / library_types.h; stable across cuBLAS 12 and 13).
namespace cublas {
using Handle = void*;
using Status = int;
constexpr Status k_success = 0;
constexpr int k_op_n = 0, k_op_t = 1; // cublasOperation_t
constexpr int k_r_16bf = 14;          // cudaDataType_t CUDA_R_16BF
constexpr int k_compute_32f = 68;     // cublasComputeType_t CUBLAS_COMPUTE_32F
constexpr int k_gemm_default = -1;    // cublasGemmAlgo_t CUBLAS_GEMM_DEFAULT

struct Api {
    void* library = nullptr;
    Handle handle = nullptr;
    Status (*create)(Handle*) = nullptr;
    Status (*destroy)(Handle) = nullptr;
    Status (*set_stream)(Handle, hipStream_t) = nullptr;
    Status (*get_version)(Handle, int*) = nullptr;
    Status (*gemm_ex)(Handle, int, int, int, int, int, const void*, const void*, int, int,
                      const void*, int, int, const void*, void*, int, int, int, int) = nullptr;

    ~Api() {
        if (handle && destroy) destroy(handle);
        if (library) dlclose(library);
    }
};
} // namespace cublas

// GCONV_CUBLAS_LIBRARY, the loader's path, the CUDA toolkit, then the nvidia-cublas wheels of
// the system's Python (nvidia/cublas/lib for CUDA 12 wheels, nvidia/cu13/lib for CUDA 13).
std::vector<std::string> library_candidates() {
    std::vector<std::string> out;
    if (const char* env = std::getenv("GCONV_CUBLAS_LIBRARY")) out.emplace_back(env);
    for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
        out.emplace_back(name);
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const char* dir : {"/usr/local/cuda/lib64", "/usr/local/cuda/lib"})
        for (const char* name : {"libcublas.so.13", "libcublas.so.12"})
            if (fs::exists(fs::path(dir) / name, ec))
                out.push_back((fs::path(dir) / name).string());
    for (const char* root : {"/usr/local/lib", "/usr/lib", "/opt/conda/lib"}) {
        for (const auto& entry : fs::directory_iterator(root, ec)) {
            if (entry.path().filename().string().rfind("python3", 0) != 0) continue;
            for (const char* sub : {"site-packages", "dist-packages"})
                for (const char* lib : {"cu13/lib/libcublas.so.13", "cublas/lib/libcublas.so.13",
                                        "cublas/lib/libcublas.so.12"}) {
                    const fs::path path = entry.path() / sub / "nvidia" / lib;
                    if (fs::exists(path, ec)) out.push_back(path.string());
                }
        }
    }
    return out;
}

std::string failure(const char* call, cublas::Status s) {
    return std::string(call) + " failed with cublasStatus_t " + std::to_string(s);
}

} // namespace

MatmulRate measure_bf16_matmul(
    int size, int warmup, int repeat, hipStream_t stream,
    const std::function<void(void* ptr, std::size_t count, unsigned salt)>& fill_bf16) {
    MatmulRate rate;
#if !defined(GCONV_HIP_PLATFORM_NVIDIA)
    (void)size, (void)warmup, (void)repeat, (void)stream, (void)fill_bf16;
    rate.why = "the matmul ceiling needs cuBLAS (NVIDIA); no hipBLAS provider yet";
    return rate;
#else
    cublas::Api api;
    std::string tried, loaded;
    api.library = open_first_library(library_candidates(), tried, &loaded);
    if (!api.library) {
        rate.why = "cuBLAS not found (set GCONV_CUBLAS_LIBRARY): " + tried;
        return rate;
    }
    std::string missing;
    bind_symbol(api.library, "cublasCreate_v2", api.create, missing);
    bind_symbol(api.library, "cublasDestroy_v2", api.destroy, missing);
    bind_symbol(api.library, "cublasSetStream_v2", api.set_stream, missing);
    bind_symbol(api.library, "cublasGetVersion_v2", api.get_version, missing);
    bind_symbol(api.library, "cublasGemmEx", api.gemm_ex, missing);
    if (!missing.empty()) {
        rate.why = loaded + " lacks " + missing;
        return rate;
    }
    if (auto s = api.create(&api.handle); s != cublas::k_success) {
        rate.why = failure("cublasCreate_v2", s);
        return rate;
    }
    int version = 0;
    api.get_version(api.handle, &version);
    rate.library = std::filesystem::path(loaded).filename().string() + " (cuBLAS " +
                   std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
                   "." + std::to_string(version % 100) + ")";
    if (auto s = api.set_stream(api.handle, stream); s != cublas::k_success) {
        rate.why = failure("cublasSetStream_v2", s);
        return rate;
    }

    const std::size_t elements = std::size_t(size) * std::size_t(size);
    gpu::DeviceBuffer a(elements * 2), b(elements * 2), c(elements * 2);
    fill_bf16(a.data(), elements, 1);
    fill_bf16(b.data(), elements, 2);
    const float alpha = 1.0f, beta = 0.0f;
    cublas::Status status = cublas::k_success;
    // A transposed, B not: the row-major product of two row-major matrices in cuBLAS's
    // column-major terms, the layout frameworks hand it.
    auto gemm = [&] {
        const cublas::Status s = api.gemm_ex(
            api.handle, cublas::k_op_t, cublas::k_op_n, size, size, size, &alpha, a.data(),
            cublas::k_r_16bf, size, b.data(), cublas::k_r_16bf, size, &beta, c.data(),
            cublas::k_r_16bf, size, cublas::k_compute_32f, cublas::k_gemm_default);
        if (s != cublas::k_success && status == cublas::k_success) status = s;
    };
    for (int i = 0; i < warmup; ++i) gemm();
    LaunchTimer timer(repeat);
    const std::vector<float> ms = timer.run(stream, gemm);
    if (status != cublas::k_success) {
        rate.why = failure("cublasGemmEx", status);
        return rate;
    }
    // A BLAS that did nothing would be fast: its product of random inputs cannot be all zeros.
    std::vector<unsigned short> sample(4096);
    GCONV_HIP_CHECK(hipStreamSynchronize(stream));
    c.download(std::span<unsigned short>(sample));
    if (std::all_of(sample.begin(), sample.end(), [](unsigned short v) { return v == 0; })) {
        rate.why = "cublasGemmEx gave all zeros on random inputs";
        return rate;
    }
    const double mean_ms = std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
    rate.tflops = 2.0 * double(size) * double(size) * double(size) / (mean_ms * 1e9);
    return rate;
#endif
}

} // namespace gconv::worker
