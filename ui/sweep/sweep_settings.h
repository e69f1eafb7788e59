#pragma once
// What a sweep run from the explorer asks of gconv-bench: one field per flag, the command line
// built from them, and their persistence under "sweep/..." in QSettings.
#include <QString>
#include <QStringList>

class QSettings;

namespace gconv::ui {

struct SweepSettings {
    QString variant = QStringLiteral("forward"); // forward, bwd_data or bwd_weight
    QString configPath;                          // empty: gconv-bench's default for the variant
    QStringList problemKeys;                     // registry keys (problems/<key>.json)
    QString arch = QStringLiteral("auto");
    QString devices; // --devices; empty: gconv-bench's default, device 0 of those visible
    int workers = 0; // compiler threads; 0: gconv-bench's default (every core)
    int batchSize = 20;
    double kernelTimeoutS = 30.0;
    int warmup = 3;
    int repeat = 10;
    // --launch-hold: each timed run waits until all of it is queued (the GPU's time alone, for
    // kernels and baseline alike); off times launches as they come, host gaps included.
    bool launchHold = true;
    bool resume = false;
    // --baseline: the vendor library timed beside every problem, "none", "cudnn" (NVIDIA) or
    // "miopen" (ROCm).
    QString baseline = QStringLiteral("none");
    QString filter;
    int maxKernels = 0; // 0: every kernel of the filtered pool
    QString outputPath;
    QString workerPath;         // empty: gconv-worker next to gconv-bench (tests: the fake one)
    QStringList extraArguments; // passed as they are, last (e.g. --cache-dir DIR)

    // gconv-bench's arguments for these settings, with --progress jsonl.
    QStringList benchArguments() const;

    // Persisted under "sweep/<field>"; fields missing in `settings` keep their defaults.
    // extraArguments are not persisted (they are for tests and scripts).
    void save(QSettings& settings) const;
    static SweepSettings load(QSettings& settings);

    bool operator==(const SweepSettings&) const = default;
};

} // namespace gconv::ui
