#pragma once
// Running the real gconv-bench from the CLI suites: a small forward sweep driven by the fake
// worker (no GPU), and one process run to its end.
#include "test_paths.h"

#include <QProcess>
#include <QString>
#include <QStringList>

namespace gconv::test {

struct BenchRun {
    int code;    // exit code; -1 did not finish in 5 minutes, -2 crashed
    QString out; // stdout
    QString err; // stderr
};

// Three compv3 kernels on the forward 2D validation set (22 problems), cells run by the fake
// worker, kernels cached in `cache`.
inline QStringList fake_sweep_args(const QString& output, const QString& cache, int max_kernels = 3,
                                   const QString& progress = "none") {
    return {"--variant",     "forward",
            "--arch",        "sm_90",
            "--problems",    "forward_2d_test_validation",
            "--output",      output,
            "--max-kernels", QString::number(max_kernels),
            "--workers",     "2",
            "--filter",      "c.pipeline == 'compv3'",
            "--worker",      binary_path("tests/gconv-fake-worker"),
            "--cache-dir",   cache,
            "--progress",    progress};
}

inline BenchRun
run_bench(const QStringList& args,
          const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(tool_path("gconv-bench"), args);
    if (!p.waitForFinished(300000)) return {-1, {}, "did not finish"};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

} // namespace gconv::test
