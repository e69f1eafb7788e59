#pragma once
// Splitting one sweep over many hosts (gconv-bench --shard i/n): every cell belongs to exactly
// one shard, decided by the cell's identity alone, so each host computes the same split from
// the same command line whatever the order of the pool or which kernels compile.
#include <cstddef>
#include <string>
#include <string_view>

namespace gconv {

struct ShardSpec {
    size_t index = 1; // 1-based, as written on the command line
    size_t count = 1;
    std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// Parses "i/n" with 1 <= i <= n; throws gconv::Error naming `flag` and the value otherwise.
ShardSpec parse_shard(std::string_view text, std::string_view flag = "--shard");

// The 0-based shard of a cell among `count`: a hash of the content key's varying parts
// (kernel name, problem key) modulo count. Arch and toolchain are the same for every cell of
// a sweep, and the toolchain is only known after the build, which the shard must precede.
size_t shard_of_cell(std::string_view kernel, std::string_view problem_key, size_t count);

inline bool cell_in_shard(const ShardSpec& shard, std::string_view kernel,
                          std::string_view problem_key) {
    return shard_of_cell(kernel, problem_key, shard.count) == shard.index - 1;
}

} // namespace gconv
