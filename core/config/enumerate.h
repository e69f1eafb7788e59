#pragma once
// The kernel pool of a trait config on an architecture: the cartesian product of its axes,
// split into legal configurations and culled ones (each with its reasons).
#include "config/arch_spec.h"
#include "config/kernel_config.h"
#include "config/rules.h"
#include "config/trait_config.h"

#include <functional>
#include <string>
#include <vector>

namespace gconv {

struct CulledConfig {
    KernelConfig config;
    std::vector<CullReason> reasons;
};

struct KernelPool {
    std::string arch;
    std::vector<KernelConfig> kernels; // legal, in enumeration order, unique names
    std::vector<CulledConfig> culled;  // illegal, with every failed rule
    std::size_t candidates = 0;
};

KernelPool enumerate_pool(const TraitConfig& traits, const ArchSpec& arch, const ArchSpecs& specs);

} // namespace gconv
