#pragma once
// The plots' view of a ResultTable: which problem and which kernel each row belongs to, and
// whether it is a usable measurement. Built in one pass over the table's columns and extended
// incrementally as a sweep appends rows, so that every plot is a cheap loop over these ids.
// Qt-free so that tests can check it alone.
#include "config/kernel_config.h"
#include "csv/csv_reader.h"
#include "problem/problem.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gconv::ui {

struct PlotProblem {
    Problem problem; // sizes, ndim and layer of the first row seen
    std::string variant, dtype, arch;
    DataType data_type = DataType::BF16; // dtype read as an enum; bf16 if missing or unknown
    double flops = 0.0;
    double min_bytes = 0.0;
    // Unique among the index's problems: the layer name if any, else compact sizes; variant,
    // dtype or arch are appended where two problems would otherwise read the same.
    std::string label;

    double intensity() const { return min_bytes > 0.0 ? flops / min_bytes : 0.0; }
};

struct PlotKernel {
    std::string name;
    std::optional<KernelConfig> config; // nullopt: the name does not parse as a gconv kernel
};

// "N32 C256 K256 G32 28x28 k3 s1" (3D: "... 8x28x28 k3 s1"; pad and dilation only where
// they are not the usual ones).
std::string compact_problem_label(const Problem& problem);

class PlotIndex {
public:
    static constexpr uint32_t k_none = std::numeric_limits<uint32_t>::max();

    // Forgets everything (after the table was replaced rather than appended to).
    void clear();
    // Indexes rows [rows(), table.rows()). The table must be the one indexed so far, only
    // appended to since; anything else needs clear() first.
    void update(const ResultTable& table);

    size_t rows() const { return problem_of_.size(); }
    uint32_t problemOf(size_t row) const { return problem_of_[row]; }
    uint32_t kernelOf(size_t row) const { return kernel_of_[row]; }
    // Status ok, with a positive latency and a TFLOPS value: a row the plots can place.
    bool ok(size_t row) const { return ok_[row] != 0; }
    size_t okRows() const { return ok_count_; }

    const std::vector<PlotProblem>& problems() const { return problems_; }
    const std::vector<PlotKernel>& kernels() const { return kernels_; }

    // Column data the plots read (nullptr if the table lacks the column).
    static const double* numbers(const ResultTable& table, std::string_view column);

private:
    // Small dense ids for the values of one text column (interned codes map straight through).
    class TextIds {
    public:
        uint32_t id(const ResultTable::Column* column, size_t row);
        const std::vector<std::string>& texts() const { return texts_; }

    private:
        uint32_t idOf(std::string_view text);
        std::vector<uint32_t> by_code_;
        std::unordered_map<std::string, uint32_t> by_text_;
        std::vector<std::string> texts_;
        uint32_t empty_ = k_none;
    };

    struct ProblemKey {
        std::array<double, 20> sizes;  // the 19 shape columns and ndim
        std::array<uint32_t, 3> texts; // variant, dtype, arch ids
        bool operator==(const ProblemKey&) const = default;
    };
    struct ProblemKeyHash {
        size_t operator()(const ProblemKey& key) const;
    };

    uint32_t addProblem(const ResultTable& table, size_t row, const ProblemKey& key);
    void relabel();

    std::vector<uint32_t> problem_of_;
    std::vector<uint32_t> kernel_of_;
    std::vector<uint8_t> ok_;
    size_t ok_count_ = 0;
    std::vector<PlotProblem> problems_;
    std::vector<PlotKernel> kernels_;
    std::unordered_map<ProblemKey, uint32_t, ProblemKeyHash> problem_ids_;
    TextIds kernel_ids_;
    std::array<TextIds, 3> text_ids_;
};

} // namespace gconv::ui
