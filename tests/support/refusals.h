#pragma once
// is_supported's refusals as the pipeline suites check them: refused, and the reason names
// what was wrong.
#include "codegen/launch_plan.h"

#include <QtTest>

#include <functional>
#include <string>
#include <vector>

namespace gconv::test {

// A failed QVERIFY here marks the calling test failed; the caller goes on to its next check.
inline void expect_refused(const KernelConfig& c, const Problem& p, const char* needle) {
    const SupportCheck s = is_supported(c, p);
    QVERIFY2(!s.ok, needle);
    QVERIFY2(s.reason.find(needle) != std::string::npos, s.reason.c_str());
}

// One change to a problem the config takes, and what the refusal must name.
struct ProblemChange {
    const char* needle;
    std::function<void(Problem&)> change;
};

inline void expect_refusals(const KernelConfig& c, const Problem& accepted,
                            const std::vector<ProblemChange>& changes) {
    for (const ProblemChange& k : changes) {
        Problem p = accepted;
        k.change(p);
        expect_refused(c, p, k.needle);
    }
}

} // namespace gconv::test
