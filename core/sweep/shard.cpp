#include "sweep/shard.h"

#include "csv/content_key.h"
#include "util/error.h"

#include <charconv>
#include <optional>

namespace gconv {
namespace {

std::optional<size_t> parse_count(std::string_view text) {
    size_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

} // namespace

ShardSpec parse_shard(std::string_view text, std::string_view flag) {
    const std::string why = std::string(flag) + ": '" + std::string(text) + "' ";
    const size_t slash = text.find('/');
    if (slash == std::string_view::npos)
        throw Error(why + "is not i/n (e.g. 2/8: the second of 8 shards)");
    const auto index = parse_count(text.substr(0, slash));
    const auto count = parse_count(text.substr(slash + 1));
    if (!index || !count) throw Error(why + "is not i/n with whole numbers i and n (e.g. 2/8)");
    if (*count < 1 || *count > 1000000) throw Error(why + "needs 1 <= n <= 1000000");
    if (*index < 1 || *index > *count)
        throw Error(why + "needs 1 <= i <= n (shards are numbered from 1 to " +
                    std::to_string(*count) + ")");
    return ShardSpec{*index, *count};
}

size_t shard_of_cell(std::string_view kernel, std::string_view problem_key, size_t count) {
    // The content key is already a well-mixed 64-bit hash; its hex text is reused here.
    const std::string key = content_key(kernel, problem_key, "", "");
    const unsigned long long hash = std::stoull(key, nullptr, 16);
    return size_t(hash % count);
}

} // namespace gconv
