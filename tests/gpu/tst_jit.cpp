// The JIT path without a GPU: hipRTC (NVRTC on NVIDIA) compiles for a named arch, and the
// cache and build pool work around it.
#include "jit/build_pool.h"
#include "jit/cache.h"
#include "jit/compiler.h"
#include "util/error.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <fstream>
#include <mutex>
#include <set>

using namespace gconv::jit;

namespace {

const char* k_header = R"(#pragma once
__device__ __forceinline__ unsigned gconv_tst_mix(unsigned i, unsigned salt) {
    return (i * 2654435761u) ^ salt;
}
)";

// A kernel whose text carries a random salt, so each run compiles something new.
CompileRequest kernel_request(unsigned salt, const std::string& arch = default_arch()) {
    CompileRequest request;
    request.name = "tst_jit.hip";
    request.source = "#include \"gconv_tst_mix.h\"\n"
                     "extern \"C\" __global__ void gconv_tst_fill(unsigned* out, unsigned n) {\n"
                     "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                     "    if (i < n) out[i] = gconv_tst_mix(i, " +
                     std::to_string(salt) + "u);\n}\n";
    request.headers = {{"gconv_tst_mix.h", k_header}};
    request.arch = arch;
    return request;
}

CompileRequest broken_request(unsigned salt) {
    CompileRequest request = kernel_request(salt);
    request.source += "extern \"C\" __global__ void gconv_tst_broken() { undeclared_" +
                      std::to_string(salt) + " = 1; }\n";
    return request;
}

// The native toolchain, counting how often it really compiles.
struct CountingToolchain {
    std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
    Toolchain toolchain;
    CountingToolchain() {
        Toolchain native = native_toolchain();
        toolchain.identity = native.identity;
        auto counter = calls;
        toolchain.compile = [counter, compile = native.compile](const CompileRequest& request) {
            ++*counter;
            return compile(request);
        };
    }
};

unsigned random_salt() {
    return QRandomGenerator::global()->generate();
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace

class TestJit : public QObject {
    Q_OBJECT

private slots:
    void compilesRealKernelToCubin();
    void compilesPtxForVirtualArch();
    void rejectsUnknownArch();
    void secondCompileIsCacheHit();
    void brokenSourceKeepsLogInCache();
    void corruptEntryIsRecompiled();
    void keyChangesWithEveryInput();
    void defaultRootFollowsEnvironment();
    void buildPoolCountsEachOutcome();
    void buildPoolCancels();
};

void TestJit::compilesRealKernelToCubin() {
    if (native_platform() != Platform::nvidia) QSKIP("cubin check is for the NVIDIA platform");
    const CompileResult result = compile(kernel_request(random_salt(), "sm_90"));
    QVERIFY2(result.ok, result.log.c_str());
    QCOMPARE(result.kind, CodeKind::cubin);
    QVERIFY(result.code.size() > 64);
    QCOMPARE(std::string(result.code.data(), 4), std::string("\x7f"
                                                             "ELF"));
    QVERIFY(!result.from_cache);
    QVERIFY(result.seconds > 0.0);
    QVERIFY(compiler_version().rfind("nvrtc ", 0) == 0);

    // sm_90a (wgmma and other arch-specific instructions) is a real target too.
    const CompileResult hopper = compile(kernel_request(random_salt(), "sm_90a"));
    QVERIFY2(hopper.ok, hopper.log.c_str());
    QCOMPARE(hopper.kind, CodeKind::cubin);
}

void TestJit::compilesPtxForVirtualArch() {
    if (native_platform() != Platform::nvidia) QSKIP("PTX is NVIDIA's");
    const CompileResult result = compile(kernel_request(random_salt(), "compute_90"));
    QVERIFY2(result.ok, result.log.c_str());
    QCOMPARE(result.kind, CodeKind::ptx);
    const std::string ptx(result.code.begin(), result.code.end());
    QVERIFY(ptx.find(".entry gconv_tst_fill") != std::string::npos);
}

void TestJit::rejectsUnknownArch() {
    QVERIFY_THROWS_EXCEPTION(gconv::Error, compile(kernel_request(1, "sm90")));
    QVERIFY_THROWS_EXCEPTION(gconv::Error, platform_options(Platform::amd, "sm_90"));
    QVERIFY_THROWS_EXCEPTION(gconv::Error, platform_options(Platform::nvidia, "gfx90a"));
    const auto amd = platform_options(Platform::amd, "gfx90a:xnack-");
    QCOMPARE(amd.front(), std::string("--offload-arch=gfx90a:xnack-"));
    const auto nvidia = platform_options(Platform::nvidia, "sm_90a");
    QCOMPARE(nvidia.front(), std::string("--gpu-architecture=sm_90a"));
}

void TestJit::secondCompileIsCacheHit() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const KernelCache cache(dir.path().toStdString());
    CountingToolchain counting;
    const CompileRequest request = kernel_request(random_salt());

    const CompileResult first = compile_cached(cache, counting.toolchain, request);
    QVERIFY2(first.ok, first.log.c_str());
    QVERIFY(!first.from_cache);
    QCOMPARE(counting.calls->load(), 1);
    const std::string key = KernelCache::key(request, counting.toolchain.identity);
    QVERIFY(std::filesystem::exists(cache.entry_path(key, ".bin")));
    QVERIFY(std::filesystem::exists(cache.entry_path(key, ".json")));

    const CompileResult second = compile_cached(cache, counting.toolchain, request);
    QVERIFY(second.ok);
    QVERIFY(second.from_cache);
    QCOMPARE(counting.calls->load(), 1);
    QVERIFY(second.code == first.code);
    QCOMPARE(second.kind, first.kind);

    // A second cache object over the same folder (another process) sees the entry too.
    const KernelCache other(dir.path().toStdString());
    QVERIFY(other.load(key).has_value());
}

void TestJit::brokenSourceKeepsLogInCache() {
    QTemporaryDir dir;
    const KernelCache cache(dir.path().toStdString());
    CountingToolchain counting;
    const unsigned salt = random_salt();
    const CompileRequest request = broken_request(salt);

    const CompileResult result = compile_cached(cache, counting.toolchain, request);
    QVERIFY(!result.ok);
    QVERIFY(result.code.empty());
    const std::string symbol = "undeclared_" + std::to_string(salt);
    QVERIFY2(result.log.find(symbol) != std::string::npos, result.log.c_str());

    const std::string key = KernelCache::key(request, counting.toolchain.identity);
    QCOMPARE(read_text(cache.entry_path(key, ".log")), result.log);
    QVERIFY(!std::filesystem::exists(cache.entry_path(key, ".bin")));

    const CompileResult again = compile_cached(cache, counting.toolchain, request);
    QVERIFY(!again.ok);
    QVERIFY(again.from_cache);
    QCOMPARE(again.log, result.log);
    QCOMPARE(counting.calls->load(), 1);
}

void TestJit::corruptEntryIsRecompiled() {
    QTemporaryDir dir;
    const KernelCache cache(dir.path().toStdString());
    CountingToolchain counting;
    const CompileRequest request = kernel_request(random_salt());
    const CompileResult first = compile_cached(cache, counting.toolchain, request);
    QVERIFY2(first.ok, first.log.c_str());
    const std::string key = KernelCache::key(request, counting.toolchain.identity);

    // Same size, one byte flipped at a random place: only the hash can tell.
    {
        std::string code = read_text(cache.entry_path(key, ".bin"));
        const auto at = QRandomGenerator::global()->bounded(int(code.size()));
        code[std::size_t(at)] = char(code[std::size_t(at)] ^ 0x40);
        std::ofstream(cache.entry_path(key, ".bin"), std::ios::binary | std::ios::trunc) << code;
    }
    bool corrupt = false;
    QVERIFY(!cache.load(key, &corrupt).has_value());
    QVERIFY(corrupt);
    QVERIFY(!std::filesystem::exists(cache.entry_path(key, ".json")));

    const CompileResult recompiled = compile_cached(cache, counting.toolchain, request);
    QVERIFY(recompiled.ok);
    QVERIFY(!recompiled.from_cache);
    QCOMPARE(counting.calls->load(), 2);

    // Truncated metadata is corrupt as well.
    {
        const std::string meta = read_text(cache.entry_path(key, ".json"));
        std::ofstream(cache.entry_path(key, ".json"), std::ios::trunc)
            << meta.substr(0, meta.size() / 2);
    }
    QVERIFY(!cache.load(key, &corrupt).has_value());
    QVERIFY(corrupt);
    const CompileResult again = compile_cached(cache, counting.toolchain, request);
    QVERIFY(again.ok && !again.from_cache);
    QCOMPARE(counting.calls->load(), 3);
    QVERIFY(compile_cached(cache, counting.toolchain, request).from_cache);
}

void TestJit::keyChangesWithEveryInput() {
    const CompileRequest base = kernel_request(random_salt());
    const std::string identity = native_toolchain().identity;
    const std::string key = KernelCache::key(base, identity);
    QCOMPARE(key.size(), std::size_t(64));
    QCOMPARE(KernelCache::key(base, identity), key);

    std::set<std::string> keys{key};
    auto expect_new = [&](const CompileRequest& changed, const std::string& id) {
        return keys.insert(KernelCache::key(changed, id)).second;
    };
    CompileRequest r = base;
    r.options.push_back("-DGCONV_TST=1");
    QVERIFY(expect_new(r, identity));
    r = base;
    r.arch = "sm_90a";
    QVERIFY(expect_new(r, identity));
    r = base;
    r.headers[0].contents += "\n// changed\n";
    QVERIFY(expect_new(r, identity));
    r = base;
    r.headers[0].name = "other.h";
    QVERIFY(expect_new(r, identity));
    r = base;
    r.source += " ";
    QVERIFY(expect_new(r, identity));
    QVERIFY(expect_new(base, identity + " next"));
    // Moving text between two fields must not collide.
    r = base;
    r.options = {"-DA", "B"};
    CompileRequest s = base;
    s.options = {"-DAB"};
    QVERIFY(KernelCache::key(r, identity) != KernelCache::key(s, identity));

    // The order of the named headers does not matter.
    r = base;
    r.headers.push_back({"zzz.h", "#pragma once\n"});
    s = base;
    s.headers.insert(s.headers.begin(), {"zzz.h", "#pragma once\n"});
    QCOMPARE(KernelCache::key(r, identity), KernelCache::key(s, identity));
}

void TestJit::defaultRootFollowsEnvironment() {
    QTemporaryDir dir;
    const QByteArray saved = qgetenv("GCONV_CACHE_DIR");
    qputenv("GCONV_CACHE_DIR", dir.path().toUtf8());
    QCOMPARE(KernelCache::default_root().string(), dir.path().toStdString());
    qunsetenv("GCONV_CACHE_DIR");
    const QByteArray saved_xdg = qgetenv("XDG_CACHE_HOME");
    qputenv("XDG_CACHE_HOME", dir.path().toUtf8());
    QCOMPARE(KernelCache::default_root(),
             std::filesystem::path(dir.path().toStdString()) / "gconv" / "kernels");
    if (saved_xdg.isNull())
        qunsetenv("XDG_CACHE_HOME");
    else
        qputenv("XDG_CACHE_HOME", saved_xdg);
    if (!saved.isNull()) qputenv("GCONV_CACHE_DIR", saved);
}

void TestJit::buildPoolCountsEachOutcome() {
    QTemporaryDir dir;
    const KernelCache cache(dir.path().toStdString());
    CountingToolchain counting;

    // 8 sources: a random 1..3 of them broken, at random places.
    std::vector<CompileRequest> requests;
    std::set<std::size_t> broken;
    const int broken_count = 1 + QRandomGenerator::global()->bounded(3);
    while (int(broken.size()) < broken_count)
        broken.insert(std::size_t(QRandomGenerator::global()->bounded(8)));
    for (std::size_t i = 0; i < 8; ++i) {
        const unsigned salt = random_salt() + unsigned(i);
        requests.push_back(broken.count(i) ? broken_request(salt) : kernel_request(salt));
    }

    std::mutex seen_mutex;
    std::vector<BuildProgress> seen;
    BuildOptions options;
    options.workers = 2;
    options.on_progress = [&](const BuildProgress& p) {
        std::lock_guard lock(seen_mutex);
        seen.push_back(p);
    };
    std::vector<CompileResult> results;
    const BuildStats stats = build_all(requests, cache, counting.toolchain, options, &results);
    QCOMPARE(stats.compiled, 8 - broken.size());
    QCOMPARE(stats.failed, broken.size());
    QCOMPARE(stats.cached, std::size_t(0));
    QCOMPARE(stats.skipped, std::size_t(0));
    QCOMPARE(counting.calls->load(), 8);
    QCOMPARE(seen.size(), std::size_t(8));
    std::set<std::size_t> indices;
    for (std::size_t n = 0; n < seen.size(); ++n) {
        const BuildProgress& p = seen[n];
        indices.insert(p.index);
        QCOMPARE(p.done, n + 1);
        QCOMPARE(p.total, std::size_t(8));
        QCOMPARE(p.status, broken.count(p.index) ? BuildStatus::failed : BuildStatus::compiled);
        if (p.status == BuildStatus::failed) QVERIFY(!p.log_head.empty());
        QCOMPARE(results[p.index].ok, p.status != BuildStatus::failed);
    }
    QCOMPARE(indices.size(), std::size_t(8));

    seen.clear();
    const BuildStats again = build_all(requests, cache, counting.toolchain, options);
    QCOMPARE(again.compiled, std::size_t(0));
    QCOMPARE(again.cached, 8 - broken.size());
    QCOMPARE(again.failed, broken.size());
    QCOMPARE(counting.calls->load(), 8);
    for (const BuildProgress& p : seen)
        QCOMPARE(p.status, broken.count(p.index) ? BuildStatus::failed : BuildStatus::cached);
}

void TestJit::buildPoolCancels() {
    QTemporaryDir dir;
    const KernelCache cache(dir.path().toStdString());
    CountingToolchain counting;
    std::vector<CompileRequest> requests;
    for (int i = 0; i < 6; ++i) requests.push_back(kernel_request(random_salt() + unsigned(i)));

    std::atomic<bool> cancel{false};
    BuildOptions options;
    options.workers = 1;
    options.cancel = &cancel;
    options.on_progress = [&](const BuildProgress&) { cancel = true; };
    const BuildStats stats = build_all(requests, cache, counting.toolchain, options);
    QCOMPARE(stats.compiled, std::size_t(1));
    QCOMPARE(stats.skipped, std::size_t(5));
    QCOMPARE(counting.calls->load(), 1);
}

QTEST_APPLESS_MAIN(TestJit)
#include "tst_jit.moc"
