#pragma once
// The legality rules a config breaks on an arch as "rule_id: message" lines, for the pipeline
// suites that check which rules cull a config and why.
#include "config/arch_spec.h"
#include "config/rules.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace gconv::test {

inline std::vector<std::string> rules_of(const KernelConfig& c, const char* arch = "sm_90") {
    std::vector<std::string> out;
    for (const auto& r : check_legality(c, default_arch_specs().get(arch), default_arch_specs()))
        out.push_back(std::string(rule_id(r.rule)) + ": " + r.message);
    return out;
}

inline QString joined(const std::vector<std::string>& v) {
    QStringList l;
    for (const auto& s : v) l << QString::fromStdString(s);
    return l.join("\n");
}

} // namespace gconv::test
