#pragma once
// The filter language over kernel configurations: `c.<field>` (or a bare field name) for every
// field of the field table, plus `c.name`, the kernel's name.
#include "config/kernel_config.h"
#include "filter/field_schema.h"
#include "filter/filter_set.h"

#include <string>
#include <vector>

namespace gconv {

const FieldSchema& config_filter_schema();

// Whether one configuration passes `filter`, bound to config_filter_schema(). Throws FilterError
// on an evaluation error.
bool config_matches(const FilterExpression& filter, const KernelConfig& config);

// Keeps the configurations that pass every filter of `filters` (bound to the schema here).
std::vector<KernelConfig> apply_config_filter(const std::vector<KernelConfig>& configs,
                                              FilterSet& filters);

} // namespace gconv
