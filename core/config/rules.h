#pragma once
// Legality of a (configuration, architecture) pair: the one place that decides which kernels
// exist. Nothing is rewritten: an illegal configuration is culled with every reason it fails.
#include "config/arch_spec.h"
#include "config/kernel_config.h"

#include <string>
#include <string_view>
#include <vector>

namespace gconv {

// Stable identifiers of the rules, for tests, --explain and filters over culled configs.
enum class Rule {
    SpatialDims,
    TileShape,
    VariantPipeline,
    PipelineHardware,
    SchedulerPipeline,
    DoubleBuffer,
    WaveGroups,
    WaveLayout,
    WarpTile,
    WarpCoverage,
    ThreadCount,
    VectorWidth,
    SharedMemory,
    Registers,
    GroupMerge,
    BlocksPerCu,
    SplitK,
    Epilogue,
    Direct,
    Wgmma,
    DirectMma,
    DirectWgmma,
    RuntimeFilter,
    ChannelPad,
    Cluster,
    Where, // the trait config's own "where" filter, not the architecture
};
std::string_view rule_id(Rule rule);

struct CullReason {
    Rule rule;
    std::string message;
};

// Threads per block of a configuration on an architecture.
int block_threads(const KernelConfig& config, const ArchSpec& arch);

std::vector<CullReason> check_legality(const KernelConfig& config, const ArchSpec& arch,
                                       const ArchSpecs& specs);

} // namespace gconv
