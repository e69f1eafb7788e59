#include "codegen/kernel_source.h"

#include "codegen/channel_pad.h"
#include "codegen/direct_mma_plan.h"
#include "codegen/direct_plan.h"
#include "codegen/direct_wgmma_plan.h"
#include "codegen/forward_view.h"
#include "codegen/kernel_entry.h"
#include "codegen/launch_plan.h"
#include "problem/problem.h"
#include "util/env_switch.h"

#include <sstream>
#include <string_view>

namespace gconv {
namespace {

// Codes understood by gconv_fwd.h / gconv_convert.h (declaration order of enums.h).
int code(DataType d) {
    return static_cast<int>(d);
}
int code(Pipeline p) {
    return static_cast<int>(p);
}
int code(Scheduler s) {
    return static_cast<int>(s);
}
int code(Epilogue e) {
    return static_cast<int>(e);
}

const char* cpp_bool(bool b) {
    return b ? "true" : "false";
}

const char* device_type(DataType d) {
    switch (d) {
    case DataType::BF16:
        return "gconv::bf16_t";
    case DataType::FP16:
        return "gconv::fp16_t";
    case DataType::FP32:
        return "float";
    }
    return "float";
}

// bwd_data as the forward kernel of its view (forward_view.h): that kernel's translation unit
// and the writer of the view's filter.
std::string generate_forward_view_source(const KernelConfig& c) {
    std::ostringstream s;
    s << "// gconv bwd_data kernel: the forward kernel below runs on the view of dOut\n"
      << generate_kernel_source(forward_twin(c)) << "\n#include \"gconv_rotate.h\"\n"
      << "extern \"C\" __global__ void " << rotate_filter_entry_name()
      << "(gconv::ConvParams p, void* workspace) {\n    gconv::rotate_filter<"
      << device_type(c.dtype) << ">(p, workspace);\n}\n";
    return s.str();
}

} // namespace

std::string_view kernel_entry_name() {
    return "gconv_main";
}
std::string_view finish_entry_name() {
    return "gconv_finish";
}

namespace {
bool reduces_through_workspace(const KernelConfig& c) {
    // bwd_weight's and forward's split-K: fp32 sums in a workspace, unless atomics add into an
    // fp32 output directly.
    return c.variant != Variant::BwdData &&
           (c.split_k_mode == SplitKMode::TwoStage ||
            (c.split_k_mode == SplitKMode::Atomic && c.dtype != DataType::FP32));
}
} // namespace

bool finishes_in_block(const KernelConfig& c) {
    // 2stage keeps its finish kernel (kernels/gconv_bwd_weight.h OutputOf says why), and so
    // does the forward wgmma pipeline, whose persistent walks store tiles in other epilogues.
    // bwd_weight's wgmma kernels (one cshuffle tile per block) can finish in their consumer
    // warpgroups, for now only with GCONV_WGMMA_FINISH_IN_BLOCK=1 in the environment of both
    // the sweep and its workers (the generated source and the launch sequence both follow it):
    // the finish kernel stays the default until a device run has timed the two side by side
    // (session 31 measured the L2 read-back of a tile's last split at 5-9 us on small forward
    // tiles; docs/notes/device-runs.md, session 39).
    if (c.variant == Variant::BwdData || !reduces_through_workspace(c) ||
        c.split_k_mode != SplitKMode::Atomic || is_direct(c) || is_direct_mma(c))
        return false;
    if (!uses_wgmma(c)) return true;
    return c.variant == Variant::BwdWeight && env_switch_on("GCONV_WGMMA_FINISH_IN_BLOCK");
}

bool has_finish_kernel(const KernelConfig& c) {
    // The direct pipelines' last block of each channel block converts its slice itself, the
    // GEMM pipelines' last block of each tile with atomic its tile.
    return reduces_through_workspace(c) && !is_direct_mma(c) && !is_direct(c) &&
           !finishes_in_block(c);
}

std::size_t split_ticket_bytes(const KernelConfig& c, const Problem& p) {
    if (!finishes_in_block(c)) return 0;
    // One ticket per output tile: the grid without its splits.
    const LaunchPlan plan = plan_launch(c, p);
    const int64_t tiles = int64_t{plan.grid_x} * plan.grid_y * (plan.grid_z / c.split_k);
    return static_cast<std::size_t>(tiles * 4);
}

std::string generate_kernel_source(const KernelConfig& c, const ModuleEntries& entries) {
    if (is_direct_mma(c))
        return generate_direct_mma_source(c, entries); // its view reads the filter
    if (runs_forward_view(c)) return generate_forward_view_source(c);
    if (is_direct(c)) return generate_direct_source(c, entries);
    if (is_direct_wgmma(c)) return generate_direct_wgmma_source(c);
    std::ostringstream s;
    s << "// gconv generated kernel: " << to_string(c.variant) << ' ' << to_string(c.dtype) << ' '
      << c.ndim_spatial << "d tile " << c.tile_m << 'x' << c.tile_n << 'x' << c.tile_k << " waves "
      << c.wave_m << 'x' << c.wave_n << 'x' << c.wave_k << " warp tile " << c.warp_tile_m << 'x'
      << c.warp_tile_n << 'x' << c.warp_tile_k << ' ' << to_string(c.pipeline) << ' '
      << to_string(c.scheduler) << ' ' << to_string(c.epilogue) << " vec " << c.vector_size_a << '/'
      << c.vector_size_b << '/' << c.vector_size_c << " gm " << c.num_groups_to_merge
      << (c.double_smem_buffer ? " dsb" : "") << (c.split_image ? " si" : "")
      << (c.channel_pad ? " cpad" : "") << " pad " << c.pad_m << c.pad_n << c.pad_k << " bpc "
      << c.block_per_cu << (c.cluster_n > 1 ? " cn" + std::to_string(c.cluster_n) : "")
      << (c.cluster_k > 1 ? " ck" + std::to_string(c.cluster_k) : "")
      << (c.pixels_on_n ? " pn" : "") << "\n";
    const char* header = c.variant == Variant::Forward   ? "gconv_fwd.h"
                         : c.variant == Variant::BwdData ? "gconv_bwd_data.h"
                                                         : "gconv_bwd_weight.h";
    s << "#include \"" << header << "\"\n\n";
    s << "struct GconvConfig {\n";
    auto field = [&](const char* type, const char* name, auto value) {
        s << "    static constexpr " << type << ' ' << name << " = " << value << ";\n";
    };
    field("int", "kDType", code(c.dtype));
    field("int", "kNdim", c.ndim_spatial);
    field("int", "kTileM", c.tile_m);
    field("int", "kTileN", c.tile_n);
    field("int", "kTileK", c.tile_k);
    field("int", "kWaveM", c.wave_m);
    field("int", "kWaveN", c.wave_n);
    field("int", "kWarpTileM", c.warp_tile_m);
    field("int", "kWarpTileN", c.warp_tile_n);
    field("int", "kWarpTileK", c.warp_tile_k);
    field("int", "kPipeline", code(c.pipeline));
    field("int", "kScheduler", code(c.scheduler));
    field("int", "kEpilogue", code(c.epilogue));
    field("int", "kVecA", c.vector_size_a);
    field("int", "kVecB", c.vector_size_b);
    field("int", "kVecC", c.vector_size_c);
    field("int", "kGroupsToMerge", c.num_groups_to_merge);
    field("int", "kClusterN", c.cluster_n);
    field("int", "kClusterK", c.cluster_k);
    field("bool", "kPixelsOnN", cpp_bool(c.pixels_on_n));
    field("bool", "kDsb", cpp_bool(c.double_smem_buffer));
    field("bool", "kSplitImage", cpp_bool(c.split_image));
    field("bool", "kPadM", cpp_bool(c.pad_m));
    field("bool", "kPadN", cpp_bool(c.pad_n));
    field("bool", "kPadK", cpp_bool(c.pad_k));
    field("bool", "kUseMma", cpp_bool(uses_mma(c)));
    field("bool", "kWgmma", cpp_bool(uses_wgmma(c)));
    field("int", "kStages", pipeline_stages(c));
    field("int", "kCPasses", c_buffer_passes(c));
    field("int", "kSmemBytes", shared_bytes(c));
    if (c.variant != Variant::BwdData) {
        field("int", "kSplitK", c.split_k);
        field("int", "kSplitKMode", static_cast<int>(c.split_k_mode));
        field("bool", "kFinishInBlock", cpp_bool(finishes_in_block(c)));
    }
    s << "};\n\n";
    write_entry_points(s, c, block_warps(c),
                       {"gconv::fwd::run", "gconv::bwd_data::run", "gconv::bwd_weight::run"});
    if (c.channel_pad)
        s << "\n#include \"gconv_pad.h\"\nextern \"C\" __global__ void "
          << pad_channels_entry_name()
          << "(gconv::ConvParams p, void* workspace) {\n    gconv::pad_channels<"
          << device_type(c.dtype) << ">(p, workspace);\n}\n";
    return s.str();
}

std::string generate_reference_source(DataType dtype) {
    const std::string t = device_type(dtype);
    std::ostringstream s;
    s << "// gconv verification kernels for " << to_string(dtype) << "\n"
      << "#include \"gconv_reference.h\"\n"
      << "#include \"gconv_verify.h\"\n\n"
      << "extern \"C\" __global__ void " << reference_entry::forward
      << "(gconv::ConvParams p, float* result) { gconv::ref::forward<" << t << ">(p, result); }\n"
      << "extern \"C\" __global__ void " << reference_entry::bwd_data
      << "(gconv::ConvParams p, float* result) { gconv::ref::bwd_data<" << t << ">(p, result); }\n"
      << "extern \"C\" __global__ void " << reference_entry::bwd_weight
      << "(gconv::ConvParams p, float* result) { gconv::ref::bwd_weight<" << t
      << ">(p, result); }\n"
      << "extern \"C\" __global__ void " << reference_entry::fill_random
      << "(void* dst, long long n, unsigned long long seed, float scale) { "
         "gconv::ref::fill_random<"
      << t << ">(dst, n, seed, scale); }\n"
      << "extern \"C\" __global__ void " << reference_entry::fill_poison
      << "(void* dst, long long n) { gconv::ref::fill_poison<" << t << ">(dst, n); }\n"
      << "extern \"C\" __global__ void " << reference_entry::fill_poison_f32
      << "(void* dst, long long n) { gconv::ref::fill_poison<float>(dst, n); }\n"
      << "extern \"C\" __global__ void " << reference_entry::verify
      << "(const void* out, const float* ref, long long n, float limit, unsigned* tally) { "
         "gconv::verify::compare<"
      << t << ">(out, ref, n, limit, tally); }\n"
      << "extern \"C\" __global__ void " << reference_entry::abs_max
      << "(const float* values, long long n, unsigned* tally) { "
         "gconv::verify::abs_max(values, n, tally); }\n";
    return s.str();
}

} // namespace gconv
