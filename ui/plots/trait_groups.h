#pragma once
// The ok rows grouped by one trait of their kernel (read back from the kernel's name), with a
// metric per row and box-plot statistics per group. Qt-free so that tests can check it.
#include "ui/plots/plot_data.h"

#include <string>
#include <string_view>
#include <vector>

namespace gconv::ui {

enum class KernelTrait {
    Pipeline,
    Scheduler,
    Tile,
    Epilogue,
    DoubleSmemBuffer,
    SplitImage,
    RuntimeFilter,
    ChannelPad,
    PixelsOnN,
    Cluster,
    GroupsToMerge,
    VectorWidths,
    WarpTile,
    WaveLayout,
};
const std::vector<KernelTrait>& kernel_traits();
// Short names as in kernel names and trait configs: "pipeline", "tile", "dsb", "gm", ...
std::string_view to_string(KernelTrait trait);
std::string trait_value(const KernelConfig& config, KernelTrait trait);
// The group of kernels whose name does not parse.
inline constexpr std::string_view k_other_trait_value = "other";

// Tukey box: quartiles, whiskers at the most extreme values within 1.5 IQR of the box.
struct BoxStats {
    double lowerWhisker = k_no_value, lowerQuartile = k_no_value, median = k_no_value,
           upperQuartile = k_no_value, upperWhisker = k_no_value;
    double minimum = k_no_value, maximum = k_no_value;
};
// `values` are reordered. Quartiles interpolate linearly between order statistics.
BoxStats box_stats(std::vector<double>& values);

struct TraitGroup {
    std::string value;
    std::vector<uint32_t> rows; // ok rows of kernels with this trait value, table order
    std::vector<double> values; // the metric of each of `rows`
    BoxStats box;
};

// Groups in natural order of their values ("64x..." before "128x..."), "other" last.
std::vector<TraitGroup> trait_groups(const ResultTable& table, const PlotIndex& index,
                                     const std::vector<ProblemBest>& best, KernelTrait trait,
                                     PlotMetric metric);

// Orders text with its digit runs compared as numbers.
bool natural_less(std::string_view a, std::string_view b);

} // namespace gconv::ui
