#pragma once
// gconv-bench merge: many results CSVs of one sweep (its shards, or reruns) into one. The inputs
// must be full-form files whose sidecars (FILE.csv.meta.json) agree on what was measured; rows
// are de-duplicated by content key.
#include "csv/result_row.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace gconv {

// The sidecar fields that must agree across the inputs (JSON pointers): two files that differ
// in any of them measured different things and cannot share one table.
const std::vector<std::string>& merge_sidecar_fields();

// Throws gconv::Error naming the field, the two files and both values when the sidecars differ
// in one of merge_sidecar_fields() (a field missing from one of them counts as differing).
// `names` label the sidecars in messages.
void check_sidecars_agree(const std::vector<nlohmann::json>& sidecars,
                          const std::vector<std::string>& names);

// The de-duplication rule: true when `later` (read after `kept`) replaces it. A measured row
// (status ok) beats any other; between two of the same kind the later timestamp wins, and on a
// tie the later file.
bool replaces_row(const ResultRow& later, const ResultRow& kept);

struct DedupResult {
    std::vector<ResultRow> rows; // one per content key, in the order keys first appear
    size_t duplicates = 0;       // rows dropped
};
// Throws gconv::Error when a row has no content key.
DedupResult dedup_by_content_key(std::vector<ResultRow> rows_in_file_order);

struct MergeOptions {
    // Inputs without a sidecar are merged unchecked instead of refused.
    bool force = false;
    // Added to the merged sidecar as is (tool, version, command line: what core cannot know).
    nlohmann::json provenance = nlohmann::json::object();
};

struct MergeReport {
    size_t rows_in = 0;
    size_t rows_out = 0;
    size_t duplicates = 0;
    std::vector<std::string> warnings;
    nlohmann::json sidecar; // as written to OUTPUT.meta.json
};

// Reads every input with the results reader, checks forms and sidecars, de-duplicates and
// writes `output` (full form) and `output`.meta.json. Throws gconv::Error naming the file at
// fault; nothing is written then.
MergeReport merge_results(const std::vector<std::filesystem::path>& inputs,
                          const std::filesystem::path& output, const MergeOptions& options = {});

} // namespace gconv
