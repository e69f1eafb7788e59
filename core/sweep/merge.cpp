#include "sweep/merge.h"

#include "csv/csv_reader.h"
#include "csv/csv_writer.h"
#include "util/error.h"
#include "util/json_file.h"
#include "util/sha256.h"

#include <fstream>
#include <unordered_map>

namespace gconv {
namespace fs = std::filesystem;

const std::vector<std::string>& merge_sidecar_fields() {
    static const std::vector<std::string> fields = {
        "/variant", "/dtype", "/arch", "/toolchain", "/config/sha256", "/problem_sets"};
    return fields;
}

namespace {

std::string shown(const nlohmann::json& sidecar, const nlohmann::json::json_pointer& field) {
    return sidecar.contains(field) ? sidecar.at(field).dump() : std::string("(missing)");
}

bool is_ok(const ResultRow& row) {
    return row.status == CellStatus::Ok;
}

std::string sidecar_path(const fs::path& csv) {
    return csv.string() + ".meta.json";
}

} // namespace

void check_sidecars_agree(const std::vector<nlohmann::json>& sidecars,
                          const std::vector<std::string>& names) {
    for (const std::string& text : merge_sidecar_fields()) {
        const nlohmann::json::json_pointer field(text);
        for (size_t i = 1; i < sidecars.size(); ++i) {
            const bool has_first = sidecars[0].contains(field), has = sidecars[i].contains(field);
            if (has_first == has && (!has || sidecars[0].at(field) == sidecars[i].at(field)))
                continue;
            throw Error("the sidecars disagree on \"" + text.substr(1) + "\": " + names[0] +
                        " has " + shown(sidecars[0], field) + ", " + names[i] + " has " +
                        shown(sidecars[i], field) +
                        " (merge joins results of one sweep only: same variant, dtype, arch, "
                        "toolchain, config and problem sets)");
        }
    }
}

bool replaces_row(const ResultRow& later, const ResultRow& kept) {
    if (is_ok(later) != is_ok(kept)) return is_ok(later);
    // ISO 8601 UTC timestamps of one format compare as text.
    return later.timestamp >= kept.timestamp;
}

DedupResult dedup_by_content_key(std::vector<ResultRow> rows_in_file_order) {
    DedupResult out;
    std::unordered_map<std::string, size_t> slot; // content key -> index in out.rows
    for (ResultRow& row : rows_in_file_order) {
        if (row.content_key.empty())
            throw Error("a row of kernel " + row.kernel + ", problem_idx " +
                        std::to_string(row.problem_idx) + " has no content_key");
        const auto [it, inserted] = slot.try_emplace(row.content_key, out.rows.size());
        if (inserted) {
            out.rows.push_back(std::move(row));
            continue;
        }
        ++out.duplicates;
        if (replaces_row(row, out.rows[it->second])) out.rows[it->second] = std::move(row);
    }
    return out;
}

MergeReport merge_results(const std::vector<fs::path>& inputs, const fs::path& output,
                          const MergeOptions& options) {
    if (inputs.empty()) throw Error("merge needs at least one input CSV");
    MergeReport report;
    std::vector<ResultRow> rows;
    std::vector<nlohmann::json> sidecars;
    std::vector<std::string> sidecar_names;
    nlohmann::json listed = nlohmann::json::array();
    for (const fs::path& input : inputs) {
        std::error_code same_ec;
        if (fs::equivalent(input, output, same_ec))
            throw Error(input.string() + ": is also the output (-o); write the merge elsewhere");
        const CsvReadResult read = read_results_csv(input);
        if (read.form != CsvForm::Full)
            throw Error(input.string() + ": is a " + std::string(to_string(read.form)) +
                        "-form CSV; merge needs full-form files (gconv-bench --csv-schema full, "
                        "the default), whose content_key column identifies each cell");
        if (!read.table.column("content_key"))
            throw Error(input.string() + ": has no content_key column (not written by "
                                         "gconv-bench); merge cannot de-duplicate it");
        for (const auto& w : read.warnings) report.warnings.push_back(input.string() + ": " + w);
        nlohmann::json entry = {{"csv", input.string()}, {"rows", read.table.rows()}};
        std::error_code ec;
        const std::string meta = sidecar_path(input);
        if (fs::exists(meta, ec)) {
            const nlohmann::json sidecar = read_json_file(meta);
            for (const char* key :
                 {"state", "shard", "device", "devices", "start_time", "end_time"})
                if (sidecar.contains(key)) entry[key] = sidecar[key];
            if (sidecar.value("state", "") != "finished")
                report.warnings.push_back(meta + ": state is " +
                                          sidecar.value("state", std::string("(missing)")) +
                                          ", not finished: its sweep may lack cells");
            sidecars.push_back(sidecar);
            sidecar_names.push_back(meta);
        } else if (options.force) {
            report.warnings.push_back(input.string() + ": no sidecar " + meta +
                                      "; merged unchecked (--force)");
            entry["sidecar"] = nullptr;
        } else {
            throw Error(input.string() + ": no sidecar " + meta +
                        " to check it against the other inputs (--force merges it unchecked)");
        }
        listed.push_back(entry);
        for (size_t r = 0; r < read.table.rows(); ++r) rows.push_back(read.table.row(r));
    }
    check_sidecars_agree(sidecars, sidecar_names);
    report.rows_in = rows.size();
    DedupResult dedup = dedup_by_content_key(std::move(rows));
    report.rows_out = dedup.rows.size();
    report.duplicates = dedup.duplicates;

    nlohmann::json sidecar = options.provenance;
    if (!sidecars.empty()) {
        for (const std::string& text : merge_sidecar_fields()) {
            const nlohmann::json::json_pointer field(text);
            if (sidecars[0].contains(field)) sidecar[field] = sidecars[0].at(field);
        }
        if (sidecars[0].contains("config")) sidecar["config"] = sidecars[0]["config"];
    }
    sidecar["inputs"] = listed;
    sidecar["merge"] = {{"rows_in", report.rows_in},
                        {"rows_out", report.rows_out},
                        {"duplicates", report.duplicates},
                        {"rule", "one row per content key: a row with status ok beats any "
                                 "other, then the later timestamp, then the later input"}};
    sidecar["state"] = "finished";
    sidecar["end_time"] = utc_timestamp_now();

    CsvWriterOptions writer_options;
    writer_options.form = CsvForm::Full;
    {
        CsvWriter writer(output, writer_options);
        for (const ResultRow& row : dedup.rows) writer.write(row);
        writer.close();
    }
    const std::string meta = sidecar_path(output);
    std::ofstream out(meta);
    out << sidecar.dump(2) << "\n";
    if (!out) throw Error("cannot write the sidecar " + meta);
    report.sidecar = std::move(sidecar);
    return report;
}

} // namespace gconv
