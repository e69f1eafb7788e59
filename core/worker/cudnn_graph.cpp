// The graph (backend) API's path: one convolution node in an operation graph over gconv's
// tensors, the engine configurations of heuristic mode A and the fallback list, a plan built
// for each of the first few, each plan run and timed briefly, fastest first. This reaches the
// engines the legacy cudnnFind* does not (PyTorch calls cuDNN this way).
#include "problem/conv_descriptor_geometry.h"
#include "worker/cudnn_search.h"
#include "worker/launch_timer.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <set>
#include <sstream>

namespace gconv::worker {

namespace {

using Owned = std::shared_ptr<void>; // a backend descriptor, destroyed with its last owner

struct GraphError {
    std::string what;
};

class Backend {
public:
    explicit Backend(CudnnApi& api) : a_(api) {}

    Owned create(int type) const {
        void* d = nullptr;
        check("cudnnBackendCreateDescriptor", a_.backend_create(type, &d));
        CudnnApi* api = &a_;
        return Owned(d, [api](void* p) { api->backend_destroy(p); });
    }
    void set(const Owned& d, int name, int type, int64_t count, const void* v,
             const char* what) const {
        check(what, a_.backend_set(d.get(), name, type, count, v));
    }
    void set_ints(const Owned& d, int name, const std::vector<int64_t>& v, const char* what) const {
        set(d, name, cudnn::k_type_int64, int64_t(v.size()), v.data(), what);
    }
    void set_desc(const Owned& d, int name, const Owned& v, const char* what) const {
        void* p = v.get();
        set(d, name, cudnn::k_type_backend_descriptor, 1, &p, what);
    }
    void finalize(const Owned& d, const char* what) const {
        check(what, a_.backend_finalize(d.get()));
    }
    // Elements of an attribute; `out` holds `requested` slots.
    int64_t get(const Owned& d, int name, int type, int64_t requested, void* out,
                const char* what) const {
        int64_t count = 0;
        check(what, a_.backend_get(d.get(), name, type, requested, &count, out));
        return count;
    }
    void check(const char* what, cudnn::Status s) const {
        if (s != cudnn::k_success) throw GraphError{a_.failure(what, s)};
    }
    CudnnApi& api() const { return a_; }

private:
    CudnnApi& a_;
};

int64_t alignment_of(const void* p) {
    int64_t a = 1;
    const auto v = reinterpret_cast<uintptr_t>(p);
    while (a < 16 && v % uintptr_t(2 * a) == 0) a *= 2;
    return a;
}

Owned tensor(const Backend& b, const TensorGeometry& t, int type, int64_t uid, const void* data) {
    Owned d = b.create(cudnn::k_tensor_descriptor);
    b.set(d, cudnn::k_tensor_data_type, cudnn::k_type_data_type, 1, &type, "tensor data type");
    b.set_ints(d, cudnn::k_tensor_dimensions, t.dims, "tensor dimensions");
    b.set_ints(d, cudnn::k_tensor_strides, t.strides, "tensor strides");
    b.set_ints(d, cudnn::k_tensor_unique_id, {uid}, "tensor unique id");
    b.set_ints(d, cudnn::k_tensor_byte_alignment, {alignment_of(data)}, "tensor alignment");
    b.finalize(d, "cudnnBackendFinalize (tensor)");
    return d;
}

Owned convolution(const Backend& b, const ConvDescriptorGeometry& g) {
    Owned d = b.create(cudnn::k_convolution_descriptor);
    const int compute = cudnn::k_float, mode = cudnn::k_cross_correlation;
    b.set(d, cudnn::k_conv_comp_type, cudnn::k_type_data_type, 1, &compute, "conv compute type");
    b.set(d, cudnn::k_conv_mode, cudnn::k_type_convolution_mode, 1, &mode, "conv mode");
    b.set_ints(d, cudnn::k_conv_spatial_dims, {g.spatial_dims}, "conv spatial dims");
    b.set_ints(d, cudnn::k_conv_dilations, g.dilation, "conv dilations");
    b.set_ints(d, cudnn::k_conv_filter_strides, g.stride, "conv filter strides");
    b.set_ints(d, cudnn::k_conv_pre_paddings, g.pad, "conv pre paddings");
    b.set_ints(d, cudnn::k_conv_post_paddings, g.pad, "conv post paddings");
    b.finalize(d, "cudnnBackendFinalize (convolution)");
    return d;
}

// The tensors' unique ids in the graph and the variant pack.
constexpr int64_t k_uid_in = 1, k_uid_wei = 2, k_uid_out = 3;

Owned operation(const Backend& b, Variant variant, const Owned& conv, const Owned& in,
                const Owned& wei, const Owned& out) {
    struct Names {
        int type, alpha, beta, conv, in, wei, out;
    };
    using namespace cudnn;
    const Names n = variant == Variant::Forward   ? Names{k_op_conv_forward_descriptor,
                                                        k_fwd_alpha,
                                                        k_fwd_beta,
                                                        k_fwd_conv_desc,
                                                        k_fwd_x,
                                                        k_fwd_w,
                                                        k_fwd_y}
                    : variant == Variant::BwdData ? Names{k_op_conv_bwd_data_descriptor,
                                                          k_bwd_data_alpha,
                                                          k_bwd_data_beta,
                                                          k_bwd_data_conv_desc,
                                                          k_bwd_data_dx,
                                                          k_bwd_data_w,
                                                          k_bwd_data_dy}
                                                  : Names{k_op_conv_bwd_filter_descriptor,
                                                          k_bwd_filter_alpha,
                                                          k_bwd_filter_beta,
                                                          k_bwd_filter_conv_desc,
                                                          k_bwd_filter_x,
                                                          k_bwd_filter_dw,
                                                          k_bwd_filter_dy};
    Owned op = b.create(n.type);
    const float alpha = 1.0f, beta = 0.0f;
    b.set(op, n.alpha, k_type_float, 1, &alpha, "operation alpha");
    b.set(op, n.beta, k_type_float, 1, &beta, "operation beta");
    b.set_desc(op, n.conv, conv, "operation convolution");
    b.set_desc(op, n.in, in, "operation input tensor");
    b.set_desc(op, n.wei, wei, "operation weight tensor");
    b.set_desc(op, n.out, out, "operation output tensor");
    b.finalize(op, "cudnnBackendFinalize (convolution operation)");
    return op;
}

// The engine configurations a heuristic mode proposes, best first, at most `limit`.
std::vector<Owned> heuristic_configs(const Backend& b, const Owned& graph, int mode,
                                     int64_t limit) {
    Owned heur = b.create(cudnn::k_engineheur_descriptor);
    b.set_desc(heur, cudnn::k_heur_operation_graph, graph, "heuristics graph");
    b.set(heur, cudnn::k_heur_mode, cudnn::k_type_heur_mode, 1, &mode, "heuristics mode");
    b.finalize(heur, "cudnnBackendFinalize (engine heuristics)");
    const int64_t available = b.get(heur, cudnn::k_heur_results, cudnn::k_type_backend_descriptor,
                                    0, nullptr, "heuristics result count");
    std::vector<Owned> configs;
    std::vector<void*> raw;
    for (int64_t i = 0; i < std::min(available, limit); ++i) {
        configs.push_back(b.create(cudnn::k_enginecfg_descriptor));
        raw.push_back(configs.back().get());
    }
    if (raw.empty()) return configs;
    const int64_t got = b.get(heur, cudnn::k_heur_results, cudnn::k_type_backend_descriptor,
                              int64_t(raw.size()), raw.data(), "heuristics results");
    configs.resize(std::size_t(std::min<int64_t>(got, int64_t(configs.size()))));
    return configs;
}

const char* knob_name(int type) {
    switch (type) {
    case 1:
        return "swizzle";
    case 2:
        return "tile";
    case 4:
        return "edge";
    case 11:
        return "multiply";
    case 12:
        return "split_k_buf";
    case 13:
        return "tilek";
    case 14:
        return "stages";
    case 15:
        return "reduction";
    case 17:
        return "split_k_slc";
    case 18:
        return "idx_mode";
    case 23:
        return "specfilt";
    case 24:
        return "kernel_cfg";
    case 25:
        return "workspace";
    case 27:
        return "cga_m";
    case 28:
        return "cga_n";
    case 29:
        return "block";
    case 30:
        return "occupancy";
    case 38:
        return "stream_k";
    case 40:
        return "tile_m";
    case 41:
        return "tile_n";
    case 42:
        return "warp_spec";
    case 43:
        return "swap_ab";
    default:
        return nullptr;
    }
}

// What a configuration is: its engine, knob choices and notes, read back from cuDNN.
struct ConfigInfo {
    int64_t engine = -1;
    std::string knobs;
    std::vector<int> numerical, behavior;
    int64_t workspace = 0;
    bool has(int note) const {
        return std::find(numerical.begin(), numerical.end(), note) != numerical.end();
    }
};

ConfigInfo describe(const Backend& b, const Owned& cfg) {
    ConfigInfo info;
    Owned engine = b.create(cudnn::k_engine_descriptor);
    void* raw_engine = engine.get();
    b.get(cfg, cudnn::k_cfg_engine, cudnn::k_type_backend_descriptor, 1, &raw_engine,
          "engine config's engine");
    b.get(engine, cudnn::k_engine_global_index, cudnn::k_type_int64, 1, &info.engine,
          "engine global index");
    info.numerical.resize(cudnn::k_note_type_count);
    info.numerical.resize(std::size_t(b.get(engine, cudnn::k_engine_numerical_note,
                                            cudnn::k_type_numerical_note, cudnn::k_note_type_count,
                                            info.numerical.data(), "engine numerical notes")));
    info.behavior.resize(cudnn::k_behavior_type_count);
    info.behavior.resize(std::size_t(
        b.get(engine, cudnn::k_engine_behavior_note, cudnn::k_type_behavior_note,
              cudnn::k_behavior_type_count, info.behavior.data(), "engine behavior notes")));
    std::vector<Owned> choices;
    std::vector<void*> raw;
    for (int i = 0; i < cudnn::k_knob_type_count; ++i) {
        choices.push_back(b.create(cudnn::k_knob_choice_descriptor));
        raw.push_back(choices.back().get());
    }
    const int64_t n = b.get(cfg, cudnn::k_cfg_knob_choices, cudnn::k_type_backend_descriptor,
                            int64_t(raw.size()), raw.data(), "engine config's knob choices");
    std::ostringstream knobs;
    for (int64_t i = 0; i < std::min<int64_t>(n, int64_t(choices.size())); ++i) {
        int type = 0;
        int64_t value = 0;
        b.get(choices[std::size_t(i)], cudnn::k_knob_choice_type, cudnn::k_type_knob_type, 1, &type,
              "knob type");
        b.get(choices[std::size_t(i)], cudnn::k_knob_choice_value, cudnn::k_type_int64, 1, &value,
              "knob value");
        if (i) knobs << ' ';
        if (const char* name = knob_name(type))
            knobs << name;
        else
            knobs << 'k' << type;
        knobs << '=' << value;
    }
    info.knobs = knobs.str();
    b.get(cfg, cudnn::k_cfg_workspace_size, cudnn::k_type_int64, 1, &info.workspace,
          "engine config's workspace size");
    return info;
}

std::string notes_text(const ConfigInfo& info) {
    std::string out;
    auto add = [&](const char* s) {
        if (!out.empty()) out += ',';
        out += s;
    };
    if (info.has(cudnn::k_note_tensor_core)) add("tensor-core");
    if (info.has(cudnn::k_note_reduced_precision_reduction)) add("reduced-precision-reduction");
    if (info.has(cudnn::k_note_fft)) add("fft");
    if (info.has(cudnn::k_note_winograd)) add("winograd");
    if (info.has(cudnn::k_note_nondeterministic)) add("nondeterministic");
    if (std::find(info.behavior.begin(), info.behavior.end(),
                  cudnn::k_behavior_runtime_compilation) != info.behavior.end())
        add("runtime-compiled");
    return out;
}

int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    return end && *end == 0 && n > 0 ? int(n) : fallback;
}

} // namespace

BaselineSearch graph_search(CudnnApi& a, Variant variant, DataType dtype, const Problem& p,
                            const BaselineTensors& t, const BaselineWorkspace& ws,
                            hipStream_t stream) {
    BaselineSearch search;
    if (!a.has_graph()) {
        search.error = "the graph API is not available: cuDNN lacks " + a.graph_missing;
        return search;
    }
    // How many of heuristic mode A's configurations get a plan, how many more from the
    // fallback list, and the wall time the tuning may take per problem.
    const int from_heuristic = env_int("GCONV_CUDNN_GRAPH_CONFIGS", 16);
    const int from_fallback = env_int("GCONV_CUDNN_FALLBACK_CONFIGS", 8);
    const double budget_s = env_int("GCONV_CUDNN_TUNE_MS", 4000) / 1000.0;
    constexpr int k_tune_launches = 5;
    try {
        const Backend b(a);
        const ConvDescriptorGeometry g = conv_descriptor_geometry(p);
        const int type = cudnn_data_type(dtype);
        const Owned conv = convolution(b, g);
        const Owned in = tensor(b, g.input, type, k_uid_in, t.in);
        const Owned wei = tensor(b, g.weight, type, k_uid_wei, t.wei);
        const Owned out = tensor(b, g.output, type, k_uid_out, t.out);
        const Owned op = operation(b, variant, conv, in, wei, out);
        const Owned graph = b.create(cudnn::k_operation_graph_descriptor);
        b.set_desc(graph, cudnn::k_graph_ops, op, "operation graph ops");
        b.set(graph, cudnn::k_graph_handle, cudnn::k_type_handle, 1, &a.handle,
              "operation graph handle");
        b.finalize(graph, "cudnnBackendFinalize (operation graph)");

        std::vector<Owned> configs;
        std::vector<std::string> sources;
        std::ostringstream counts; // how many configurations each source gave
        for (const auto& [mode, limit, label] :
             {std::tuple{cudnn::k_heur_mode_a, from_heuristic, "heuristic A"},
              std::tuple{cudnn::k_heur_mode_fallback, from_fallback, "fallback"}}) {
            try {
                std::vector<Owned> found = heuristic_configs(b, graph, mode, limit);
                counts << (counts.tellp() ? ", " : "") << label << " " << found.size();
                for (Owned& c : found) {
                    configs.push_back(std::move(c));
                    sources.emplace_back(label);
                }
            } catch (const GraphError& e) {
                search.log.push_back(std::string(label) + " heuristics: " + e.what);
            }
        }

        struct Timed {
            BaselineCandidate candidate;
            float ms;
        };
        std::vector<Timed> timed;
        std::set<std::string> seen;
        LaunchTimer timer(k_tune_launches);
        const auto start = std::chrono::steady_clock::now();
        std::size_t tried = 0;
        for (std::size_t i = 0; i < configs.size(); ++i) {
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (elapsed > budget_s) {
                search.log.push_back("graph tuning budget (GCONV_CUDNN_TUNE_MS) spent after " +
                                     std::to_string(tried) + " of " +
                                     std::to_string(configs.size()) + " configurations");
                break;
            }
            std::string label = sources[i] + " #" + std::to_string(i);
            try {
                const ConfigInfo info = describe(b, configs[i]);
                const std::string key = std::to_string(info.engine) + "|" + info.knobs;
                if (!seen.insert(key).second) continue;
                ++tried;
                label = "engine " + std::to_string(info.engine) + " (" + info.knobs + ")";
                // Inputs rounded to a narrower type change the arithmetic, not just its speed.
                if (info.has(cudnn::k_note_down_convert_inputs)) {
                    search.log.push_back(label + " left out: it down-converts its inputs");
                    continue;
                }
                if (dtype == DataType::FP32 && info.has(cudnn::k_note_tensor_core)) {
                    search.log.push_back(label + " left out: tensor cores on fp32 (TF32)");
                    continue;
                }
                if (size_t(info.workspace) > ws.bytes) {
                    search.log.push_back(label + " left out: needs " +
                                         std::to_string(info.workspace >> 20) + " MB of workspace");
                    continue;
                }
                Owned plan = b.create(cudnn::k_execution_plan_descriptor);
                b.set(plan, cudnn::k_plan_handle, cudnn::k_type_handle, 1, &a.handle,
                      "plan handle");
                b.set_desc(plan, cudnn::k_plan_engine_config, configs[i], "plan engine config");
                b.finalize(plan, "cudnnBackendFinalize (execution plan)");
                int64_t plan_workspace = 0;
                b.get(plan, cudnn::k_plan_workspace_size, cudnn::k_type_int64, 1, &plan_workspace,
                      "plan workspace size");
                if (size_t(plan_workspace) > ws.bytes) {
                    search.log.push_back(label + " left out: its plan needs " +
                                         std::to_string(plan_workspace >> 20) + " MB of workspace");
                    continue;
                }
                Owned pack = b.create(cudnn::k_variant_pack_descriptor);
                const std::vector<int64_t> uids{k_uid_in, k_uid_wei, k_uid_out};
                void* pointers[3] = {t.in, t.wei, t.out};
                void* workspace = ws.data;
                b.set_ints(pack, cudnn::k_pack_unique_ids, uids, "variant pack ids");
                b.set(pack, cudnn::k_pack_data_pointers, cudnn::k_type_void_ptr, 3, pointers,
                      "variant pack pointers");
                b.set(pack, cudnn::k_pack_workspace, cudnn::k_type_void_ptr, 1, &workspace,
                      "variant pack workspace");
                b.finalize(pack, "cudnnBackendFinalize (variant pack)");

                BaselineCandidate c;
                std::ostringstream name;
                name << "cudnn " << a.version() << " graph " << label;
                const std::string notes = notes_text(info);
                if (!notes.empty()) name << " [" << notes << "]";
                name << ", " << ((plan_workspace + (1 << 20) - 1) >> 20) << " MB workspace";
                c.name = name.str();
                CudnnApi* api = &a;
                c.launch = [api, plan, pack]() {
                    return api->backend_execute(api->handle, plan.get(), pack.get());
                };
                // One untimed run (code loading, and a refusal shows here), then a few timed.
                b.check("cudnnBackendExecute (tuning)", c.launch());
                cudnn::Status status = cudnn::k_success;
                std::vector<float> ms = timer.run(stream, [&] {
                    const cudnn::Status s = c.launch();
                    if (s != cudnn::k_success) status = s;
                });
                b.check("cudnnBackendExecute (tuning)", status);
                std::sort(ms.begin(), ms.end());
                c.search_ms = ms[ms.size() / 2];
                timed.push_back({std::move(c), ms[ms.size() / 2]});
            } catch (const GraphError& e) {
                search.log.push_back(label + " left out: " + e.what);
            }
        }
        search.log.push_back("configurations: " + counts.str() + "; " + std::to_string(tried) +
                             " distinct tried, " + std::to_string(timed.size()) +
                             " planned, run and timed");
        std::stable_sort(timed.begin(), timed.end(),
                         [](const Timed& x, const Timed& y) { return x.ms < y.ms; });
        for (Timed& x : timed) search.candidates.push_back(std::move(x.candidate));
        if (search.candidates.empty())
            search.error = "no engine configuration of " + std::to_string(configs.size()) +
                           " built and ran (see the lines above)";
    } catch (const GraphError& e) {
        search.error = e.what;
    }
    return search;
}

} // namespace gconv::worker
