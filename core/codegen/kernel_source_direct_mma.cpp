// The translation unit of a tensor-core direct kernel (kernels/gconv_direct_mma.h): its config
// struct holds only the knobs that kernel reads.
#include "codegen/direct_mma_plan.h"
#include "codegen/forward_view.h"
#include "codegen/kernel_entry.h"
#include "codegen/kernel_source.h"

#include <sstream>

namespace gconv {

std::string generate_direct_mma_source(const KernelConfig& c, const ModuleEntries& entries) {
    std::ostringstream s;
    const bool weight = c.variant == Variant::BwdWeight;
    // bwd_data: the forward kernel on the view of dOut, reading the stored filter rotated.
    const bool view = runs_forward_view(c);
    const int warps = c.wave_m * c.wave_n * c.wave_k;
    s << "// gconv generated kernel: " << to_string(c.variant) << ' ' << to_string(c.dtype) << ' '
      << c.ndim_spatial << "d direct_mma pixels " << c.tile_m << " channels " << c.tile_n << " C/G "
      << c.tile_k << " warp tile m " << c.warp_tile_m << " warps " << warps
      << (c.double_smem_buffer ? " dsb" : "")
      << (weight ? " split_k " + std::to_string(c.split_k) : "") << " bpc " << c.block_per_cu
      << "\n";
    s << (weight ? "#include \"gconv_direct_mma_weight.h\"\n"
                 : "#include \"gconv_direct_mma.h\"\n");
    s << "\nstruct GconvConfig {\n";
    auto field = [&](const char* name, int value) {
        s << "    static constexpr int " << name << " = " << value << ";\n";
    };
    field("kDType", static_cast<int>(c.dtype));
    field("kPipeline", static_cast<int>(c.pipeline));
    field("kNdim", c.ndim_spatial);
    field("kTileM", c.tile_m);
    field("kTileN", c.tile_n);
    field("kCpg", c.tile_k);
    field("kWarpTileM", c.warp_tile_m);
    field("kWarps", warps);
    field("kKSplit", weight ? 1 : c.wave_k);
    field("kDoubleBuffer", c.double_smem_buffer ? 1 : 0);
    field("kViewFilter", view ? 1 : 0);
    if (weight) {
        field("kPairWarps", c.wave_m);
        field("kPixelWarps", c.wave_n);
    }
    s << "};\n";
    s << "static_assert(GconvConfig::kPipeline == gconv::direct_mma::kPipelineCode, \"pipeline "
         "code\");\n\n";
    write_entry_points(s, view ? forward_twin(c) : c, warps,
                       {"gconv::direct_mma::forward", {}, "gconv::direct_mma::bwd_weight"});
    if (view && entries.holds(direct_mma_phases_entry_name()))
        s << "extern \"C\" __global__ void GCONV_LAUNCH_BOUNDS(GCONV_WARP_SIZE * " << warps << ", "
          << c.block_per_cu << ")\n"
          << direct_mma_phases_entry_name() << "(gconv::ConvParams p) {\n"
          << "    gconv::direct_mma::bwd_data_phases<GconvConfig>(p);\n}\n";
    return s.str();
}

} // namespace gconv
