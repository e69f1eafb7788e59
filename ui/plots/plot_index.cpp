#include "ui/plots/plot_index.h"

#include "config/kernel_name.h"
#include "csv/result_filter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

namespace gconv::ui {
namespace {

// The shape columns in the order of ProblemKey::sizes (ndim follows them).
constexpr std::array<std::string_view, 19> k_shape_columns{
    "N",     "C",     "K",          "G",          "Di",        "Hi",       "Wi",
    "Z",     "Y",     "X",          "stride_d",   "stride_h",  "stride_w", "pad_d",
    "pad_h", "pad_w", "dilation_d", "dilation_h", "dilation_w"};
constexpr std::array<std::string_view, 3> k_identity_texts{"variant", "dtype", "arch"};

std::array<double, 19> default_shape() {
    const Problem p;
    return {double(p.N),          double(p.C),          double(p.K),         double(p.G),
            double(p.Di),         double(p.Hi),         double(p.Wi),        double(p.Z),
            double(p.Y),          double(p.X),          double(p.stride_d),  double(p.stride_h),
            double(p.stride_w),   double(p.pad_d),      double(p.pad_h),     double(p.pad_w),
            double(p.dilation_d), double(p.dilation_h), double(p.dilation_w)};
}

Problem problem_from(const std::array<double, 20>& s) {
    Problem p;
    int64_t* fields[19] = {&p.N,        &p.C,          &p.K,          &p.G,         &p.Di,
                           &p.Hi,       &p.Wi,         &p.Z,          &p.Y,         &p.X,
                           &p.stride_d, &p.stride_h,   &p.stride_w,   &p.pad_d,     &p.pad_h,
                           &p.pad_w,    &p.dilation_d, &p.dilation_h, &p.dilation_w};
    for (size_t i = 0; i < 19; ++i) *fields[i] = static_cast<int64_t>(s[i]);
    p.ndim_spatial = static_cast<int>(s[19]);
    return p;
}

std::string join_equal_or_x(std::initializer_list<int64_t> values) {
    const int64_t first = *values.begin();
    bool same = true;
    for (int64_t v : values) same &= v == first;
    if (same) return std::to_string(first);
    std::string out;
    for (int64_t v : values) out += (out.empty() ? "" : "x") + std::to_string(v);
    return out;
}

} // namespace

std::string compact_problem_label(const Problem& p) {
    const bool three_d = p.ndim_spatial == 3;
    std::string out = "N" + std::to_string(p.N) + " C" + std::to_string(p.C) + " K" +
                      std::to_string(p.K) + " G" + std::to_string(p.G) + " ";
    if (three_d) out += std::to_string(p.Di) + "x";
    out += std::to_string(p.Hi) + "x" + std::to_string(p.Wi);
    out += " k" + (three_d ? join_equal_or_x({p.Z, p.Y, p.X}) : join_equal_or_x({p.Y, p.X}));
    out += " s" + (three_d ? join_equal_or_x({p.stride_d, p.stride_h, p.stride_w})
                           : join_equal_or_x({p.stride_h, p.stride_w}));
    // "Same" padding (filter / 2) is what a reader assumes; say the pad only when it differs.
    const bool usual_pad =
        p.pad_h == p.Y / 2 && p.pad_w == p.X / 2 && (!three_d || p.pad_d == p.Z / 2);
    if (!usual_pad)
        out += " p" + (three_d ? join_equal_or_x({p.pad_d, p.pad_h, p.pad_w})
                               : join_equal_or_x({p.pad_h, p.pad_w}));
    if (p.dilation_h != 1 || p.dilation_w != 1 || (three_d && p.dilation_d != 1))
        out += " d" + (three_d ? join_equal_or_x({p.dilation_d, p.dilation_h, p.dilation_w})
                               : join_equal_or_x({p.dilation_h, p.dilation_w}));
    return out;
}

uint32_t PlotIndex::TextIds::idOf(std::string_view text) {
    auto it = by_text_.find(std::string(text));
    if (it != by_text_.end()) return it->second;
    const auto id = static_cast<uint32_t>(texts_.size());
    texts_.emplace_back(text);
    by_text_.emplace(texts_.back(), id);
    return id;
}

uint32_t PlotIndex::TextIds::id(const ResultTable::Column* column, size_t row) {
    if (!column || !column->is_text()) {
        if (empty_ == k_none) empty_ = idOf({});
        return empty_;
    }
    if (!column->interned) return idOf(column->text(row));
    // Dictionary codes only grow as rows are appended, so a code's id never changes.
    const uint32_t code = column->codes[row];
    if (code >= by_code_.size()) by_code_.resize(column->dictionary.size(), k_none);
    uint32_t& id = by_code_[code];
    if (id == k_none) id = idOf(column->dictionary[code]);
    return id;
}

size_t PlotIndex::ProblemKeyHash::operator()(const ProblemKey& key) const {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
    for (double d : key.sizes) {
        uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        mix(bits);
    }
    for (uint32_t t : key.texts) mix(t);
    return static_cast<size_t>(h);
}

const double* PlotIndex::numbers(const ResultTable& table, std::string_view name) {
    const auto* c = table.column(name);
    return c && !c->is_text() ? c->numbers.data() : nullptr;
}

void PlotIndex::clear() {
    *this = PlotIndex();
}

void PlotIndex::update(const ResultTable& table) {
    const size_t first = rows();
    const size_t last = table.rows();
    if (last <= first) return;

    static const std::array<double, 19> defaults = default_shape();
    std::array<const double*, 19> shape{};
    for (size_t i = 0; i < shape.size(); ++i) shape[i] = numbers(table, k_shape_columns[i]);
    const double* ndim = numbers(table, "ndim");
    std::array<const ResultTable::Column*, 3> texts{};
    for (size_t i = 0; i < texts.size(); ++i) texts[i] = table.column(k_identity_texts[i]);
    const ResultTable::Column* kernel = table.column("kernel");
    const double* latency = numbers(table, "latency_ms");
    const double* tflops = numbers(table, "tflops");
    const RowStatuses statuses(table);

    problem_of_.resize(last);
    kernel_of_.resize(last);
    ok_.resize(last);
    const size_t problems_before = problems_.size();

    ProblemKey key{};
    ProblemKey last_key{};
    uint32_t last_problem = k_none;
    for (size_t row = first; row < last; ++row) {
        for (size_t i = 0; i < shape.size(); ++i) {
            const double v = shape[i] ? shape[i][row] : k_no_value;
            key.sizes[i] = has_value(v) ? v : defaults[i];
        }
        const double n = ndim ? ndim[row] : k_no_value;
        if (has_value(n)) {
            key.sizes[19] = n;
        } else {
            // ck and seed files have no ndim column: a non-trivial depth field makes it 3D.
            const bool three_d = key.sizes[4] != 1 || key.sizes[7] != 1 || key.sizes[10] != 1 ||
                                 key.sizes[13] != 0 || key.sizes[16] != 1;
            key.sizes[19] = three_d ? 3 : 2;
        }
        for (size_t i = 0; i < texts.size(); ++i) key.texts[i] = text_ids_[i].id(texts[i], row);

        // Sweeps write runs of rows of one problem: skip the hash lookup for those.
        uint32_t problem = last_problem;
        if (problem == k_none || !(key == last_key)) {
            auto it = problem_ids_.find(key);
            problem = it != problem_ids_.end() ? it->second : addProblem(table, row, key);
            last_key = key;
            last_problem = problem;
        }
        problem_of_[row] = problem;

        const uint32_t k = kernel_ids_.id(kernel, row);
        while (kernels_.size() < kernel_ids_.texts().size()) {
            PlotKernel pk;
            pk.name = kernel_ids_.texts()[kernels_.size()];
            try {
                pk.config = parse_kernel_name(pk.name);
            } catch (const std::exception&) {
                // Names from other tools stay "other" in per-trait plots.
            }
            kernels_.push_back(std::move(pk));
        }
        kernel_of_[row] = k;

        const double ms = latency ? latency[row] : k_no_value;
        const double tf = tflops ? tflops[row] : k_no_value;
        const bool ok =
            statuses.at(row) == CellStatus::Ok && has_value(ms) && ms > 0.0 && has_value(tf);
        ok_[row] = ok ? 1 : 0;
        ok_count_ += ok ? 1 : 0;
    }
    if (problems_.size() != problems_before) relabel();
}

uint32_t PlotIndex::addProblem(const ResultTable& table, size_t row, const ProblemKey& key) {
    PlotProblem p;
    p.problem = problem_from(key.sizes);
    if (const auto* layer = table.column("layer"); layer && layer->is_text())
        p.problem.layer = std::string(layer->text(row));
    p.variant = text_ids_[0].texts()[key.texts[0]];
    p.dtype = text_ids_[1].texts()[key.texts[1]];
    p.arch = text_ids_[2].texts()[key.texts[2]];
    p.data_type = enum_from_string<DataType>(p.dtype).value_or(DataType::BF16);
    p.flops = p.problem.flops();
    p.min_bytes = p.problem.min_bytes(p.data_type);
    const auto id = static_cast<uint32_t>(problems_.size());
    problems_.push_back(std::move(p));
    problem_ids_.emplace(key, id);
    return id;
}

void PlotIndex::relabel() {
    for (auto& p : problems_)
        p.label = p.problem.layer.empty() ? compact_problem_label(p.problem) : p.problem.layer;
    // Disambiguate in steps, each only where labels still collide: the signature fields that
    // differ, then the sizes (a layer name reused by another shape), then the id.
    auto collisions = [this] {
        std::map<std::string, std::vector<size_t>> by_label;
        for (size_t i = 0; i < problems_.size(); ++i) by_label[problems_[i].label].push_back(i);
        std::vector<std::vector<size_t>> groups;
        for (auto& [label, ids] : by_label)
            if (ids.size() > 1) groups.push_back(std::move(ids));
        return groups;
    };
    for (const auto& group : collisions()) {
        auto differs = [&](auto field) {
            for (size_t i : group)
                if (problems_[i].*field != problems_[group[0]].*field) return true;
            return false;
        };
        const bool variant = differs(&PlotProblem::variant);
        const bool dtype = differs(&PlotProblem::dtype);
        const bool arch = differs(&PlotProblem::arch);
        for (size_t i : group) {
            std::string extra;
            if (variant) extra += problems_[i].variant;
            if (dtype) extra += (extra.empty() ? "" : " ") + problems_[i].dtype;
            if (arch) extra += (extra.empty() ? "" : " ") + problems_[i].arch;
            if (!extra.empty()) problems_[i].label += " [" + extra + "]";
        }
    }
    for (const auto& group : collisions())
        for (size_t i : group)
            if (!problems_[i].problem.layer.empty())
                problems_[i].label += " (" + compact_problem_label(problems_[i].problem) + ")";
    for (const auto& group : collisions())
        for (size_t i : group) problems_[i].label += " #" + std::to_string(i);
}

} // namespace gconv::ui
