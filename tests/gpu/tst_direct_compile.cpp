// The direct-convolution kernels (gconv_direct.h) of every direction, data type and spatial
// rank, with each vector width, compile for sm_90 through hipRTC -> NVRTC and for gfx90a
// through ROCm's hipRTC; forward also with two rows per thread (the sliding-window entries).
// On sm_90 the K x K filter entries keep their windows and sums in registers: no spills. No GPU
// is needed.
#include "codegen/direct_plan.h"
#include "config/kernel_name.h"
#include "jit/amd_hiprtc.h"
#include "jit/compiler.h"
#include "jit/kernel_build.h"

#include <QtTest>

#include <functional>
#include <regex>

using namespace gconv;

namespace {

// A legal direct config for warp size `warp`: tile_n channels, `warps` warps, tile_k pixels.
KernelConfig direct_config(Variant v, DataType dt, int nd, int vec, int warp) {
    KernelConfig c;
    c.variant = v, c.dtype = dt, c.ndim_spatial = nd;
    c.pipeline = Pipeline::Direct;
    c.vector_size_a = c.vector_size_b = c.vector_size_c = vec;
    c.wave_m = 2, c.wave_n = 1, c.wave_k = 1;
    const Triple wt = direct_warp_tile(dt);
    c.warp_tile_m = wt[0], c.warp_tile_n = wt[1], c.warp_tile_k = wt[2];
    c.tile_n = 8 * vec;
    c.tile_k = v == Variant::BwdWeight ? 16 : 4;
    c.tile_m = (2 * warp / 8) * c.tile_k;
    if (v == Variant::BwdWeight) c.split_k_mode = SplitKMode::Atomic;
    return c;
}

// The staged K x K entries (dsb): 2D forward / bwd_data, runs of `run` rows per thread.
KernelConfig staged_config(Variant v, DataType dt, int vec, int run, int warp) {
    KernelConfig c = direct_config(v, dt, 2, vec, warp);
    c.double_smem_buffer = true;
    c.tile_k = run;
    c.tile_m = (2 * warp / 8) * run;
    return c;
}

// The tensor-core K x K entries (warp tile 16x8x16): 2D forward / bwd_data, 16-bit types.
KernelConfig tc_config(Variant v, DataType dt, int tile_n, int warps, int tile_k, int cols) {
    KernelConfig c = direct_config(v, dt, 2, 8, 32);
    c.warp_tile_m = k_direct_tc_warp_tile[0], c.warp_tile_n = k_direct_tc_warp_tile[1];
    c.warp_tile_k = k_direct_tc_warp_tile[2];
    c.wave_m = warps, c.tile_n = tile_n, c.tile_k = tile_k, c.tile_m = 16 * tile_k * cols;
    return c;
}

std::vector<KernelConfig> all_configs(int warp) {
    std::vector<KernelConfig> out;
    for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight})
        for (DataType dt : {DataType::BF16, DataType::FP16, DataType::FP32})
            for (int nd : {2, 3}) {
                for (int vec : {16 / element_bytes(dt), 2})
                    out.push_back(direct_config(v, dt, nd, vec, warp));
                if (v == Variant::Forward) { // two rows per thread
                    KernelConfig rows = direct_config(v, dt, nd, 16 / element_bytes(dt), warp);
                    rows.tile_m *= 2;
                    out.push_back(rows);
                }
                if (v != Variant::BwdWeight && nd == 2)
                    out.push_back(staged_config(v, dt, 16 / element_bytes(dt), 4, warp));
            }
    return out;
}

} // namespace

class TestDirectCompile : public QObject {
    Q_OBJECT

    void compile_all(const char* arch, int warp,
                     const std::function<jit::CompileResult(const jit::CompileRequest&)>& compile) {
        QStringList failures;
        int compiled = 0;
        for (const auto& config : all_configs(warp)) {
            const auto result = compile(jit::kernel_compile_request(config, arch));
            ++compiled;
            if (!result.ok || result.code.empty())
                failures << QString::fromStdString(kernel_name(config) + ":\n" +
                                                   jit::log_head(result.log, 12));
        }
        qInfo("%s: %d direct kernels compiled", arch, compiled);
        QCOMPARE(compiled, 42 + 6);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
    }

    // ptxas's report of the K x K entries of `configs` that `wanted` keeps, compiled for sm_90:
    // each entry found, its registers logged, no spill stores and no stack frame. Adds the entries
    // checked.
    void expect_no_spills(const std::vector<KernelConfig>& configs,
                          const std::function<bool(const KernelConfig&, int)>& wanted,
                          int& entries) {
        for (const KernelConfig& c : configs) {
            auto request = jit::kernel_compile_request(c, "sm_90");
            request.options.push_back("--ptxas-options=-v");
            const auto result = jit::compile(request);
            QVERIFY2(result.ok, qPrintable(QString::fromStdString(jit::log_head(result.log, 12))));
            for (int f : k_direct_filters)
                for (int stride : {1, 2}) {
                    if (!wanted(c, f)) continue;
                    if (stride == 2 && !direct_has_stride_2_entries(c)) continue;
                    const std::string entry =
                        direct_filter_entry_name(direct_entry_filter(c, f), stride);
                    const std::regex used(
                        "Function properties for " + entry +
                        "\\n[^\\n]*?(\\d+) bytes stack frame, (\\d+) bytes spill stores"
                        "[^\\n]*\\n[^\\n]*Used (\\d+) registers");
                    std::smatch m;
                    QVERIFY2(
                        std::regex_search(result.log, m, used),
                        qPrintable(QString::fromStdString(entry + " not in the ptxas report:\n" +
                                                          jit::log_head(result.log, 40))));
                    qInfo("%s %s: %s registers, %s bytes spill stores", kernel_name(c).c_str(),
                          entry.c_str(), m[3].str().c_str(), m[2].str().c_str());
                    QCOMPARE(m[2].str(), std::string("0"));
                    // No local arrays either (one indexed at run time lives in the stack frame).
                    QCOMPARE(m[1].str(), std::string("0"));
                    ++entries;
                }
        }
    }

private slots:
    void sm90_direct_kernels_compile() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        compile_all("sm_90", 32, [](const jit::CompileRequest& r) { return jit::compile(r); });
    }

    void gfx90a_direct_kernels_compile() {
        if (!jit::AmdHiprtc::available()) {
            if (qEnvironmentVariableIsSet("GCONV_REQUIRE_AMD_COMPILE"))
                QFAIL("GCONV_REQUIRE_AMD_COMPILE is set but no ROCm hipRTC can be loaded");
            QSKIP("no ROCm hipRTC library to load");
        }
        jit::AmdHiprtc hiprtc;
        compile_all("gfx90a", 64, [&](const jit::CompileRequest& r) { return hiprtc.compile(r); });
    }

    // The register-window K x K entries (forward, bwd_data, bwd_weight): no local-memory spills
    // (an array indexed at run time or a window too large would spill).
    void filter_entries_do_not_spill() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        std::vector<KernelConfig> configs;
        for (int rows : {1, 2})
            for (Variant v : {Variant::Forward, Variant::BwdData}) {
                KernelConfig c = direct_config(v, DataType::BF16, 2, 8, 32);
                c.tile_m *= rows;
                configs.push_back(c);
            }
        for (int vec : {8, 4, 2})
            configs.push_back(direct_config(Variant::BwdWeight, DataType::BF16, 2, vec, 32));
        int entries = 0;
        expect_no_spills(
            configs,
            [](const KernelConfig& c, int f) {
                return c.variant != Variant::BwdWeight || direct_weight_strip_fits(c, f);
            },
            entries);
        // forward and bwd_data 2 x 2 x 3; bwd_weight k3 at vector 8, k3 and k5 at 4, all at 2.
        QCOMPARE(entries, 12 + 1 + 2 + 3);
    }

    // The staged entries keep a run's sums, one staged row's window and (3x3 up to vector 8) the
    // weights in registers: no spills at the vectors and runs the pools use.
    void staged_entries_do_not_spill() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        std::vector<KernelConfig> configs;
        for (Variant v : {Variant::Forward, Variant::BwdData})
            for (auto [vec, run] : {std::pair{8, 4}, {8, 8}, {4, 8}, {4, 2}})
                configs.push_back(staged_config(v, DataType::BF16, vec, run, 32));
        int entries = 0;
        expect_no_spills(
            configs, [](const KernelConfig&, int) { return true; }, entries);
        QCOMPARE(entries, 8 * 3 + 4 * 3); // the forward configs' stride-2 entries too
    }

    // The tensor-core entries keep 8 channels x 2 column tiles of sums (64 registers; bwd_weight
    // 8 x 4) and one filter row's fragments in registers: no spills, also under two blocks per
    // multiprocessor.
    void tensor_core_entries_do_not_spill() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        std::vector<KernelConfig> configs;
        for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight})
            for (DataType dt : {DataType::BF16, DataType::FP16}) {
                configs.push_back(tc_config(v, dt, 16, 4, 1, 64));
                KernelConfig two = tc_config(v, dt, 32, 8, 2, 16);
                two.block_per_cu = 2;
                configs.push_back(two);
            }
        int entries = 0;
        expect_no_spills(
            configs, [](const KernelConfig&, int) { return true; }, entries);
        QCOMPARE(entries, 12 * 3 * 2); // every one with a stride-2 entry as well
    }

    // A module built with the entries one problem launches holds exactly those (its PTX names
    // them) and compiles in less time than the module of every entry.
    void a_module_holds_the_entries_it_was_built_with() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        const KernelConfig k = direct_config(Variant::Forward, DataType::BF16, 2, 8, 32);
        ModuleEntries e{false, {}};
        e.names.insert(direct_filter_entry_name(3));
        auto ptx = [&](const ModuleEntries& entries) {
            const jit::CompileResult r =
                jit::compile(jit::kernel_compile_request(k, "compute_90", entries));
            return std::string(r.code.begin(), r.code.end());
        };
        const std::string some = ptx(e), every = ptx(ModuleEntries{});
        auto entry = [](const std::string& text, const std::string& name) {
            return text.find(".entry " + name + "(") != std::string::npos;
        };
        QVERIFY(entry(some, "gconv_main") && entry(some, "gconv_direct_k3"));
        // No C/G noted: the generic entry holds no width (it traps), far less code.
        QVERIFY(!entry(some, "gconv_direct_k5") && !entry(some, "gconv_direct_k7"));
        for (const char* name :
             {"gconv_main", "gconv_direct_k3", "gconv_direct_k5", "gconv_direct_k7"})
            QVERIFY2(entry(every, name), name);
        QVERIFY(some.size() < every.size());
    }

    void a_broken_direct_source_fails() {
        if (jit::native_platform() != jit::Platform::nvidia)
            QSKIP("the native JIT is not NVIDIA's");
        auto request = jit::kernel_compile_request(
            direct_config(Variant::Forward, DataType::BF16, 2, 8, 32), "sm_90");
        request.source += "\nstatic_assert(gconv::direct::kPipelineCode == 0, \"wrong code\");\n";
        QVERIFY(!jit::compile(request).ok);
    }
};

QTEST_APPLESS_MAIN(TestDirectCompile)
#include "tst_direct_compile.moc"
