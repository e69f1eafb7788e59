#pragma once
// Paths of the source tree, the build tree and built tools, for the test suites.
#include <QString>

namespace gconv::test {

inline QString source_path(const QString& relative) {
    return QStringLiteral(GCONV_TEST_SOURCE_DIR) + QLatin1Char('/') + relative;
}
inline QString binary_path(const QString& relative) {
    return QStringLiteral(GCONV_TEST_BINARY_DIR) + QLatin1Char('/') + relative;
}
inline QString tool_path(const QString& name) {
    return binary_path(QStringLiteral("app/") + name);
}

} // namespace gconv::test
