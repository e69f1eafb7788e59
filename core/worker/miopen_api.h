#pragma once
// The MIOpen entry points and constants gconv's ROCm baseline uses, declared by value so that
// no MIOpen header is needed to build gconv (values and signatures from include/miopen/miopen.h;
// the C API has kept them since MIOpen 2). Loaded at run time from one dlopen'd library.
#include "config/enums.h"

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace gconv::worker {

namespace miopen {
using Handle = void*;
using Descriptor = void*; // tensor and convolution descriptors
using Status = int;       // miopenStatus_t
constexpr Status k_success = 0;
constexpr int k_half = 0, k_float = 1, k_bfloat16 = 5; // miopenDataType_t
constexpr int k_convolution = 0;                       // miopenConvolutionMode_t

// miopenConvAlgoPerf_t: the algorithm (a union of the three directions' enums), the search's
// time for it and the workspace it needs.
struct AlgoPerf {
    int algo;
    float time;
    size_t memory;
};
} // namespace miopen

// MIOpen's type for a gconv data type.
int miopen_data_type(DataType dtype);

struct MiopenApi {
    void* library = nullptr;
    miopen::Handle handle = nullptr;

    miopen::Status (*create)(miopen::Handle*);
    miopen::Status (*destroy)(miopen::Handle);
    miopen::Status (*set_stream)(miopen::Handle, hipStream_t);
    const char* (*error_string)(miopen::Status);
    miopen::Status (*get_version)(size_t*, size_t*, size_t*);

    miopen::Status (*create_tensor)(miopen::Descriptor*);
    miopen::Status (*destroy_tensor)(miopen::Descriptor);
    // (descriptor, data type, dims, lengths, strides): the strides make it channels-last.
    miopen::Status (*set_tensor)(miopen::Descriptor, int, int, const int*, const int*);
    miopen::Status (*create_conv)(miopen::Descriptor*);
    miopen::Status (*destroy_conv)(miopen::Descriptor);
    // (descriptor, spatial dims, pads, strides, dilations, mode)
    miopen::Status (*init_conv)(miopen::Descriptor, int, const int*, const int*, const int*, int);
    miopen::Status (*set_groups)(miopen::Descriptor, int);

    // Workspace sizes: forward (w, x, conv, y), bwd_data (dy, w, conv, dx), bwd_weights
    // (dy, x, conv, dw).
    miopen::Status (*fwd_workspace)(miopen::Handle, miopen::Descriptor, miopen::Descriptor,
                                    miopen::Descriptor, miopen::Descriptor, size_t*);
    miopen::Status (*bwd_data_workspace)(miopen::Handle, miopen::Descriptor, miopen::Descriptor,
                                         miopen::Descriptor, miopen::Descriptor, size_t*);
    miopen::Status (*bwd_weights_workspace)(miopen::Handle, miopen::Descriptor, miopen::Descriptor,
                                            miopen::Descriptor, miopen::Descriptor, size_t*);
    // Searches (run the algorithms on the real tensors, fastest first): forward (x, w, conv,
    // y), bwd_data (dy, w, conv, dx), bwd_weights (dy, x, conv, dw); then request count,
    // returned count, results, workspace, its bytes, exhaustive.
    miopen::Status (*find_fwd)(miopen::Handle, miopen::Descriptor, const void*, miopen::Descriptor,
                               const void*, miopen::Descriptor, miopen::Descriptor, void*, int,
                               int*, miopen::AlgoPerf*, void*, size_t, bool);
    miopen::Status (*find_bwd_data)(miopen::Handle, miopen::Descriptor, const void*,
                                    miopen::Descriptor, const void*, miopen::Descriptor,
                                    miopen::Descriptor, void*, int, int*, miopen::AlgoPerf*, void*,
                                    size_t, bool);
    miopen::Status (*find_bwd_weights)(miopen::Handle, miopen::Descriptor, const void*,
                                       miopen::Descriptor, const void*, miopen::Descriptor,
                                       miopen::Descriptor, void*, int, int*, miopen::AlgoPerf*,
                                       void*, size_t, bool);
    // Runs: (handle, alpha, first tensor, its data, second tensor, its data, conv, algo, beta,
    // result tensor, its data, workspace, bytes), the tensors in the searches' order.
    miopen::Status (*fwd)(miopen::Handle, const void*, miopen::Descriptor, const void*,
                          miopen::Descriptor, const void*, miopen::Descriptor, int, const void*,
                          miopen::Descriptor, void*, void*, size_t);
    miopen::Status (*bwd_data)(miopen::Handle, const void*, miopen::Descriptor, const void*,
                               miopen::Descriptor, const void*, miopen::Descriptor, int,
                               const void*, miopen::Descriptor, void*, void*, size_t);
    miopen::Status (*bwd_weights)(miopen::Handle, const void*, miopen::Descriptor, const void*,
                                  miopen::Descriptor, const void*, miopen::Descriptor, int,
                                  const void*, miopen::Descriptor, void*, void*, size_t);

    ~MiopenApi();
    std::string failure(const char* call, miopen::Status s) const;
    std::string version() const;

    // Loads the library (GCONV_MIOPEN_LIBRARY, libMIOpen.so.1, libMIOpen.so, ROCm's lib
    // folders), binds every entry point and creates a handle; nullptr with `why` on any
    // failure, and on a build for another platform than ROCm's.
    static std::unique_ptr<MiopenApi> load(std::string& why);
    // The first of `candidates` that loads, with every entry point bound (no handle yet);
    // nullptr with `why` naming what failed to load or the missing entry points.
    static std::unique_ptr<MiopenApi> open(const std::vector<std::string>& candidates,
                                           std::string& why);
};

// Where load() looks for the library, in order.
std::vector<std::string> miopen_library_candidates();

} // namespace gconv::worker
