#include "csv/result_filter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <unordered_map>

namespace gconv {

RowStatuses::RowStatuses(const ResultTable& table)
    : status_(table.column("status")), latency_(table.column("latency_ms")) {
    if (status_ && !status_->is_text()) status_ = nullptr;
    if (status_ && status_->interned) {
        by_code_.reserve(status_->dictionary.size());
        for (const auto& name : status_->dictionary) {
            const auto status = cell_status_from_string(name);
            by_code_.push_back(status ? static_cast<int8_t>(*status) : int8_t{-1});
        }
    }
}

CellStatus RowStatuses::at(size_t row) const {
    if (status_) {
        if (status_->interned) {
            const uint32_t code = status_->codes[row];
            if (code < by_code_.size() && by_code_[code] >= 0)
                return static_cast<CellStatus>(by_code_[code]);
            // A code added after construction (live rows) or an empty field.
            if (const auto s = cell_status_from_string(status_->dictionary[code])) return *s;
        } else if (const auto s = cell_status_from_string(status_->text(row))) {
            return *s;
        }
    }
    const bool ran = latency_ && !latency_->is_text() && has_value(latency_->numbers[row]);
    return ran ? CellStatus::Ok : CellStatus::Error;
}

namespace {

enum class SlotKind : uint8_t { Number, Bool, Text, Status };

FieldKind field_kind(const ResultTable::Column& column) {
    switch (column.type) {
    case ColumnType::Integer:
    case ColumnType::Real:
        return FieldKind::Number;
    case ColumnType::Bool:
        return FieldKind::Bool;
    case ColumnType::Text:
        return FieldKind::String;
    }
    return FieldKind::Any;
}

// One table row seen through result_filter_schema(): the slots are resolved to column data
// once, so value() is an index and a switch.
class RowSource final : public FieldSource {
public:
    explicit RowSource(const ResultTable& table) : statuses_(table) {
        for (const auto& column : table.columns()) {
            Slot slot;
            slot.column = &column;
            slot.numbers = column.numbers.data();
            slot.kind = column.type == ColumnType::Text   ? SlotKind::Text
                        : column.type == ColumnType::Bool ? SlotKind::Bool
                                                          : SlotKind::Number;
            slots_.push_back(slot);
        }
        if (!table.column("status")) slots_.push_back({nullptr, nullptr, SlotKind::Status});
    }

    FilterValue value(std::size_t slot) const override {
        const Slot& s = slots_[slot];
        switch (s.kind) {
        case SlotKind::Number:
            return FilterValue::from_number(s.numbers[row]);
        case SlotKind::Bool:
            return FilterValue::from_bool(s.numbers[row] == 1.0);
        case SlotKind::Text:
            return FilterValue::from_string(s.column->text(row));
        case SlotKind::Status:
            return FilterValue::from_string(to_string(statuses_.at(row)));
        }
        return FilterValue::from_number(k_no_value);
    }

    size_t row = 0;

private:
    struct Slot {
        const ResultTable::Column* column;
        const double* numbers;
        SlotKind kind;
    };
    std::vector<Slot> slots_;
    RowStatuses statuses_;
};

char lower(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool contains_folded(std::string_view haystack, std::string_view folded_needle) {
    if (folded_needle.size() > haystack.size()) return false;
    return std::search(haystack.begin(), haystack.end(), folded_needle.begin(), folded_needle.end(),
                       [](char a, char b) { return lower(a) == b; }) != haystack.end();
}

struct Keyed {
    uint64_t key;
    uint32_t row;
};

// Stable LSD radix sort on 16-bit digits; digits every key shares are skipped (integer columns
// usually need one or two passes).
void radix_sort(std::vector<Keyed>& items) {
    std::vector<Keyed> scratch(items.size());
    std::vector<uint32_t> count(1u << 16);
    for (int shift = 0; shift < 64; shift += 16) {
        std::fill(count.begin(), count.end(), 0u);
        for (const Keyed& item : items) ++count[(item.key >> shift) & 0xffffu];
        if (items.empty() || count[(items[0].key >> shift) & 0xffffu] == items.size()) continue;
        uint32_t sum = 0;
        for (uint32_t& c : count) {
            const uint32_t n = c;
            c = sum;
            sum += n;
        }
        for (const Keyed& item : items) scratch[count[(item.key >> shift) & 0xffffu]++] = item;
        items.swap(scratch);
    }
}

// Order-preserving map of a double onto unsigned integers.
uint64_t ordered_bits(double value) {
    const auto bits = std::bit_cast<uint64_t>(value);
    return (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
}

constexpr uint64_t k_last = UINT64_MAX;

std::vector<uint32_t> rows_of(const std::vector<Keyed>& items) {
    std::vector<uint32_t> rows(items.size());
    for (size_t i = 0; i < items.size(); ++i) rows[i] = items[i].row;
    return rows;
}

struct ProblemKey {
    std::array<double, 19> sizes;
    std::array<std::string_view, 3> texts;
    bool operator==(const ProblemKey&) const = default;
};

struct ProblemKeyHash {
    size_t operator()(const ProblemKey& k) const {
        uint64_t h = 0x9e3779b97f4a7c15ull;
        auto mix = [&h](uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
        for (double d : k.sizes) mix(std::bit_cast<uint64_t>(d));
        for (auto t : k.texts) mix(std::hash<std::string_view>{}(t));
        return static_cast<size_t>(h);
    }
};

} // namespace

FieldSchema result_filter_schema(const ResultTable& table) {
    std::vector<FieldInfo> fields;
    for (const auto& column : table.columns()) fields.push_back({column.name, field_kind(column)});
    if (!table.column("status")) fields.push_back({"status", FieldKind::String});
    return FieldSchema(std::move(fields));
}

void evaluate_filter(const ResultTable& table, const FilterExpression& filter, size_t first,
                     size_t last, RowMask& mask) {
    if (mask.size() < last) mask.resize(last);
    if (filter.empty()) {
        std::fill(mask.begin() + static_cast<std::ptrdiff_t>(first),
                  mask.begin() + static_cast<std::ptrdiff_t>(last), uint8_t{1});
        return;
    }
    RowSource source(table);
    for (size_t row = first; row < last; ++row) {
        source.row = row;
        mask[row] = filter.matches(source) ? 1 : 0;
    }
}

const std::vector<std::string_view>& text_search_columns() {
    static const std::vector<std::string_view> names{"kernel", "problem_key", "layer", "set",
                                                     "error"};
    return names;
}

void apply_text_search(const ResultTable& table, std::string_view needle, size_t first, size_t last,
                       RowMask& mask) {
    if (needle.empty()) return;
    std::string folded(needle);
    for (char& c : folded) c = lower(c);
    // Interned columns are searched once per distinct value, then looked up per row.
    struct Searched {
        const ResultTable::Column* column;
        std::vector<uint8_t> hit_by_code;
    };
    std::vector<Searched> searched;
    for (auto name : text_search_columns()) {
        const auto* column = table.column(name);
        if (!column || !column->is_text()) continue;
        Searched s{column, {}};
        if (column->interned)
            for (const auto& text : column->dictionary)
                s.hit_by_code.push_back(contains_folded(text, folded) ? 1 : 0);
        searched.push_back(std::move(s));
    }
    for (size_t row = first; row < last; ++row) {
        if (!mask[row]) continue;
        bool hit = false;
        for (const auto& s : searched) {
            hit = s.column->interned ? s.hit_by_code[s.column->codes[row]] != 0
                                     : contains_folded(s.column->text(row), folded);
            if (hit) break;
        }
        mask[row] = hit ? 1 : 0;
    }
}

void apply_status_set(const ResultTable& table, StatusSet allowed, size_t first, size_t last,
                      RowMask& mask) {
    if ((allowed & k_all_statuses) == k_all_statuses) return;
    const RowStatuses statuses(table);
    for (size_t row = first; row < last; ++row)
        if (mask[row] && !(allowed & status_bit(statuses.at(row)))) mask[row] = 0;
}

const std::vector<std::string_view>& problem_identity_columns() {
    static const std::vector<std::string_view> names{
        "N",          "C",          "K",          "G",        "Di",       "Hi",    "Wi",    "Z",
        "Y",          "X",          "stride_d",   "stride_h", "stride_w", "pad_d", "pad_h", "pad_w",
        "dilation_d", "dilation_h", "dilation_w", "variant",  "dtype",    "arch"};
    return names;
}

void keep_best_per_problem(const ResultTable& table, RowMask& mask) {
    const auto& names = problem_identity_columns();
    static const Problem defaults;
    const std::array<double, 19> default_sizes{
        double(defaults.N),         double(defaults.C),          double(defaults.K),
        double(defaults.G),         double(defaults.Di),         double(defaults.Hi),
        double(defaults.Wi),        double(defaults.Z),          double(defaults.Y),
        double(defaults.X),         double(defaults.stride_d),   double(defaults.stride_h),
        double(defaults.stride_w),  double(defaults.pad_d),      double(defaults.pad_h),
        double(defaults.pad_w),     double(defaults.dilation_d), double(defaults.dilation_h),
        double(defaults.dilation_w)};
    std::array<const double*, 19> sizes{};
    for (size_t i = 0; i < sizes.size(); ++i) {
        const auto* c = table.column(names[i]);
        sizes[i] = c && !c->is_text() ? c->numbers.data() : nullptr;
    }
    std::array<const ResultTable::Column*, 3> texts{};
    for (size_t i = 0; i < texts.size(); ++i) {
        const auto* c = table.column(names[sizes.size() + i]);
        texts[i] = c && c->is_text() ? c : nullptr;
    }
    const auto* latency = table.column("latency_ms");
    const RowStatuses statuses(table);
    const size_t rows = std::min(mask.size(), table.rows());

    std::unordered_map<ProblemKey, uint32_t, ProblemKeyHash> best;
    ProblemKey key;
    for (size_t row = 0; row < rows; ++row) {
        if (!mask[row]) continue;
        mask[row] = 0;
        if (statuses.at(row) != CellStatus::Ok) continue;
        const double ms = latency && !latency->is_text() ? latency->numbers[row] : k_no_value;
        if (!has_value(ms)) continue;
        for (size_t i = 0; i < sizes.size(); ++i) {
            // An empty field (a seed row appended to a 3D table) is the default too.
            const double v = sizes[i] ? sizes[i][row] : k_no_value;
            key.sizes[i] = has_value(v) ? v : default_sizes[i];
        }
        for (size_t i = 0; i < texts.size(); ++i)
            key.texts[i] = texts[i] ? texts[i]->text(row) : std::string_view();
        auto [it, inserted] = best.try_emplace(key, static_cast<uint32_t>(row));
        if (!inserted && ms < latency->numbers[it->second]) it->second = static_cast<uint32_t>(row);
    }
    for (const auto& entry : best) mask[entry.second] = 1;
}

std::vector<uint32_t> sorted_rows(const ResultTable& table, size_t column, bool descending) {
    const auto& c = table.columns().at(column);
    const size_t rows = table.rows();
    std::vector<Keyed> items(rows);
    if (!c.is_text()) {
        for (size_t row = 0; row < rows; ++row) {
            const double v = c.numbers[row];
            const uint64_t bits = ordered_bits(v);
            items[row] = {std::isnan(v) ? k_last
                          : descending  ? ~bits - 1
                                        : bits,
                          static_cast<uint32_t>(row)};
        }
        radix_sort(items);
        return rows_of(items);
    }
    if (c.interned) {
        // Rank the distinct values once; rows then sort by an integer.
        std::vector<uint32_t> by_rank(c.dictionary.size());
        for (uint32_t i = 0; i < by_rank.size(); ++i) by_rank[i] = i;
        std::sort(by_rank.begin(), by_rank.end(),
                  [&](uint32_t a, uint32_t b) { return c.dictionary[a] < c.dictionary[b]; });
        std::vector<uint64_t> key_of(by_rank.size());
        for (size_t rank = 0; rank < by_rank.size(); ++rank) {
            const bool empty = c.dictionary[by_rank[rank]].empty();
            key_of[by_rank[rank]] = empty ? k_last : descending ? by_rank.size() - rank : rank;
        }
        for (size_t row = 0; row < rows; ++row)
            items[row] = {key_of[c.codes[row]], static_cast<uint32_t>(row)};
        radix_sort(items);
        return rows_of(items);
    }
    std::vector<uint32_t> order(rows);
    for (uint32_t row = 0; row < rows; ++row) order[row] = row;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const auto ta = c.text(a), tb = c.text(b);
        if (ta.empty() || tb.empty()) return !ta.empty() && tb.empty();
        return descending ? tb < ta : ta < tb;
    });
    return order;
}

} // namespace gconv
