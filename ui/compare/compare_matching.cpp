#include "ui/compare/compare_matching.h"

#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace gconv::ui {
namespace {

struct Side {
    ResultRow row;
    size_t order;
};

std::string cell_key(const ResultRow& r) {
    return r.kernel + '\x1f' + r.problem.key() + '\x1f' + r.variant + '\x1f' + r.dtype;
}

double speedup_of(const CompareCell& c) {
    const bool ran = c.statusA == CellStatus::Ok && c.statusB == CellStatus::Ok;
    if (!ran || !(c.latencyA > 0) || !(c.latencyB > 0)) return k_no_value;
    return c.latencyA / c.latencyB;
}

} // namespace

CompareResult compare_results(const ResultTable& a, const ResultTable& b) {
    std::unordered_map<std::string, size_t> index_b;
    std::vector<ResultRow> rows_b;
    for (size_t i = 0; i < b.rows(); ++i) {
        ResultRow r = b.row(i);
        if (index_b.try_emplace(cell_key(r), rows_b.size()).second) rows_b.push_back(std::move(r));
    }
    std::vector<bool> used_b(rows_b.size(), false);
    std::unordered_set<std::string> seen_a;
    CompareResult out;
    std::vector<CompareCell> only_a;
    for (size_t i = 0; i < a.rows(); ++i) {
        const ResultRow r = a.row(i);
        const std::string key = cell_key(r);
        if (!seen_a.insert(key).second) continue;
        CompareCell cell;
        cell.kernel = r.kernel;
        cell.problem = r.problem.key();
        cell.variant = r.variant;
        cell.dtype = r.dtype;
        cell.inA = true;
        cell.latencyA = r.latency_ms;
        cell.statusA = r.status;
        const auto found = index_b.find(key);
        if (found == index_b.end()) {
            only_a.push_back(std::move(cell));
            continue;
        }
        const ResultRow& other = rows_b[found->second];
        used_b[found->second] = true;
        cell.inB = true;
        cell.latencyB = other.latency_ms;
        cell.statusB = other.status;
        cell.speedup = speedup_of(cell);
        out.cells.push_back(std::move(cell));
    }
    out.matched = out.cells.size();
    out.onlyA = only_a.size();
    double log_sum = 0;
    for (const auto& c : out.cells)
        if (has_value(c.speedup)) {
            log_sum += std::log(c.speedup);
            ++out.withSpeedup;
        }
    if (out.withSpeedup) out.geomeanSpeedup = std::exp(log_sum / double(out.withSpeedup));
    for (auto& c : only_a) out.cells.push_back(std::move(c));
    for (size_t i = 0; i < rows_b.size(); ++i) {
        if (used_b[i]) continue;
        const ResultRow& r = rows_b[i];
        CompareCell cell;
        cell.kernel = r.kernel;
        cell.problem = r.problem.key();
        cell.variant = r.variant;
        cell.dtype = r.dtype;
        cell.inB = true;
        cell.latencyB = r.latency_ms;
        cell.statusB = r.status;
        out.cells.push_back(std::move(cell));
        ++out.onlyB;
    }
    return out;
}

} // namespace gconv::ui
