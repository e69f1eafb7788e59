#pragma once
// `gconv-bench merge`: the subcommand that joins the CSVs of a sharded sweep (sweep/merge.h).
#include <string>

// argv[0] is "merge". Returns the exit status: 0 merged, 1 refused input, 2 bad command line.
int run_merge_command(int argc, char** argv, const std::string& command_line);
