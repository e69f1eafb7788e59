// The legacy API's path: descriptors with the groups as a count, cudnnFind*AlgorithmEx runs and
// times every algorithm it has on the real tensors, and its list (fastest first) is the answer.
#include "problem/conv_descriptor_geometry.h"
#include "worker/cudnn_search.h"

#include <memory>
#include <sstream>

namespace gconv::worker {

namespace {

// Freed when the last candidate that launches through them goes.
struct LegacyDescriptors {
    const CudnnApi* api = nullptr;
    cudnn::Descriptor x = nullptr, y = nullptr, w = nullptr, conv = nullptr;
    ~LegacyDescriptors() {
        if (x) api->destroy_tensor(x);
        if (y) api->destroy_tensor(y);
        if (w) api->destroy_filter(w);
        if (conv) api->destroy_conv(conv);
    }
};

const char* direction_name(Variant v) {
    return v == Variant::Forward ? "fwd" : v == Variant::BwdData ? "bwd_data" : "bwd_filter";
}

} // namespace

BaselineSearch legacy_search(CudnnApi& a, Variant variant, DataType dtype, const Problem& p,
                             const BaselineTensors& t, const BaselineWorkspace& ws) {
    BaselineSearch search;
    auto d = std::make_shared<LegacyDescriptors>();
    d->api = &a;
    auto check = [&](const char* call, cudnn::Status s) {
        if (s != cudnn::k_success && search.error.empty()) search.error = a.failure(call, s);
        return s == cudnn::k_success;
    };
    const ConvDescriptorGeometry g = conv_descriptor_geometry(p);
    const int type = cudnn_data_type(dtype);
    // The NHWC format takes dims in NC(D)HW order and makes them channels-last, which is
    // gconv's layout with the groups folded into the channels (conv_descriptor_geometry.h).
    const std::vector<int> x_dims = as_int32(g.input.dims), y_dims = as_int32(g.output.dims),
                           w_dims = as_int32(g.weight.dims), pad = as_int32(g.pad),
                           stride = as_int32(g.stride), dilation = as_int32(g.dilation);
    const int dims = int(x_dims.size());
    if (!check("cudnnCreateTensorDescriptor", a.create_tensor(&d->x)) ||
        !check("cudnnCreateTensorDescriptor", a.create_tensor(&d->y)) ||
        !check("cudnnCreateFilterDescriptor", a.create_filter(&d->w)) ||
        !check("cudnnCreateConvolutionDescriptor", a.create_conv(&d->conv)) ||
        !check("cudnnSetTensorNdDescriptorEx (input)",
               a.set_tensor(d->x, cudnn::k_nhwc, type, dims, x_dims.data())) ||
        !check("cudnnSetTensorNdDescriptorEx (output)",
               a.set_tensor(d->y, cudnn::k_nhwc, type, dims, y_dims.data())) ||
        !check("cudnnSetFilterNdDescriptor",
               a.set_filter(d->w, type, cudnn::k_nhwc, dims, w_dims.data())) ||
        !check("cudnnSetConvolutionNdDescriptor",
               a.set_conv(d->conv, g.spatial_dims, pad.data(), stride.data(), dilation.data(),
                          cudnn::k_cross_correlation, cudnn::k_float)) ||
        !check("cudnnSetConvolutionGroupCount", a.set_groups(d->conv, int(p.G))) ||
        // fp32 against gconv's SIMT fp32: no TF32 shortcuts for cuDNN either.
        !check("cudnnSetConvolutionMathType",
               a.set_math(d->conv,
                          dtype == DataType::FP32 ? cudnn::k_fma_math : cudnn::k_tensor_op_math)))
        return search;

    constexpr int k_algos = 16;
    cudnn::AlgoPerf perf[k_algos] = {};
    int found = 0;
    const char* find_name = "";
    cudnn::Status s = cudnn::k_success;
    switch (variant) {
    case Variant::Forward:
        find_name = "cudnnFindConvolutionForwardAlgorithmEx";
        s = a.find_fwd(a.handle, d->x, t.in, d->w, t.wei, d->conv, d->y, t.out, k_algos, &found,
                       perf, ws.data, ws.bytes);
        break;
    case Variant::BwdData:
        find_name = "cudnnFindConvolutionBackwardDataAlgorithmEx";
        s = a.find_bwd_data(a.handle, d->w, t.wei, d->y, t.out, d->conv, d->x, t.in, k_algos,
                            &found, perf, ws.data, ws.bytes);
        break;
    case Variant::BwdWeight:
        find_name = "cudnnFindConvolutionBackwardFilterAlgorithmEx";
        s = a.find_bwd_filter(a.handle, d->x, t.in, d->y, t.out, d->conv, d->w, t.wei, k_algos,
                              &found, perf, ws.data, ws.bytes);
        break;
    }
    if (!check(find_name, s)) return search;

    for (int i = 0; i < found; ++i) {
        const cudnn::AlgoPerf& r = perf[i];
        if (r.status != cudnn::k_success || r.memory > ws.bytes) continue;
        // The fp32 contract holds for the legacy path through the FMA math type; a
        // tensor-op result here would be TF32.
        if (dtype == DataType::FP32 && r.math_type == cudnn::k_tensor_op_math) {
            search.log.push_back("legacy algo " + std::to_string(r.algo) +
                                 " left out: tensor-op math on fp32 (TF32)");
            continue;
        }
        std::ostringstream name;
        name << "cudnn " << a.version() << " legacy " << direction_name(variant) << " algo "
             << r.algo << (r.math_type == cudnn::k_tensor_op_math ? " tensor-op" : "") << ", "
             << (r.memory + (1 << 20) - 1) / (1 << 20) << " MB workspace";
        BaselineCandidate c;
        c.name = name.str();
        c.search_ms = r.time;
        const int algo = r.algo;
        const size_t bytes = r.memory;
        CudnnApi* api = &a;
        void* workspace = ws.data;
        c.launch = [api, d, variant, algo, bytes, workspace, t]() {
            const float alpha = 1.0f, beta = 0.0f;
            switch (variant) {
            case Variant::Forward:
                return api->fwd(api->handle, &alpha, d->x, t.in, d->w, t.wei, d->conv, algo,
                                workspace, bytes, &beta, d->y, t.out);
            case Variant::BwdData:
                return api->bwd_data(api->handle, &alpha, d->w, t.wei, d->y, t.out, d->conv, algo,
                                     workspace, bytes, &beta, d->x, t.in);
            case Variant::BwdWeight:
                break;
            }
            return api->bwd_filter(api->handle, &alpha, d->x, t.in, d->y, t.out, d->conv, algo,
                                   workspace, bytes, &beta, d->w, t.wei);
        };
        search.candidates.push_back(std::move(c));
    }
    if (search.candidates.empty())
        search.error = std::string(find_name) + " found no algorithm that runs this problem";
    return search;
}

} // namespace gconv::worker
