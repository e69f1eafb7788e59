#include "config/enumerate.h"

#include "config/config_filter.h"
#include "config/kernel_name.h"
#include "util/error.h"

#include <set>

namespace gconv {
namespace {

bool passes_where(const TraitConfig& traits, const KernelConfig& c) {
    if (traits.where.empty()) return true;
    try {
        return config_matches(traits.where, c);
    } catch (const FilterError& e) {
        throw Error(traits.source + ": where: " + kernel_name(c) + ": " + e.what());
    }
}

} // namespace

KernelPool enumerate_pool(const TraitConfig& traits, const ArchSpec& arch, const ArchSpecs& specs) {
    KernelPool pool;
    pool.arch = arch.name;
    pool.candidates = traits.candidate_count();
    if (pool.candidates == 0) return pool;

    // Odometer over the axes: index[i] picks a value of axis i.
    std::vector<std::size_t> index(traits.axes.size(), 0);
    std::set<std::string> names;
    for (;;) {
        KernelConfig c;
        c.variant = traits.variant;
        for (std::size_t i = 0; i < traits.axes.size(); ++i)
            for (const auto& [field, value] : traits.axes[i].values[index[i]]) field->set(c, value);
        derive_defaults(c, traits.derived);

        auto reasons = check_legality(c, arch, specs);
        if (!passes_where(traits, c))
            reasons.push_back({Rule::Where, "false for this configuration (the config's filter)"});
        if (reasons.empty()) {
            if (names.insert(kernel_name(c)).second) pool.kernels.push_back(c);
        } else {
            pool.culled.push_back({c, std::move(reasons)});
        }

        std::size_t axis = traits.axes.size();
        while (axis > 0) {
            --axis;
            if (++index[axis] < traits.axes[axis].values.size()) break;
            index[axis] = 0;
            if (axis == 0) return pool;
        }
        if (traits.axes.empty()) return pool;
    }
}

} // namespace gconv
