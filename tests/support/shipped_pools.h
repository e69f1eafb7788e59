#pragma once
// What the suites that walk configs/*.json need to know about a shipped pool by its file name.
#include <QString>

namespace gconv::test {

// The tensor-core direct pools (ldmatrix, mma.sync): kernels on NVIDIA only, none on AMD.
inline bool nvidia_only_pool(const QString& file) {
    return file.endsWith(QStringLiteral("_direct_mma.json")) ||
           file.endsWith(QStringLiteral("_direct_tc.json"));
}

} // namespace gconv::test
