// The translation unit of a wgmma direct kernel (kernels/gconv_direct_wgmma.h): its config struct
// holds only the knobs that kernel reads.
#include "codegen/direct_wgmma_plan.h"
#include "codegen/kernel_entry.h"

#include <sstream>

namespace gconv {

std::string generate_direct_wgmma_source(const KernelConfig& c) {
    std::ostringstream s;
    s << "// gconv generated kernel: " << to_string(c.variant) << ' ' << to_string(c.dtype) << ' '
      << c.ndim_spatial << "d direct_wgmma pixels " << c.tile_m << " channels " << c.tile_n << " C "
      << c.tile_k << " consumers " << direct_wgmma_consumers(c) << "\n";
    s << "#include \"gconv_direct_wgmma.h\"\n";
    s << "\nstruct GconvConfig {\n";
    auto field = [&](const char* name, int value) {
        s << "    static constexpr int " << name << " = " << value << ";\n";
    };
    field("kDType", static_cast<int>(c.dtype));
    field("kPipeline", static_cast<int>(c.pipeline));
    field("kTileM", c.tile_m);
    field("kTileN", c.tile_n);
    field("kCin", c.tile_k);
    field("kConsumers", direct_wgmma_consumers(c));
    s << "};\n";
    s << "static_assert(GconvConfig::kPipeline == gconv::direct_wgmma::kPipelineCode, \"pipeline "
         "code\");\n\n";
    write_entry_points(s, c, c.warps(), {"gconv::direct_wgmma::forward", {}, {}});
    return s.str();
}

} // namespace gconv
