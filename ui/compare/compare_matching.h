#pragma once
// Matches the cells of two results tables (A: the reference, B: the candidate) by kernel,
// problem sizes, variant and dtype, and computes per-cell speedups (latency A / latency B,
// above 1 when B is faster). Qt-free: the Compare page and its tests share it.
#include "csv/csv_reader.h"

#include <string>
#include <vector>

namespace gconv::ui {

struct CompareCell {
    std::string kernel;
    std::string problem; // Problem::key(), the sizes
    std::string variant;
    std::string dtype;
    bool inA = false;
    bool inB = false;
    double latencyA = k_no_value;
    double latencyB = k_no_value;
    CellStatus statusA = CellStatus::Error;
    CellStatus statusB = CellStatus::Error;
    // latencyA / latencyB where both cells ran (ok) with a latency; NaN elsewhere.
    double speedup = k_no_value;
};

struct CompareResult {
    // Matched cells first (in A's order), then cells only in A, then only in B.
    std::vector<CompareCell> cells;
    size_t matched = 0;
    size_t onlyA = 0;
    size_t onlyB = 0;
    // Matched cells with a speedup, and their geometric mean (NaN when none).
    size_t withSpeedup = 0;
    double geomeanSpeedup = k_no_value;
};

// A row that repeats a cell already seen in the same table is ignored (the first one counts).
CompareResult compare_results(const ResultTable& a, const ResultTable& b);

} // namespace gconv::ui
