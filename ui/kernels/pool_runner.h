#pragma once
// Enumerates the kernel pool of a trait config and applies the filter off the GUI thread, so
// typing never waits for enumerate_pool(). Jobs are coalesced: while one runs, only the newest
// waiting job is kept, and a result is delivered only when no newer job waits.
#include "config/arch_spec.h"
#include "config/enumerate.h"
#include "config/trait_config.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gconv::ui {

// A pool with what the tables show of each kernel, computed once per enumeration.
struct PoolSnapshot {
    KernelPool pool;
    std::vector<std::string> kernelNames;
    std::vector<std::string> culledNames;
    std::vector<int> kernelThreads;             // block_threads() on the pool's arch
    std::vector<std::size_t> kernelSharedBytes; // shared_bytes() of launch_plan.h
    int warpSize = 32;
    double enumerateMs = 0;
};

struct PoolJob {
    std::shared_ptr<const TraitConfig> traits;
    std::string arch;
    std::string filter;
    // When set (same traits and arch as before), only the filter runs again.
    std::shared_ptr<const PoolSnapshot> reuse;
};

struct PoolResult {
    quint64 generation = 0;
    std::shared_ptr<const PoolSnapshot> snapshot;
    // Indices into snapshot->pool.kernels / .culled that pass the filter (all without one).
    std::vector<int> kernelRows;
    std::vector<int> culledRows;
    bool filtered = false;
    QString error;        // enumeration failed (unknown arch, ...) or the filter failed
    int errorColumn = -1; // caret column of a filter error
    double filterMs = 0;
};

// Runs a job synchronously (the worker thread's body; tests call it directly).
PoolResult runPoolJob(const PoolJob& job, const ArchSpecs& specs);

class PoolRunner : public QObject {
    Q_OBJECT
public:
    explicit PoolRunner(const ArchSpecs& specs, QObject* parent = nullptr);
    ~PoolRunner() override;

    // Returns the job's generation; finished() reports the newest generation only.
    quint64 submit(PoolJob job);
    bool isBusy() const { return busy_ || pending_.has_value(); }
    quint64 latestGeneration() const { return generation_; }

signals:
    void finished(const gconv::ui::PoolResult& result);

private:
    void start(PoolJob job, quint64 generation);
    void onDone(PoolResult result);

    const ArchSpecs& specs_;
    QThreadPool threads_;
    bool busy_ = false;
    std::optional<std::pair<PoolJob, quint64>> pending_;
    quint64 generation_ = 0;
};

} // namespace gconv::ui
