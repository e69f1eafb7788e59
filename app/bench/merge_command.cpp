#include "merge_command.h"

#include "sweep/merge.h"
#include "util/build_info.h"
#include "util/cli_args.h"
#include "util/error.h"

#include <iostream>
#include <vector>

namespace {

using namespace gconv;

const char* k_merge_details =
    "Joins the results CSVs of one sweep (the shards of gconv-bench --shard, or reruns) into one\n"
    "full-form CSV. Every input must be full-form (a --csv-schema seed file has no content keys)\n"
    "and its sidecar FILE.csv.meta.json must agree with the others on variant, dtype, arch,\n"
    "toolchain, config sha256 and problem-set hashes. Cells are de-duplicated by content key: a\n"
    "row with status ok beats any other, then the later timestamp wins, then the later input.\n"
    "OUT.csv.meta.json lists the inputs.\n\n"
    "exit status: 0 merged, 1 an input was refused (nothing is written), 2 bad command line.\n";

CliArgs make_merge_cli() {
    return CliArgs("gconv-bench merge", "A.csv B.csv ... -o OUT.csv [--force]",
                   {
                       {"--output", "FILE", "the merged CSV (also -o FILE); overwritten", ""},
                       {"--force", "", "merge inputs without a sidecar, unchecked", ""},
                       {"--help", "", "show this help", ""},
                   });
}

} // namespace

int run_merge_command(int argc, char** argv, const std::string& command_line) {
    // CliArgs knows long options only: -o is spelled --output for it.
    std::vector<std::string> words;
    for (int i = 0; i < argc; ++i)
        words.push_back(std::string(argv[i]) == "-o" ? "--output" : std::string(argv[i]));
    std::vector<char*> args;
    for (auto& w : words) args.push_back(w.data());
    CliArgs cli = make_merge_cli();
    if (auto code = cli.parse_or_exit(int(args.size()), args.data(), k_merge_details)) return *code;
    const auto usage = [](const std::string& why) {
        std::cerr << "gconv-bench merge: " << why << " (see gconv-bench merge --help)\n";
        return 2;
    };
    if (!cli.has("--output")) return usage("-o OUT.csv is required");
    if (cli.positional().empty()) return usage("no input CSV given");
    std::vector<std::filesystem::path> inputs(cli.positional().begin(), cli.positional().end());
    MergeOptions options;
    options.force = cli.has("--force");
    options.provenance = {{"tool", "gconv-bench merge"},
                          {"version", GCONV_VERSION},
                          {"git_commit", git_commit()},
                          {"command_line", command_line},
                          {"start_time", utc_timestamp_now()}};
    try {
        const MergeReport report = merge_results(inputs, *cli.get("--output"), options);
        for (const auto& w : report.warnings)
            std::cerr << "gconv-bench merge: warning: " << w << "\n";
        std::cerr << "merge: " << report.rows_in << " rows from " << inputs.size() << " files, "
                  << report.duplicates << " duplicates dropped, " << report.rows_out
                  << " rows written to " << *cli.get("--output") << "\n";
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "gconv-bench merge: " << e.what() << "\n";
        return 1;
    }
}
