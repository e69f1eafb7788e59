#include "worker/miopen_baseline.h"

#include "problem/conv_descriptor_geometry.h"
#include "util/env_switch.h"

#include <sstream>

namespace gconv::worker {

namespace {

// Freed when the last candidate that launches through them goes.
struct MiopenDescriptors {
    const MiopenApi* api = nullptr;
    miopen::Descriptor x = nullptr, y = nullptr, w = nullptr, conv = nullptr;
    ~MiopenDescriptors() {
        for (miopen::Descriptor t : {x, y, w})
            if (t) api->destroy_tensor(t);
        if (conv) api->destroy_conv(conv);
    }
};

const char* direction_name(Variant v) {
    return v == Variant::Forward ? "fwd" : v == Variant::BwdData ? "bwd_data" : "bwd_weights";
}

bool exhaustive_search() {
    return env_switch_on("GCONV_MIOPEN_EXHAUSTIVE");
}

} // namespace

BaselineSearch miopen_search(MiopenApi& a, Variant variant, DataType dtype, const Problem& p,
                             const BaselineTensors& t, const BaselineWorkspace& ws,
                             bool exhaustive) {
    BaselineSearch search;
    auto d = std::make_shared<MiopenDescriptors>();
    d->api = &a;
    auto check = [&](const char* call, miopen::Status s) {
        if (s != miopen::k_success && search.error.empty()) search.error = a.failure(call, s);
        return s == miopen::k_success;
    };
    // Dimensions in N, C, (D), H, W order with gconv's channels-last element strides
    // (conv_descriptor_geometry.h): MIOpen takes the layout from the strides.
    const ConvDescriptorGeometry g = conv_descriptor_geometry(p);
    const int type = miopen_data_type(dtype);
    const std::vector<int> x_dims = as_int32(g.input.dims), x_strides = as_int32(g.input.strides),
                           y_dims = as_int32(g.output.dims), y_strides = as_int32(g.output.strides),
                           w_dims = as_int32(g.weight.dims), w_strides = as_int32(g.weight.strides),
                           pad = as_int32(g.pad), stride = as_int32(g.stride),
                           dilation = as_int32(g.dilation);
    const int dims = int(x_dims.size());
    if (!check("miopenCreateTensorDescriptor", a.create_tensor(&d->x)) ||
        !check("miopenCreateTensorDescriptor", a.create_tensor(&d->y)) ||
        !check("miopenCreateTensorDescriptor", a.create_tensor(&d->w)) ||
        !check("miopenCreateConvolutionDescriptor", a.create_conv(&d->conv)) ||
        !check("miopenSetTensorDescriptor (input)",
               a.set_tensor(d->x, type, dims, x_dims.data(), x_strides.data())) ||
        !check("miopenSetTensorDescriptor (output)",
               a.set_tensor(d->y, type, dims, y_dims.data(), y_strides.data())) ||
        !check("miopenSetTensorDescriptor (weight)",
               a.set_tensor(d->w, type, dims, w_dims.data(), w_strides.data())) ||
        !check("miopenInitConvolutionNdDescriptor",
               a.init_conv(d->conv, g.spatial_dims, pad.data(), stride.data(), dilation.data(),
                           miopen::k_convolution)) ||
        !check("miopenSetConvolutionGroupCount", a.set_groups(d->conv, int(p.G))))
        return search;

    // The searches need the direction's workspace query first (MIOpen's contract); a need
    // beyond the search workspace leaves the algorithms that need it out.
    size_t needed = 0;
    const char* size_name = "";
    miopen::Status s = miopen::k_success;
    switch (variant) {
    case Variant::Forward:
        size_name = "miopenConvolutionForwardGetWorkSpaceSize";
        s = a.fwd_workspace(a.handle, d->w, d->x, d->conv, d->y, &needed);
        break;
    case Variant::BwdData:
        size_name = "miopenConvolutionBackwardDataGetWorkSpaceSize";
        s = a.bwd_data_workspace(a.handle, d->y, d->w, d->conv, d->x, &needed);
        break;
    case Variant::BwdWeight:
        size_name = "miopenConvolutionBackwardWeightsGetWorkSpaceSize";
        s = a.bwd_weights_workspace(a.handle, d->y, d->x, d->conv, d->w, &needed);
        break;
    }
    if (!check(size_name, s)) return search;
    if (needed > ws.bytes)
        search.log.push_back("the widest algorithm wants " + std::to_string(needed >> 20) +
                             " MB of workspace, " + std::to_string(ws.bytes >> 20) +
                             " MB are there");

    constexpr int k_algos = 8;
    miopen::AlgoPerf perf[k_algos] = {};
    int found = 0;
    const char* find_name = "";
    switch (variant) {
    case Variant::Forward:
        find_name = "miopenFindConvolutionForwardAlgorithm";
        s = a.find_fwd(a.handle, d->x, t.in, d->w, t.wei, d->conv, d->y, t.out, k_algos, &found,
                       perf, ws.data, ws.bytes, exhaustive);
        break;
    case Variant::BwdData:
        find_name = "miopenFindConvolutionBackwardDataAlgorithm";
        s = a.find_bwd_data(a.handle, d->y, t.out, d->w, t.wei, d->conv, d->x, t.in, k_algos,
                            &found, perf, ws.data, ws.bytes, exhaustive);
        break;
    case Variant::BwdWeight:
        find_name = "miopenFindConvolutionBackwardWeightsAlgorithm";
        s = a.find_bwd_weights(a.handle, d->y, t.out, d->x, t.in, d->conv, d->w, t.wei, k_algos,
                               &found, perf, ws.data, ws.bytes, exhaustive);
        break;
    }
    if (!check(find_name, s)) return search;

    for (int i = 0; i < found; ++i) {
        const miopen::AlgoPerf& r = perf[i];
        if (r.memory > ws.bytes) {
            search.log.push_back("algo " + std::to_string(r.algo) + " left out: it wants " +
                                 std::to_string(r.memory >> 20) + " MB of workspace");
            continue;
        }
        std::ostringstream name;
        name << "miopen " << a.version() << " " << direction_name(variant) << " algo " << r.algo
             << ", " << (r.memory + (1 << 20) - 1) / (1 << 20) << " MB workspace";
        BaselineCandidate c;
        c.name = name.str();
        c.search_ms = r.time;
        const int algo = r.algo;
        const size_t bytes = r.memory;
        MiopenApi* api = &a;
        void* workspace = ws.data;
        c.launch = [api, d, variant, algo, bytes, workspace, t]() {
            const float alpha = 1.0f, beta = 0.0f;
            switch (variant) {
            case Variant::Forward:
                return api->fwd(api->handle, &alpha, d->x, t.in, d->w, t.wei, d->conv, algo, &beta,
                                d->y, t.out, workspace, bytes);
            case Variant::BwdData:
                return api->bwd_data(api->handle, &alpha, d->y, t.out, d->w, t.wei, d->conv, algo,
                                     &beta, d->x, t.in, workspace, bytes);
            case Variant::BwdWeight:
                break;
            }
            return api->bwd_weights(api->handle, &alpha, d->y, t.out, d->x, t.in, d->conv, algo,
                                    &beta, d->w, t.wei, workspace, bytes);
        };
        search.candidates.push_back(std::move(c));
    }
    if (search.candidates.empty() && search.error.empty())
        search.error = std::string(find_name) + " found no algorithm that runs this problem";
    return search;
}

std::unique_ptr<MiopenBaseline> MiopenBaseline::load(std::string& why) {
    std::unique_ptr<MiopenApi> api = MiopenApi::load(why);
    if (!api) return nullptr;
    return std::unique_ptr<MiopenBaseline>(new MiopenBaseline(std::move(api)));
}

MiopenBaseline::MiopenBaseline(std::unique_ptr<MiopenApi> api) : api_(std::move(api)) {}
MiopenBaseline::~MiopenBaseline() = default;

std::string MiopenBaseline::description() const {
    return "MIOpen " + api_->version() +
           (exhaustive_search() ? " (exhaustive search)" : " (search without tuning)");
}

BaselineResult MiopenBaseline::run(Variant variant, DataType dtype, const Problem& p,
                                   const BaselineTensors& t, hipStream_t stream, int warmup,
                                   int repeat, const BaselineVerifier& verify) {
    BaselineResult result;
    MiopenApi& a = *api_;
    if (const miopen::Status s = a.set_stream(a.handle, stream); s != miopen::k_success) {
        result.error = a.failure("miopenSetStream", s);
        return result;
    }
    const SearchWorkspace workspace;
    BaselineSearch found =
        miopen_search(a, variant, dtype, p, t, workspace.get(), exhaustive_search());
    SettledCandidate kept;
    if (!settle_candidates("find", found, stream, warmup, repeat, verify, result.log, kept)) {
        result.error = "MIOpen's search gave no verified algorithm";
        return result;
    }
    result.ok = true;
    result.algorithm = kept.name;
    result.launch_ms = std::move(kept.launch_ms);
    result.max_rel_err = kept.max_rel_err;
    return result;
}

} // namespace gconv::worker
