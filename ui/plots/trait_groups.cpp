#include "ui/plots/trait_groups.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

namespace gconv::ui {
namespace {

std::string triple(int a, int b, int c) {
    return std::to_string(a) + "x" + std::to_string(b) + "x" + std::to_string(c);
}

// The q-quantile of values[0, n) (linear between order statistics); reorders `values`.
double quantile(std::vector<double>& values, double q) {
    const double h = double(values.size() - 1) * q;
    const auto lo = static_cast<std::ptrdiff_t>(std::floor(h));
    std::nth_element(values.begin(), values.begin() + lo, values.end());
    const double below = values[size_t(lo)];
    if (size_t(lo) + 1 >= values.size()) return below;
    const double above = *std::min_element(values.begin() + lo + 1, values.end());
    return below + (h - double(lo)) * (above - below);
}

} // namespace

const std::vector<KernelTrait>& kernel_traits() {
    static const std::vector<KernelTrait> all{
        KernelTrait::Pipeline,      KernelTrait::Scheduler,        KernelTrait::Tile,
        KernelTrait::Epilogue,      KernelTrait::DoubleSmemBuffer, KernelTrait::SplitImage,
        KernelTrait::RuntimeFilter, KernelTrait::ChannelPad,       KernelTrait::PixelsOnN,
        KernelTrait::Cluster,       KernelTrait::GroupsToMerge,    KernelTrait::VectorWidths,
        KernelTrait::WarpTile,      KernelTrait::WaveLayout};
    return all;
}

std::string_view to_string(KernelTrait trait) {
    switch (trait) {
    case KernelTrait::Pipeline:
        return "pipeline";
    case KernelTrait::Scheduler:
        return "scheduler";
    case KernelTrait::Tile:
        return "tile";
    case KernelTrait::Epilogue:
        return "epilogue";
    case KernelTrait::DoubleSmemBuffer:
        return "dsb";
    case KernelTrait::SplitImage:
        return "si";
    case KernelTrait::RuntimeFilter:
        return "kx";
    case KernelTrait::ChannelPad:
        return "cpad";
    case KernelTrait::PixelsOnN:
        return "pn";
    case KernelTrait::Cluster:
        return "cluster";
    case KernelTrait::GroupsToMerge:
        return "gm";
    case KernelTrait::VectorWidths:
        return "vector";
    case KernelTrait::WarpTile:
        return "warp_tile";
    case KernelTrait::WaveLayout:
        return "wave_layout";
    }
    return "?";
}

std::string trait_value(const KernelConfig& c, KernelTrait trait) {
    switch (trait) {
    case KernelTrait::Pipeline:
        return std::string(to_string(c.pipeline));
    case KernelTrait::Scheduler:
        return std::string(to_string(c.scheduler));
    case KernelTrait::Tile:
        return triple(c.tile_m, c.tile_n, c.tile_k);
    case KernelTrait::Epilogue:
        return std::string(to_string(c.epilogue));
    case KernelTrait::DoubleSmemBuffer:
        return c.double_smem_buffer ? "dsb" : "no dsb";
    case KernelTrait::SplitImage:
        return c.split_image ? "si" : "no si";
    case KernelTrait::RuntimeFilter:
        return c.runtime_filter ? "kx" : "no kx";
    case KernelTrait::ChannelPad:
        return c.channel_pad ? "cpad" : "no cpad";
    case KernelTrait::PixelsOnN:
        return c.pixels_on_n ? "pn" : "no pn";
    case KernelTrait::Cluster: // the rules admit one cluster shape at a time
        return c.cluster_k > 1 ? "ck" + std::to_string(c.cluster_k)
                               : "cn" + std::to_string(c.cluster_n);
    case KernelTrait::GroupsToMerge:
        return "gm" + std::to_string(c.num_groups_to_merge);
    case KernelTrait::VectorWidths:
        return triple(c.vector_size_a, c.vector_size_b, c.vector_size_c);
    case KernelTrait::WarpTile:
        return triple(c.warp_tile_m, c.warp_tile_n, c.warp_tile_k);
    case KernelTrait::WaveLayout:
        return triple(c.wave_m, c.wave_n, c.wave_k);
    }
    return std::string(k_other_trait_value);
}

BoxStats box_stats(std::vector<double>& values) {
    BoxStats box;
    if (values.empty()) return box;
    box.lowerQuartile = quantile(values, 0.25);
    box.median = quantile(values, 0.5);
    box.upperQuartile = quantile(values, 0.75);
    const double reach = 1.5 * (box.upperQuartile - box.lowerQuartile);
    box.minimum = box.maximum = values.front();
    box.lowerWhisker = box.upperQuartile;
    box.upperWhisker = box.lowerQuartile;
    for (double v : values) {
        box.minimum = std::min(box.minimum, v);
        box.maximum = std::max(box.maximum, v);
        if (v >= box.lowerQuartile - reach) box.lowerWhisker = std::min(box.lowerWhisker, v);
        if (v <= box.upperQuartile + reach) box.upperWhisker = std::max(box.upperWhisker, v);
    }
    return box;
}

bool natural_less(std::string_view a, std::string_view b) {
    size_t i = 0, j = 0;
    auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
    while (i < a.size() && j < b.size()) {
        if (digit(a[i]) && digit(b[j])) {
            size_t ie = i, je = j;
            while (ie < a.size() && digit(a[ie])) ++ie;
            while (je < b.size() && digit(b[je])) ++je;
            // Compare the runs as numbers without overflow: strip zeros, then length, then text.
            std::string_view x = a.substr(i, ie - i), y = b.substr(j, je - j);
            while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
            while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
            if (x.size() != y.size()) return x.size() < y.size();
            if (x != y) return x < y;
            i = ie, j = je;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i, ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

std::vector<TraitGroup> trait_groups(const ResultTable& table, const PlotIndex& index,
                                     const std::vector<ProblemBest>& best, KernelTrait trait,
                                     PlotMetric metric) {
    std::vector<TraitGroup> groups;
    std::unordered_map<std::string, uint32_t> group_ids;
    std::vector<uint32_t> group_of_kernel;
    group_of_kernel.reserve(index.kernels().size());
    for (const auto& kernel : index.kernels()) {
        const std::string value =
            kernel.config ? trait_value(*kernel.config, trait) : std::string(k_other_trait_value);
        auto [it, added] = group_ids.try_emplace(value, uint32_t(groups.size()));
        if (added) groups.push_back({value, {}, {}, {}});
        group_of_kernel.push_back(it->second);
    }

    const MetricReader read(table, index, best, metric);
    for (size_t row = 0; row < index.rows(); ++row) {
        if (!index.ok(row)) continue;
        const double v = read(row);
        if (!has_value(v)) continue;
        TraitGroup& g = groups[group_of_kernel[index.kernelOf(row)]];
        g.rows.push_back(uint32_t(row));
        g.values.push_back(v);
    }
    std::erase_if(groups, [](const TraitGroup& g) { return g.rows.empty(); });
    for (auto& g : groups) {
        std::vector<double> scratch = g.values;
        g.box = box_stats(scratch);
    }
    std::sort(groups.begin(), groups.end(), [](const TraitGroup& a, const TraitGroup& b) {
        const bool a_other = a.value == k_other_trait_value;
        const bool b_other = b.value == k_other_trait_value;
        if (a_other != b_other) return b_other;
        return natural_less(a.value, b.value);
    });
    return groups;
}

} // namespace gconv::ui
