#include "ui/plots/plot_data.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace gconv::ui {

std::vector<ProblemBest> best_per_problem(const ResultTable& table, const PlotIndex& index) {
    std::vector<ProblemBest> best(index.problems().size());
    const double* tflops = PlotIndex::numbers(table, "tflops");
    const double* latency = PlotIndex::numbers(table, "latency_ms");
    if (!tflops || !latency) return best;
    for (size_t row = 0; row < index.rows(); ++row) {
        if (!index.ok(row)) continue;
        ProblemBest& b = best[index.problemOf(row)];
        ++b.okRows;
        if (b.row < 0 || tflops[row] > b.tflops) {
            b.row = static_cast<int64_t>(row);
            b.tflops = tflops[row];
            b.latency_ms = latency[row];
        }
    }
    return best;
}

std::vector<RowValue> latency_of_problem(const ResultTable& table, const PlotIndex& index,
                                         uint32_t problem) {
    std::vector<RowValue> out;
    const double* latency = PlotIndex::numbers(table, "latency_ms");
    if (!latency) return out;
    for (size_t row = 0; row < index.rows(); ++row)
        if (index.ok(row) && index.problemOf(row) == problem)
            out.push_back({static_cast<uint32_t>(row), latency[row]});
    std::stable_sort(out.begin(), out.end(),
                     [](const RowValue& a, const RowValue& b) { return a.value < b.value; });
    return out;
}

std::string_view to_string(PlotMetric metric) {
    switch (metric) {
    case PlotMetric::Tflops:
        return "tflops";
    case PlotMetric::LatencyMs:
        return "latency_ms";
    case PlotMetric::Efficiency:
        return "efficiency";
    }
    return "?";
}

const std::vector<PlotMetric>& plot_metrics() {
    static const std::vector<PlotMetric> all{PlotMetric::Tflops, PlotMetric::LatencyMs,
                                             PlotMetric::Efficiency};
    return all;
}

MetricReader::MetricReader(const ResultTable& table, const PlotIndex& index,
                           const std::vector<ProblemBest>& best, PlotMetric metric)
    : index_(index), best_(best), latency_(PlotIndex::numbers(table, "latency_ms")),
      tflops_(PlotIndex::numbers(table, "tflops")), metric_(metric) {}

double MetricReader::operator()(size_t row) const {
    switch (metric_) {
    case PlotMetric::Tflops:
        return tflops_ ? tflops_[row] : k_no_value;
    case PlotMetric::LatencyMs:
        return latency_ ? latency_[row] : k_no_value;
    case PlotMetric::Efficiency: {
        const double top = best_[index_.problemOf(row)].tflops;
        return tflops_ && top > 0.0 ? tflops_[row] / top : k_no_value;
    }
    }
    return k_no_value;
}

namespace {

// The best row of each (kernel, problem) cell that has one: a dense array while the grid is
// small, a hash map when kernels x problems would not fit comfortably.
class CellBest {
public:
    CellBest(size_t kernels, size_t problems) : problems_(problems) {
        dense_ = kernels * problems <= (size_t{4} << 20);
        if (dense_) cells_.assign(kernels * problems, PlotIndex::k_none);
    }

    void offer(uint32_t kernel, uint32_t problem, uint32_t row, const double* tflops) {
        const uint64_t cell = uint64_t(kernel) * problems_ + problem;
        uint32_t& best =
            dense_ ? cells_[cell] : map_.try_emplace(cell, PlotIndex::k_none).first->second;
        if (best == PlotIndex::k_none || tflops[row] > tflops[best]) best = row;
    }

    // f(kernel, problem, row) for every cell with a row.
    template <typename F> void forEach(F&& f) const {
        if (dense_) {
            for (size_t cell = 0; cell < cells_.size(); ++cell)
                if (cells_[cell] != PlotIndex::k_none)
                    f(uint32_t(cell / problems_), uint32_t(cell % problems_), cells_[cell]);
        } else {
            for (const auto& [cell, row] : map_)
                f(uint32_t(cell / problems_), uint32_t(cell % problems_), row);
        }
    }

private:
    size_t problems_;
    bool dense_;
    std::vector<uint32_t> cells_;
    std::unordered_map<uint64_t, uint32_t> map_;
};

} // namespace

EfficiencyMatrix efficiency_matrix(const ResultTable& table, const PlotIndex& index,
                                   const std::vector<ProblemBest>& best, size_t max_kernels) {
    EfficiencyMatrix m;
    m.problems = index.problems().size();
    const double* tflops = PlotIndex::numbers(table, "tflops");
    if (!tflops || m.problems == 0) return m;

    CellBest cells(index.kernels().size(), m.problems);
    for (size_t row = 0; row < index.rows(); ++row)
        if (index.ok(row))
            cells.offer(index.kernelOf(row), index.problemOf(row), uint32_t(row), tflops);

    auto efficiency = [&](uint32_t problem, uint32_t row) {
        const double top = best[problem].tflops;
        return top > 0.0 ? tflops[row] / top : k_no_value;
    };
    size_t measured_problems = 0;
    for (const auto& b : best) measured_problems += b.row >= 0 ? 1 : 0;
    std::vector<double> score(index.kernels().size(), 0.0);
    std::vector<uint8_t> ran(index.kernels().size(), 0);
    cells.forEach([&](uint32_t kernel, uint32_t problem, uint32_t row) {
        const double e = efficiency(problem, row);
        if (has_value(e)) score[kernel] += e;
        ran[kernel] = 1;
    });
    std::vector<uint32_t> order;
    for (uint32_t k = 0; k < score.size(); ++k)
        if (ran[k]) order.push_back(k);
    const size_t kept = std::min(max_kernels, order.size());
    std::partial_sort(
        order.begin(), order.begin() + static_cast<std::ptrdiff_t>(kept), order.end(),
        [&](uint32_t a, uint32_t b) { return score[a] != score[b] ? score[a] > score[b] : a < b; });
    order.resize(kept);

    m.kernels = order;
    std::vector<uint32_t> slot(index.kernels().size(), PlotIndex::k_none);
    for (size_t i = 0; i < kept; ++i) {
        slot[order[i]] = static_cast<uint32_t>(i);
        m.scores.push_back(score[order[i]] / double(std::max<size_t>(measured_problems, 1)));
    }
    m.efficiency.assign(kept * m.problems, k_no_value);
    m.rows.assign(kept * m.problems, -1);
    cells.forEach([&](uint32_t kernel, uint32_t problem, uint32_t row) {
        if (slot[kernel] == PlotIndex::k_none) return;
        const size_t cell = size_t(slot[kernel]) * m.problems + problem;
        m.efficiency[cell] = efficiency(problem, row);
        m.rows[cell] = row;
    });
    return m;
}

std::vector<std::vector<RowValue>> tflops_by_problem(const ResultTable& table,
                                                     const PlotIndex& index) {
    std::vector<std::vector<RowValue>> out(index.problems().size());
    const double* tflops = PlotIndex::numbers(table, "tflops");
    if (!tflops) return out;
    for (size_t row = 0; row < index.rows(); ++row)
        if (index.ok(row)) out[index.problemOf(row)].push_back({uint32_t(row), tflops[row]});
    for (auto& column : out)
        std::stable_sort(column.begin(), column.end(),
                         [](const RowValue& a, const RowValue& b) { return a.value < b.value; });
    return out;
}

} // namespace gconv::ui
