// The translation unit of a direct-convolution kernel (kernels/gconv_direct.h): its config
// struct holds only the knobs the direct kernels read.
#include "codegen/direct_plan.h"
#include "codegen/kernel_entry.h"
#include "codegen/kernel_source.h"

#include <sstream>

namespace gconv {

std::string generate_direct_source(const KernelConfig& c, const ModuleEntries& entries) {
    std::ostringstream s;
    const int warps = c.wave_m * c.wave_n * c.wave_k;
    s << "// gconv generated kernel: " << to_string(c.variant) << ' ' << to_string(c.dtype) << ' '
      << c.ndim_spatial << "d direct tile " << c.tile_m << 'x' << c.tile_n << 'x' << c.tile_k
      << " vec " << c.vector_size_a << " warps " << warps << " bpc " << c.block_per_cu << ' '
      << to_string(c.split_k_mode) << "\n";
    const bool staged = is_direct_staged(c), tc = is_direct_tc(c);
    s << (tc       ? "#include \"gconv_direct_tc.h\"\n"
          : staged ? "#include \"gconv_direct_staged.h\"\n"
                   : "#include \"gconv_direct.h\"\n");
    if (has_finish_kernel(c)) s << "#include \"gconv_bwd_weight.h\"\n";
    s << "\nstruct GconvConfig {\n";
    auto field = [&](const char* name, int value) {
        s << "    static constexpr int " << name << " = " << value << ";\n";
    };
    field("kDType", static_cast<int>(c.dtype));
    field("kNdim", c.ndim_spatial);
    field("kPipeline", static_cast<int>(c.pipeline));
    field("kTileM", c.tile_m);
    field("kTileN", c.tile_n);
    field("kTileK", c.tile_k);
    field("kWarps", warps);
    field("kVec", c.vector_size_a);
    field("kSplitK", c.split_k);
    field("kSplitKMode", static_cast<int>(c.split_k_mode));
    int cpg_mask = 0; // bit b: C/G 2^b (gconv_direct.h by_cpg)
    for (int b = 0; b < 4; ++b) cpg_mask |= entries.holds_cpg(1 << b) ? 1 << b : 0;
    field("kCpgMask", cpg_mask);
    // bwd_weight's generic entry: bit 4 b + i holds C/G 2^b with k_direct_row_taps[i] taps.
    int row_taps_mask = 0;
    for (int b = 0; b < 4; ++b)
        for (int i = 0; i < 4; ++i)
            if (entries.holds_row_taps(1 << b, k_direct_row_taps[i]))
                row_taps_mask |= 1 << (4 * b + i);
    field("kRowTapsMask", row_taps_mask);
    // bwd_weight's K x K strips: the host's constants, which its grid and entry choice use.
    field("kWeightStrip", k_direct_weight_strip);
    field("kStripAccumulators", k_direct_max_strip_accumulators);
    if (staged) { // the host's constants of direct_staged_geometry() and the weights' place
        field("kStagedWalk", k_direct_staged_walk);
        field("kStagedMaxCols", k_direct_staged_max_cols);
        field("kStagedRegisterWeights", k_direct_staged_register_weights);
    }
    s << "};\n";
    s << "static_assert(GconvConfig::kPipeline == gconv::direct::kPipelineCode, \"pipeline "
         "code\");\n\n";
    if (staged || tc) {
        // Every module carries gconv_main (the build preloads it), but is_supported admits a
        // staged or tensor-core kernel only for problems its K x K entries run, so the plan
        // never launches it.
        s << "extern \"C\" __global__ void " << kernel_entry_name() << "(gconv::ConvParams p"
          << (c.variant == Variant::Forward ? "" : ", void* workspace") << ") {\n    (void)p;\n"
          << (c.variant == Variant::Forward ? "" : "    (void)workspace;\n")
          << "    gconv::arch::trap();\n}\n";
        if (has_finish_kernel(c)) write_finish_entry(s, "gconv::bwd_weight::finish");
    } else {
        write_entry_points(
            s, c, warps,
            {"gconv::direct::forward", "gconv::direct::bwd_data", "gconv::direct::bwd_weight"});
    }
    // The tensor-core entries that read the filter size at run time (bwd_weight's always, the
    // others' with runtime_filter): one per stride.
    if (direct_reads_filter_at_run_time(c)) {
        const bool fwd = c.variant == Variant::Forward;
        for (int stride : {1, 2}) {
            const std::string name = direct_filter_entry_name(k_direct_any_filter, stride);
            if (!entries.holds(name)) continue;
            s << "extern \"C\" __global__ void GCONV_LAUNCH_BOUNDS(GCONV_WARP_SIZE * " << warps
              << ", " << c.block_per_cu << ")\n"
              << name << "(gconv::ConvParams p" << (fwd ? "" : ", void* workspace") << ") {\n";
            if (c.variant == Variant::BwdWeight)
                s << "    gconv::direct::tc_bwd_weight<GconvConfig, " << stride
                  << ">(p, workspace);\n}\n";
            else
                s << (fwd ? "" : "    (void)workspace;\n")
                  << "    gconv::direct::" << (fwd ? "tc_forward" : "tc_bwd_data")
                  << "<GconvConfig, 0, " << stride << ">(p);\n}\n";
        }
        return s.str();
    }
    // One entry per specialised filter size besides the generic one, so each gets its own
    // register allocation; the launch plan picks by problem (direct_entry_name).
    for (int k : k_direct_filters) {
        const bool fwd = c.variant == Variant::Forward;
        if (direct_has_stride_2_entries(c) && entries.holds(direct_filter_entry_name(k, 2))) {
            s << "extern \"C\" __global__ void GCONV_LAUNCH_BOUNDS(GCONV_WARP_SIZE * " << warps
              << ", " << c.block_per_cu << ")\n"
              << direct_filter_entry_name(k, 2) << "(gconv::ConvParams p"
              << (fwd ? "" : ", void* workspace") << ") {\n"
              << (fwd ? "" : "    (void)workspace;\n") << "    gconv::direct::"
              << (staged ? "staged_forward"
                  : fwd  ? "tc_forward"
                         : "tc_bwd_data")
              << "<GconvConfig, " << k << ", 2>(p);\n}\n";
        }
        const std::string name = direct_filter_entry_name(k);
        if (!entries.holds(name)) continue;
        const std::string head =
            "extern \"C\" __global__ void GCONV_LAUNCH_BOUNDS(GCONV_WARP_SIZE * " +
            std::to_string(warps) + ", " + std::to_string(c.block_per_cu) + ")\n" + name;
        const std::string cfg = "<GconvConfig, " + std::to_string(k) + ">";
        switch (c.variant) {
        case Variant::Forward:
            s << head << "(gconv::ConvParams p) {\n    gconv::direct::"
              << (tc       ? "tc_forward"
                  : staged ? "staged_forward"
                           : "forward_filter")
              << cfg << "(p);\n}\n";
            break;
        case Variant::BwdData:
            s << head << "(gconv::ConvParams p, void* workspace) {\n    (void)workspace;\n"
              << "    gconv::direct::"
              << (tc       ? "tc_bwd_data"
                  : staged ? "staged_bwd_data"
                           : "bwd_data_filter")
              << cfg << "(p);\n}\n";
            break;
        case Variant::BwdWeight:
            if (direct_weight_strip_fits(c, k))
                s << head << "(gconv::ConvParams p, void* workspace) {\n"
                  << "    gconv::direct::bwd_weight_filter" << cfg << "(p, workspace);\n}\n";
            break;
        }
    }
    return s.str();
}

} // namespace gconv
