// Kernel names are identities: unique within and across shipped pools, and parse back to the
// same configuration.
#include "config/arch_spec.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "test_paths.h"
#include "util/error.h"

#include <QDir>
#include <QtTest>

#include <map>
#include <random>
#include <set>

using namespace gconv;

class TestKernelName : public QObject {
    Q_OBJECT

private:
    static QStringList shipped_configs() {
        QDir dir(test::source_path("configs"));
        QStringList out;
        for (const auto& f : dir.entryList({"*.json"}, QDir::Files))
            if (f != "arch_specs.json") out << dir.filePath(f);
        return out;
    }

private slots:
    void enum_tables_round_trip() {
        for (auto v : enum_values<Pipeline>())
            QCOMPARE(enum_from_string<Pipeline>(to_string(v)), std::optional(v));
        for (auto v : enum_values<Variant>())
            QCOMPARE(enum_from_string<Variant>(to_string(v)), std::optional(v));
        for (auto v : enum_values<DataType>())
            QCOMPARE(enum_from_string<DataType>(to_string(v)), std::optional(v));
        for (auto v : enum_values<Scheduler>())
            QCOMPARE(enum_from_string<Scheduler>(to_string(v)), std::optional(v));
        for (auto v : enum_values<SplitKMode>())
            QCOMPARE(enum_from_string<SplitKMode>(to_string(v)), std::optional(v));
        QVERIFY(!enum_from_string<Pipeline>("compv9"));
        QCOMPARE(enum_names<Pipeline>().size(), enum_values<Pipeline>().size());
    }

    void ck_prefix_and_suffix_order() {
        KernelConfig c;
        c.tile_m = 64;
        c.tile_n = 64;
        c.tile_k = 64;
        c.num_groups_to_merge = 2;
        c.double_smem_buffer = true;
        c.split_image = true;
        const std::string name = kernel_name(c);
        QVERIFY2(name.rfind("grouped_conv_forward_bf16_2d_64x64x64_compv3_intrawave_", 0) == 0,
                 name.c_str());
        const std::string tail = "_gm2_dsb_si";
        QVERIFY2(name.size() > tail.size() && name.substr(name.size() - tail.size()) == tail,
                 name.c_str());
    }

    void every_field_changes_the_name() {
        const KernelConfig base;
        std::vector<KernelConfig> variants;
        auto add = [&](auto mutate) {
            KernelConfig c = base;
            mutate(c);
            variants.push_back(c);
        };
        add([](KernelConfig& c) { c.variant = Variant::BwdData; });
        add([](KernelConfig& c) { c.dtype = DataType::FP16; });
        add([](KernelConfig& c) { c.ndim_spatial = 3; });
        add([](KernelConfig& c) { c.tile_m = 64; });
        add([](KernelConfig& c) { c.tile_n = 64; });
        add([](KernelConfig& c) { c.tile_k = 64; });
        add([](KernelConfig& c) { c.wave_m = 4; });
        add([](KernelConfig& c) { c.wave_n = 4; });
        add([](KernelConfig& c) { c.wave_k = 2; });
        add([](KernelConfig& c) { c.warp_tile_m = 16; });
        add([](KernelConfig& c) { c.warp_tile_n = 16; });
        add([](KernelConfig& c) { c.warp_tile_k = 32; });
        add([](KernelConfig& c) { c.pipeline = Pipeline::CompV4; });
        add([](KernelConfig& c) { c.scheduler = Scheduler::Interwave; });
        add([](KernelConfig& c) { c.epilogue = Epilogue::Direct; });
        add([](KernelConfig& c) { c.epilogue = Epilogue::CShuffleBuf; });
        add([](KernelConfig& c) { c.vector_size_a = 4; });
        add([](KernelConfig& c) { c.vector_size_b = 4; });
        add([](KernelConfig& c) { c.vector_size_c = 4; });
        add([](KernelConfig& c) { c.block_per_cu = 2; });
        add([](KernelConfig& c) { c.num_wave_groups = 2; });
        add([](KernelConfig& c) { c.num_groups_to_merge = 4; });
        add([](KernelConfig& c) { c.double_smem_buffer = true; });
        add([](KernelConfig& c) { c.split_image = true; });
        add([](KernelConfig& c) { c.runtime_filter = true; });
        add([](KernelConfig& c) { c.channel_pad = true; });
        add([](KernelConfig& c) { c.cluster_n = 2; });
        add([](KernelConfig& c) { c.cluster_k = 4; });
        add([](KernelConfig& c) { c.pad_m = false; });
        add([](KernelConfig& c) { c.pad_n = false; });
        add([](KernelConfig& c) { c.pad_k = false; });
        add([](KernelConfig& c) { c.split_k = 4; });
        add([](KernelConfig& c) { c.split_k_mode = SplitKMode::Atomic; });
        add([](KernelConfig& c) {
            c.split_k = 4;
            c.split_k_mode = SplitKMode::TwoStage;
        });
        add([](KernelConfig& c) {
            c.split_k = 4;
            c.split_k_mode = SplitKMode::Atomic;
        });
        std::set<std::string> names{kernel_name(base)};
        for (const auto& c : variants) {
            QVERIFY2(names.insert(kernel_name(c)).second, kernel_name(c).c_str());
            QCOMPARE(parse_kernel_name(kernel_name(c)), c);
        }
    }

    void shipped_pools_round_trip_and_are_unique() {
        const auto& specs = default_arch_specs();
        std::set<std::string> all_names;
        std::size_t total = 0;
        for (const auto& path : shipped_configs()) {
            const TraitConfig traits = load_trait_config(path.toStdString());
            for (const auto& arch : specs.names()) {
                const KernelPool pool = enumerate_pool(traits, specs.get(arch), specs);
                std::set<std::string> names;
                for (const auto& k : pool.kernels) {
                    const std::string n = kernel_name(k);
                    QVERIFY2(names.insert(n).second, ("duplicate name " + n).c_str());
                    QCOMPARE(parse_kernel_name(n), k);
                    all_names.insert(n);
                }
                total += pool.kernels.size();
            }
        }
        QVERIFY(total > 1000);
        QVERIFY(!all_names.empty());
    }

    void malformed_names_are_refused_with_the_part() {
        const std::vector<std::pair<std::string, std::string>> bad = {
            {"conv_forward_bf16_2d_64x64x64_compv3_intrawave", "grouped_conv_"},
            {"grouped_conv_sideways_bf16_2d_64x64x64_compv3_intrawave_w2x2x1_wt32x32x16_v8x8x8",
             "variant"},
            {"grouped_conv_forward_bf16_2d_64x64_compv3_intrawave_w2x2x1_wt32x32x16_v8x8x8",
             "AxBxC"},
            {"grouped_conv_forward_bf16_2d_64x64x64_compv9_intrawave_w2x2x1_wt32x32x16_v8x8x8",
             "pipeline"},
            {"grouped_conv_forward_bf16_2d_64x64x64_compv3_intrawave_w2x2x1_wt32x32x16_v8x8x8_zz",
             "'zz'"},
            {"grouped_conv_forward_bf16_2d_64x64x64_compv3_intrawave", "missing"},
            {"grouped_conv_forward_bf16_2d_64x64x64_compv3_intrawave_w2x2x1_wt32x32x16_v8x8x8_dsb_"
             "gm2",
             "canonical"},
        };
        for (const auto& [name, expected] : bad) {
            try {
                parse_kernel_name(name);
                QFAIL(("accepted " + name).c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(expected) != std::string::npos, e.what());
            }
        }
    }

    void random_names_never_crash_the_parser() {
        std::mt19937 rng(7);
        const std::string base = kernel_name(KernelConfig{});
        const std::string alphabet = "_x0123456789abcdgimnopstvw";
        for (int i = 0; i < 20000; ++i) {
            std::string s = base;
            const int edits = 1 + int(rng() % 4);
            for (int e = 0; e < edits; ++e) {
                const std::size_t pos = rng() % (s.size() + 1);
                switch (rng() % 3) {
                case 0:
                    s.insert(s.begin() + pos, alphabet[rng() % alphabet.size()]);
                    break;
                case 1:
                    if (pos < s.size()) s.erase(pos, 1);
                    break;
                default:
                    if (pos < s.size()) s[pos] = char(rng() % 256);
                    break;
                }
            }
            try {
                const KernelConfig c = parse_kernel_name(s);
                QCOMPARE(kernel_name(c), s);
            } catch (const Error&) {
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestKernelName)
#include "tst_kernel_name.moc"
