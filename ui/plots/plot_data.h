#pragma once
// What each plot shows, computed from a ResultTable and its PlotIndex by loops over the
// table's columns (never a ResultRow per row). Qt-free so that tests can check the numbers.
#include "ui/plots/plot_index.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace gconv::ui {

// The best ok row of one problem: the highest TFLOPS (ties: the first row).
struct ProblemBest {
    int64_t row = -1; // -1: the problem has no ok row
    double tflops = k_no_value;
    double latency_ms = k_no_value;
    uint32_t okRows = 0;
};

// One entry per PlotIndex problem, in the same order.
std::vector<ProblemBest> best_per_problem(const ResultTable& table, const PlotIndex& index);

// A source row and the value a plot places it at.
struct RowValue {
    uint32_t row;
    double value;
};

// The ok rows of one problem with their latency, ascending (ties: table order).
std::vector<RowValue> latency_of_problem(const ResultTable& table, const PlotIndex& index,
                                         uint32_t problem);

enum class PlotMetric { Tflops, LatencyMs, Efficiency };
std::string_view to_string(PlotMetric metric);
const std::vector<PlotMetric>& plot_metrics();

// The metric of an ok row; efficiency is its TFLOPS over the best TFLOPS of its problem.
class MetricReader {
public:
    MetricReader(const ResultTable& table, const PlotIndex& index,
                 const std::vector<ProblemBest>& best, PlotMetric metric);
    double operator()(size_t row) const;

private:
    const PlotIndex& index_;
    const std::vector<ProblemBest>& best_;
    const double* latency_;
    const double* tflops_;
    PlotMetric metric_;
};

// Kernel x problem efficiency. Kernels are ranked by their mean efficiency over all problems
// (a problem the kernel has no ok row for counts 0), so a kernel good everywhere ranks first;
// only the first `max_kernels` are kept.
struct EfficiencyMatrix {
    std::vector<uint32_t> kernels; // PlotIndex kernel ids, best first
    std::vector<double> scores;    // mean efficiency of each kept kernel
    size_t problems = 0;           // columns: PlotIndex problem ids
    // [k * problems + p]: the best efficiency of kernels[k] on problem p, NaN if none ran ok.
    std::vector<double> efficiency;
    // The row behind each cell, -1 where NaN.
    std::vector<int64_t> rows;
    size_t kernelCount() const { return kernels.size(); }
    double at(size_t k, size_t p) const { return efficiency[k * problems + p]; }
    int64_t rowAt(size_t k, size_t p) const { return rows[k * problems + p]; }
};
EfficiencyMatrix efficiency_matrix(const ResultTable& table, const PlotIndex& index,
                                   const std::vector<ProblemBest>& best, size_t max_kernels);

// The ok rows of each problem as (row, TFLOPS), ascending by TFLOPS (a roofline column).
std::vector<std::vector<RowValue>> tflops_by_problem(const ResultTable& table,
                                                     const PlotIndex& index);

} // namespace gconv::ui
