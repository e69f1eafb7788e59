#include "jit/cache.h"

#include "util/error.h"
#include "util/sha256.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>
#include <thread>

namespace gconv::jit {
namespace fs = std::filesystem;
namespace {

constexpr const char* k_format = "gconv-kernel-cache/1";

// Each field is tagged and length-prefixed, so that no two different inputs serialise alike.
void hash_field(Sha256& hash, char tag, std::string_view value) {
    const std::uint64_t size = value.size();
    hash.update(&tag, 1);
    hash.update(&size, sizeof(size));
    hash.update(value);
}

std::optional<std::string> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes to a name no other writer uses, then renames over the target: readers see the old
// file or the whole new one.
void write_atomically(const fs::path& path, std::string_view data) {
    static std::atomic<unsigned> counter{0};
    const std::string suffix =
        ".tmp-" + std::to_string(::getpid()) + "-" +
        std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + "-" +
        std::to_string(counter++);
    const fs::path temp = path.string() + suffix;
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out.write(data.data(), std::streamsize(data.size()));
        out.close();
        if (!out) {
            std::error_code ignored;
            fs::remove(temp, ignored);
            throw Error("cannot write kernel cache file " + temp.string());
        }
    }
    std::error_code error;
    fs::rename(temp, path, error);
    if (error) {
        fs::remove(temp, error);
        throw Error("cannot rename " + temp.string() + " to " + path.string() + ": " +
                    error.message());
    }
}

void remove_entry(const KernelCache& cache, const std::string& key) {
    std::error_code ignored;
    for (const char* extension : {".json", ".bin", ".log"}) {
        fs::remove(cache.entry_path(key, extension), ignored);
    }
}

} // namespace

KernelCache::KernelCache(fs::path root) : root_(std::move(root)) {}

fs::path KernelCache::default_root() {
    if (const char* dir = std::getenv("GCONV_CACHE_DIR"); dir && *dir) return dir;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return fs::path(xdg) / "gconv" / "kernels";
    if (const char* home = std::getenv("HOME"); home && *home)
        return fs::path(home) / ".cache" / "gconv" / "kernels";
    return fs::temp_directory_path() / "gconv-kernels";
}

std::string KernelCache::key(const CompileRequest& request, const std::string& toolchain_identity) {
    Sha256 hash;
    hash_field(hash, 'F', k_format);
    hash_field(hash, 'T', toolchain_identity);
    hash_field(hash, 'A', request.arch);
    hash_field(hash, 'N', request.name);
    hash_field(hash, 'S', request.source);
    // Header order does not change what the compiler sees; sort so that it does not change keys.
    std::vector<const NamedHeader*> headers;
    for (const NamedHeader& header : request.headers) headers.push_back(&header);
    std::sort(headers.begin(), headers.end(),
              [](const NamedHeader* a, const NamedHeader* b) { return a->name < b->name; });
    for (const NamedHeader* header : headers) {
        hash_field(hash, 'H', header->name);
        hash_field(hash, 'C', header->contents);
    }
    for (const std::string& option : request.options) hash_field(hash, 'O', option);
    return hash.hex_digest();
}

fs::path KernelCache::entry_path(const std::string& key, const char* extension) const {
    return root_ / key.substr(0, 2) / (key + extension);
}

std::optional<CompileResult> KernelCache::load(const std::string& key, bool* corrupt) const {
    if (corrupt) *corrupt = false;
    const std::optional<std::string> meta_text = read_file(entry_path(key, ".json"));
    if (!meta_text) return std::nullopt;

    auto reject = [&]() -> std::optional<CompileResult> {
        if (corrupt) *corrupt = true;
        remove_entry(*this, key);
        return std::nullopt;
    };

    const nlohmann::json meta = nlohmann::json::parse(*meta_text, nullptr, false);
    if (meta.is_discarded() || !meta.is_object() || meta.value("format", "") != k_format ||
        meta.value("key", "") != key || !meta.contains("ok")) {
        return reject();
    }
    CompileResult result;
    result.from_cache = true;
    result.ok = meta.value("ok", false);
    result.seconds = meta.value("compile_seconds", 0.0);
    result.log = read_file(entry_path(key, ".log")).value_or("");
    if (result.ok) {
        const std::optional<std::string> code = read_file(entry_path(key, ".bin"));
        if (!code || code->size() != meta.value("code_bytes", std::size_t(0)) ||
            sha256_hex(*code) != meta.value("code_sha256", "")) {
            return reject();
        }
        result.code.assign(code->begin(), code->end());
        result.kind = code_kind_from_string(meta.value("code_kind", ""));
        if (result.kind == CodeKind::none) return reject();
    }
    return result;
}

void KernelCache::store(const std::string& key, const CompileRequest& request,
                        const std::string& toolchain_identity, const CompileResult& result) const {
    const fs::path dir = entry_path(key, ".json").parent_path();
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) {
        throw Error("cannot create kernel cache directory " + dir.string() + ": " +
                    error.message() + " (set GCONV_CACHE_DIR to a writable folder)");
    }
    const std::string_view code(result.code.data(), result.code.size());
    nlohmann::json meta = {
        {"format", k_format},
        {"key", key},
        {"ok", result.ok},
        {"name", request.name},
        {"arch", request.arch},
        {"options", request.options},
        {"toolchain", toolchain_identity},
        {"compile_seconds", result.seconds},
        {"created_unix", std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count()},
    };
    if (result.ok) {
        meta["code_kind"] = to_string(result.kind);
        meta["code_bytes"] = result.code.size();
        meta["code_sha256"] = sha256_hex(code);
        write_atomically(entry_path(key, ".bin"), code);
    }
    write_atomically(entry_path(key, ".log"), result.log);
    write_atomically(entry_path(key, ".json"), meta.dump(2) + "\n");
}

CompileResult compile_cached(const KernelCache& cache, const Toolchain& toolchain,
                             const CompileRequest& request) {
    const std::string key = KernelCache::key(request, toolchain.identity);
    if (std::optional<CompileResult> hit = cache.load(key)) return std::move(*hit);
    CompileResult result = toolchain.compile(request);
    result.from_cache = false;
    cache.store(key, request, toolchain.identity, result);
    return result;
}

} // namespace gconv::jit
