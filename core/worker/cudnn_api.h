#pragma once
// The cuDNN 9 entry points and constants gconv's baseline uses, declared by value so that no
// cuDNN header is needed to build gconv (values from cudnn_graph_v9.h / cudnn_cnn_v9.h; the C
// ABI is stable across 9.x). Loaded at run time from one dlopen'd library.
#include "config/enums.h"

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gconv::worker {

namespace cudnn {
using Handle = void*;
using Descriptor = void*; // legacy tensor / filter / convolution descriptors
using BackendDescriptor = void*;
using Status = int;
constexpr Status k_success = 0;
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

// The graph (backend) API: cudnnBackendDescriptorType_t
enum BackendType : int {
    k_convolution_descriptor = 1,
    k_engine_descriptor = 2,
    k_enginecfg_descriptor = 3,
    k_engineheur_descriptor = 4,
    k_execution_plan_descriptor = 5,
    k_knob_choice_descriptor = 7,
    k_op_conv_forward_descriptor = 10,
    k_op_conv_bwd_filter_descriptor = 11,
    k_op_conv_bwd_data_descriptor = 12,
    k_operation_graph_descriptor = 15,
    k_variant_pack_descriptor = 16,
    k_tensor_descriptor = 17,
};

// cudnnBackendAttributeType_t
enum AttributeType : int {
    k_type_handle = 0,
    k_type_data_type = 1,
    k_type_int64 = 3,
    k_type_float = 4,
    k_type_void_ptr = 6,
    k_type_convolution_mode = 7,
    k_type_heur_mode = 8,
    k_type_knob_type = 9,
    k_type_numerical_note = 11,
    k_type_backend_descriptor = 15,
    k_type_behavior_note = 19,
};

// cudnnBackendAttributeName_t
enum Attribute : int {
    k_conv_comp_type = 100,
    k_conv_mode = 101,
    k_conv_dilations = 102,
    k_conv_filter_strides = 103,
    k_conv_post_paddings = 104,
    k_conv_pre_paddings = 105,
    k_conv_spatial_dims = 106,
    k_heur_mode = 200,
    k_heur_operation_graph = 201,
    k_heur_results = 202,
    k_cfg_engine = 300,
    k_cfg_knob_choices = 302,
    k_cfg_workspace_size = 303,
    k_plan_handle = 400,
    k_plan_engine_config = 401,
    k_plan_workspace_size = 402,
    k_knob_choice_type = 600,
    k_knob_choice_value = 601,
    k_fwd_alpha = 700,
    k_fwd_beta = 701,
    k_fwd_conv_desc = 702,
    k_fwd_w = 703,
    k_fwd_x = 704,
    k_fwd_y = 705,
    k_bwd_data_alpha = 706,
    k_bwd_data_beta = 707,
    k_bwd_data_conv_desc = 708,
    k_bwd_data_w = 709,
    k_bwd_data_dx = 710,
    k_bwd_data_dy = 711,
    k_bwd_filter_alpha = 712,
    k_bwd_filter_beta = 713,
    k_bwd_filter_conv_desc = 714,
    k_bwd_filter_dw = 715,
    k_bwd_filter_x = 716,
    k_bwd_filter_dy = 717,
    k_graph_handle = 800,
    k_graph_ops = 801,
    k_tensor_byte_alignment = 900,
    k_tensor_data_type = 901,
    k_tensor_dimensions = 902,
    k_tensor_strides = 903,
    k_tensor_unique_id = 906,
    k_pack_unique_ids = 1000,
    k_pack_data_pointers = 1001,
    k_pack_workspace = 1003,
    k_engine_global_index = 1301,
    k_engine_numerical_note = 1303,
    k_engine_behavior_note = 1305,
};

constexpr int k_heur_mode_fallback = 2, k_heur_mode_a = 3; // cudnnBackendHeurMode_t
// cudnnBackendNumericalNote_t
constexpr int k_note_tensor_core = 0, k_note_down_convert_inputs = 1,
              k_note_reduced_precision_reduction = 2, k_note_fft = 3, k_note_nondeterministic = 4,
              k_note_winograd = 5, k_note_type_count = 10;
constexpr int k_behavior_runtime_compilation = 0, k_behavior_type_count = 5;
constexpr int k_knob_type_count = 44; // CUDNN_KNOB_TYPE_COUNTS
} // namespace cudnn

struct CudnnApi {
    void* library = nullptr;
    cudnn::Handle handle = nullptr;

    cudnn::Status (*create)(cudnn::Handle*);
    cudnn::Status (*destroy)(cudnn::Handle);
    cudnn::Status (*set_stream)(cudnn::Handle, hipStream_t);
    const char* (*error_string)(cudnn::Status);
    size_t (*get_version)();

    // Legacy API
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

    // Graph (backend) API; all null when the library lacks one of them (graph_missing says
    // which), and then only the legacy path runs.
    cudnn::Status (*backend_create)(int type, cudnn::BackendDescriptor*) = nullptr;
    cudnn::Status (*backend_destroy)(cudnn::BackendDescriptor) = nullptr;
    cudnn::Status (*backend_finalize)(cudnn::BackendDescriptor) = nullptr;
    cudnn::Status (*backend_set)(cudnn::BackendDescriptor, int name, int type, int64_t count,
                                 const void* elements) = nullptr;
    cudnn::Status (*backend_get)(cudnn::BackendDescriptor, int name, int type, int64_t requested,
                                 int64_t* count, void* elements) = nullptr;
    cudnn::Status (*backend_execute)(cudnn::Handle, cudnn::BackendDescriptor plan,
                                     cudnn::BackendDescriptor pack) = nullptr;
    std::string graph_missing; // empty when the graph API is there

    CudnnApi() = default;
    CudnnApi(const CudnnApi&) = delete;
    CudnnApi& operator=(const CudnnApi&) = delete;
    ~CudnnApi();

    bool has_graph() const { return graph_missing.empty() && backend_execute != nullptr; }
    std::string failure(const char* call, cudnn::Status s) const;
    std::string version() const;

    // nullptr with `why` set when cuDNN cannot be loaded (not installed, a legacy symbol
    // missing, not NVIDIA). Searches GCONV_CUDNN_LIBRARY, then libcudnn.so.9 / libcudnn.so on
    // the loader's path, then the nvidia-cudnn wheels of the system's Python.
    static std::unique_ptr<CudnnApi> load(std::string& why);
};

// cudnnDataType_t of a gconv data type.
int cudnn_data_type(DataType dtype);

} // namespace gconv::worker
