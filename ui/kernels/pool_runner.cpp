#include "ui/kernels/pool_runner.h"

#include "codegen/launch_plan.h"
#include "config/config_filter.h"
#include "config/kernel_name.h"
#include "config/rules.h"
#include "filter/filter_error.h"
#include "util/error.h"

#include <QElapsedTimer>
#include <QMetaObject>

namespace gconv::ui {
namespace {

std::shared_ptr<const PoolSnapshot> enumerate(const TraitConfig& traits, const ArchSpec& arch,
                                              const ArchSpecs& specs) {
    QElapsedTimer timer;
    timer.start();
    auto snapshot = std::make_shared<PoolSnapshot>();
    snapshot->pool = enumerate_pool(traits, arch, specs);
    snapshot->warpSize = arch.warp_size;
    const auto& kernels = snapshot->pool.kernels;
    snapshot->kernelNames.reserve(kernels.size());
    for (const auto& k : kernels) {
        snapshot->kernelNames.push_back(kernel_name(k));
        snapshot->kernelThreads.push_back(block_threads(k, arch));
        snapshot->kernelSharedBytes.push_back(shared_bytes(k, arch.warp_size));
    }
    for (const auto& c : snapshot->pool.culled)
        snapshot->culledNames.push_back(kernel_name(c.config));
    snapshot->enumerateMs = double(timer.nsecsElapsed()) / 1e6;
    return snapshot;
}

// apply_config_filter() returns the kept configurations in order: walk both lists to get the
// indices back (equal configurations are interchangeable).
std::vector<int> keptIndices(const std::vector<KernelConfig>& all,
                             const std::vector<KernelConfig>& kept) {
    std::vector<int> rows;
    rows.reserve(kept.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < all.size() && k < kept.size(); ++i)
        if (all[i] == kept[k]) {
            rows.push_back(int(i));
            ++k;
        }
    return rows;
}

std::vector<int> allIndices(std::size_t n) {
    std::vector<int> rows(n);
    for (std::size_t i = 0; i < n; ++i) rows[i] = int(i);
    return rows;
}

} // namespace

PoolResult runPoolJob(const PoolJob& job, const ArchSpecs& specs) {
    PoolResult result;
    try {
        result.snapshot = job.reuse;
        if (!result.snapshot) {
            if (!job.traits) throw Error("no trait config to enumerate");
            result.snapshot = enumerate(*job.traits, specs.get(job.arch), specs);
        }
    } catch (const std::exception& e) {
        result.error = QString::fromStdString(e.what());
        return result;
    }
    const auto& pool = result.snapshot->pool;
    result.kernelRows = allIndices(pool.kernels.size());
    result.culledRows = allIndices(pool.culled.size());
    if (job.filter.find_first_not_of(" \t\r\n") == std::string::npos) return result;

    QElapsedTimer timer;
    timer.start();
    try {
        FilterSet filters;
        filters.add(job.filter);
        result.kernelRows = keptIndices(pool.kernels, apply_config_filter(pool.kernels, filters));
        std::vector<KernelConfig> culled;
        culled.reserve(pool.culled.size());
        for (const auto& c : pool.culled) culled.push_back(c.config);
        result.culledRows = keptIndices(culled, apply_config_filter(culled, filters));
        result.filtered = true;
    } catch (const FilterError& e) {
        result.error = QString::fromStdString(e.what());
        result.errorColumn = e.column;
    }
    result.filterMs = double(timer.nsecsElapsed()) / 1e6;
    return result;
}

PoolRunner::PoolRunner(const ArchSpecs& specs, QObject* parent) : QObject(parent), specs_(specs) {
    threads_.setMaxThreadCount(1);
}

PoolRunner::~PoolRunner() {
    // Running jobs only touch their own copies; wait so none posts to a dead object.
    threads_.waitForDone();
}

quint64 PoolRunner::submit(PoolJob job) {
    const quint64 generation = ++generation_;
    if (busy_)
        pending_.emplace(std::move(job), generation);
    else
        start(std::move(job), generation);
    return generation;
}

void PoolRunner::start(PoolJob job, quint64 generation) {
    busy_ = true;
    threads_.start([this, job = std::move(job), generation] {
        PoolResult result = runPoolJob(job, specs_);
        result.generation = generation;
        QMetaObject::invokeMethod(
            this, [this, result = std::move(result)]() mutable { onDone(std::move(result)); },
            Qt::QueuedConnection);
    });
}

void PoolRunner::onDone(PoolResult result) {
    busy_ = false;
    if (pending_) {
        auto [job, generation] = std::move(*pending_);
        pending_.reset();
        start(std::move(job), generation);
        return; // this result is already out of date
    }
    emit finished(result);
}

} // namespace gconv::ui
