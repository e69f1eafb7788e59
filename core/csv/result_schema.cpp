#include "csv/result_schema.h"

#include "util/error.h"

#include <charconv>
#include <cmath>

namespace gconv {
namespace {

void append_integer(std::string& out, int64_t value) {
    char buffer[24];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, end);
}

// Shortest text that reads back to the same double; empty for NaN.
void append_real(std::string& out, double value) {
    if (std::isnan(value)) return;
    char buffer[32];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, end);
}

// Only a cell that ran has a latency; every other one reads N/A, tflops 0, as in the seed.
bool has_latency(const ResultRow& r) {
    return (r.status == CellStatus::Ok || r.status == CellStatus::Fail) &&
           !std::isnan(r.latency_ms);
}

int64_t as_integer(double value) {
    return std::isnan(value) ? 0 : static_cast<int64_t>(value);
}

constexpr unsigned ck_cols = in_full | in_ck;
constexpr unsigned seed_cols = in_full | in_ck | in_seed;
constexpr unsigned seed_3d_cols = in_full | in_ck | in_seed | in_seed_3d_only;

#define GCONV_TEXT(field, forms, repetitive)                                                       \
    ResultColumn {                                                                                 \
#field, ColumnType::Text, forms, repetitive,                                               \
            [](const ResultRow& r,                                                                 \
               std::string& out) { out += r.field; },                                              \
                                                   [](ResultRow & r,                               \
                                                      std::string_view                             \
                                                          t) { r.field = std::string(t); },        \
                                                                                         nullptr   \
    }
#define GCONV_SHAPE(field, forms)                                                                  \
    ResultColumn {                                                                                 \
#field, ColumnType::Integer, forms, false,                                               \
            [](const ResultRow& r, std::string& out) { append_integer(out, r.problem.field); },  \
            nullptr, [](ResultRow& r, double v) {                                                \
                if (!std::isnan(v)) r.problem.field = as_integer(v);                             \
            }         \
    }
#define GCONV_REAL(field, forms)                                                                   \
    ResultColumn {                                                                                 \
#field, ColumnType::Real, forms, false,                                                    \
            [](const ResultRow& r,                                                                 \
               std::string& out) { append_real(out, r.field); }, nullptr,                          \
                                                              [](ResultRow & r,                    \
                                                                 double v) { r.field = v; }        \
    }
#define GCONV_INT(field, forms)                                                                    \
    ResultColumn {                                                                                 \
#field, ColumnType::Integer, forms, false,                                               \
            [](const ResultRow& r, std::string& out) { append_integer(out, r.field); }, nullptr, \
            [](ResultRow& r, double v) { r.field = static_cast<decltype(r.field)>(as_integer(v)); }         \
    }

std::vector<ResultColumn> make_columns() {
    return {
        GCONV_TEXT(kernel, seed_cols, true),
        GCONV_INT(problem_idx, seed_cols),
        GCONV_SHAPE(N, seed_cols),
        GCONV_SHAPE(C, seed_cols),
        GCONV_SHAPE(K, seed_cols),
        GCONV_SHAPE(G, seed_cols),
        GCONV_SHAPE(Di, seed_3d_cols),
        GCONV_SHAPE(Hi, seed_cols),
        GCONV_SHAPE(Wi, seed_cols),
        GCONV_SHAPE(Z, seed_3d_cols),
        GCONV_SHAPE(Y, seed_cols),
        GCONV_SHAPE(X, seed_cols),
        GCONV_SHAPE(stride_d, seed_3d_cols),
        GCONV_SHAPE(stride_h, seed_cols),
        GCONV_SHAPE(stride_w, seed_cols),
        GCONV_SHAPE(pad_d, seed_3d_cols),
        GCONV_SHAPE(pad_h, seed_cols),
        GCONV_SHAPE(pad_w, seed_cols),
        GCONV_SHAPE(dilation_d, ck_cols),
        GCONV_SHAPE(dilation_h, ck_cols),
        GCONV_SHAPE(dilation_w, ck_cols),
        // The seed marks a failed cell with latency N/A (and tflops 0).
        ResultColumn{"latency_ms", ColumnType::Real, seed_cols, false,
                     [](const ResultRow& r, std::string& out) {
                         if (has_latency(r))
                             append_real(out, r.latency_ms);
                         else
                             out += "N/A";
                     },
                     nullptr, [](ResultRow& r, double v) { r.latency_ms = v; }},
        ResultColumn{"tflops", ColumnType::Real, seed_cols, false,
                     [](const ResultRow& r, std::string& out) {
                         append_real(out, has_latency(r) ? r.tflops : 0.0);
                     },
                     nullptr, [](ResultRow& r, double v) { r.tflops = std::isnan(v) ? 0.0 : v; }},
        ResultColumn{
            "non_zero", ColumnType::Bool, seed_cols, false,
            [](const ResultRow& r, std::string& out) { out += r.non_zero ? "true" : "false"; },
            nullptr, [](ResultRow& r, double v) { r.non_zero = v == 1.0; }},
        ResultColumn{"status", ColumnType::Text, in_full, true,
                     [](const ResultRow& r, std::string& out) { out += to_string(r.status); },
                     [](ResultRow& r, std::string_view t) {
                         auto status = cell_status_from_string(t);
                         if (!status) {
                             std::string allowed;
                             for (const auto& name : cell_status_names())
                                 allowed += (allowed.empty() ? "" : ", ") + name;
                             throw Error("unknown status \"" + std::string(t) +
                                         "\" (allowed: " + allowed + ")");
                         }
                         r.status = *status;
                     },
                     nullptr},
        ResultColumn{"verified", ColumnType::Bool, in_full, false,
                     [](const ResultRow& r, std::string& out) {
                         if (r.verified) out += *r.verified ? "true" : "false";
                     },
                     nullptr,
                     [](ResultRow& r, double v) {
                         if (std::isnan(v))
                             r.verified.reset();
                         else
                             r.verified = v == 1.0;
                     }},
        GCONV_REAL(max_rel_err, in_full),
        GCONV_REAL(latency_median_ms, in_full),
        GCONV_REAL(cv, in_full),
        GCONV_REAL(gbps, in_full),
        GCONV_REAL(baseline_ms, in_full),
        GCONV_REAL(speedup, in_full),
        GCONV_TEXT(error, in_full, true),
        GCONV_TEXT(variant, in_full, true),
        GCONV_TEXT(dtype, in_full, true),
        ResultColumn{"ndim", ColumnType::Integer, in_full, false,
                     [](const ResultRow& r, std::string& out) {
                         append_integer(out, r.problem.ndim_spatial);
                     },
                     nullptr,
                     [](ResultRow& r, double v) {
                         if (!std::isnan(v)) r.problem.ndim_spatial = static_cast<int>(v);
                     }},
        GCONV_TEXT(arch, in_full, true),
        GCONV_TEXT(device, in_full, true),
        GCONV_TEXT(device_index, in_full, true),
        GCONV_TEXT(toolchain, in_full, true),
        GCONV_TEXT(content_key, in_full, false),
        GCONV_TEXT(problem_key, in_full, true),
        ResultColumn{"layer", ColumnType::Text, in_full, true,
                     [](const ResultRow& r, std::string& out) { out += r.problem.layer; },
                     [](ResultRow& r, std::string_view t) { r.problem.layer = std::string(t); },
                     nullptr},
        GCONV_TEXT(set, in_full, true),
        GCONV_INT(warmup, in_full),
        GCONV_INT(repeat, in_full),
        GCONV_TEXT(timestamp, in_full, false),
    };
}

#undef GCONV_TEXT
#undef GCONV_SHAPE
#undef GCONV_REAL
#undef GCONV_INT

} // namespace

std::string_view to_string(CsvForm form) {
    switch (form) {
    case CsvForm::Full:
        return "full";
    case CsvForm::Ck:
        return "ck";
    case CsvForm::Seed:
        return "seed";
    }
    return "?";
}

std::optional<CsvForm> csv_form_from_string(std::string_view text) {
    for (CsvForm form : {CsvForm::Full, CsvForm::Ck, CsvForm::Seed})
        if (to_string(form) == text) return form;
    return std::nullopt;
}

const std::vector<ResultColumn>& result_columns() {
    static const std::vector<ResultColumn> columns = make_columns();
    return columns;
}

const ResultColumn* find_result_column(std::string_view name) {
    for (const auto& column : result_columns())
        if (column.name == name) return &column;
    return nullptr;
}

std::vector<const ResultColumn*> columns_for(CsvForm form, bool three_d) {
    std::vector<const ResultColumn*> out;
    for (const auto& column : result_columns()) {
        bool included = false;
        switch (form) {
        case CsvForm::Full:
            included = column.forms & in_full;
            break;
        case CsvForm::Ck:
            included = column.forms & in_ck;
            break;
        case CsvForm::Seed:
            included = (column.forms & in_seed) && (three_d || !(column.forms & in_seed_3d_only));
            break;
        }
        if (included) out.push_back(&column);
    }
    return out;
}

} // namespace gconv
