// Trait configs: schema, synonyms, defaults, both tile forms, and the messages for bad input.
#include "config/arch_spec.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "test_paths.h"
#include "util/error.h"

#include <QtTest>

#include <random>

using namespace gconv;

namespace {

std::string error_of(const std::string& text, std::optional<Variant> variant = std::nullopt) {
    try {
        parse_trait_config(text, "cfg.json", variant);
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

std::size_t pool_size(const std::string& text, const char* arch = "sm_90") {
    const auto& specs = default_arch_specs();
    return enumerate_pool(parse_trait_config(text, "cfg.json"), specs.get(arch), specs)
        .kernels.size();
}

} // namespace

class TestTraitConfig : public QObject {
    Q_OBJECT

private slots:
    void error_messages_name_file_path_and_allowed_values_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("needles");
        QTest::newRow("unknown key")
            << R"({"variant":"forward","trait_config":{"pipelin":{"values":["compv3"]}}})"
            << QStringList{"cfg.json", "trait_config.pipelin", "unknown key", "pipeline"};
        QTest::newRow("unknown value")
            << R"({"variant":"forward","trait_config":{"pipeline":{"values":["compv3","compv9"]}}})"
            << QStringList{"trait_config.pipeline.values[1]", "compv9", "compv4, compv5"};
        QTest::newRow("wrong type")
            << R"({"variant":"forward","trait_config":{"tile_m":{"values":["64"]},"tile_n":{"values":[64]},"tile_k":{"values":[64]}}})"
            << QStringList{"trait_config.tile_m.values[0]", "expected an integer", "string"};
        QTest::newRow("bool type")
            << R"({"variant":"forward","trait_config":{"split_image":{"values":[1]}}})"
            << QStringList{"trait_config.split_image.values[0]", "true or false"};
        QTest::newRow("empty allow-list")
            << R"({"variant":"forward","trait_config":{"pipeline":{"values":[]}}})"
            << QStringList{"trait_config.pipeline.values", "empty allow-list"};
        QTest::newRow("not values")
            << R"({"variant":"forward","trait_config":{"pipeline":["compv3"]}})"
            << QStringList{"trait_config.pipeline", "{\"values\": [...]}"};
        QTest::newRow("bad variant")
            << R"({"variant":"fwd","trait_config":{}})"
            << QStringList{"variant", "fwd", "forward, bwd_data, bwd_weight"};
        QTest::newRow("missing variant")
            << R"({"trait_config":{}})" << QStringList{"variant", "missing"};
        QTest::newRow("top-level key")
            << R"({"variant":"forward","traits":{}})"
            << QStringList{"traits", "allowed: variant, trait_config, description, where"};
        QTest::newRow("where not a string")
            << R"({"variant":"forward","trait_config":{},"where":3})"
            << QStringList{"cfg.json: where:", "expected a filter expression string", "integer"};
        QTest::newRow("where syntax")
            << R"({"variant":"forward","trait_config":{},"where":"c.tile_m >"})"
            << QStringList{"cfg.json: where:", "filter", "c.tile_m >", "^"};
        QTest::newRow("where unknown field")
            << R"({"variant":"forward","trait_config":{},"where":"c.tile_q == 64"})"
            << QStringList{"cfg.json: where:", "tile_q"};
        QTest::newRow("where kind")
            << R"({"variant":"forward","trait_config":{},"where":"c.pipeline > 3"})"
            << QStringList{"cfg.json: where:", "pipeline"};
        QTest::newRow("tile record key")
            << R"({"variant":"forward","trait_config":{"tile":{"values":[{"m":64,"n":64,"kk":32}]}}})"
            << QStringList{"trait_config.tile.values[0].kk", "allowed: m, n, k, wave, warp_tile"};
        QTest::newRow("triple shape")
            << R"({"variant":"forward","trait_config":{"wave_layout":{"values":[[2,2]]}}})"
            << QStringList{"trait_config.wave_layout.values[0]", "wave_m, wave_n, wave_k"};
        QTest::newRow("two keys one field")
            << R"({"variant":"forward","trait_config":{"tile":{"values":[[64,64,64]]},"tile_m":{"values":[64]}}})"
            << QStringList{"tile_m", "sets too"};
        QTest::newRow("partial tile fields")
            << R"({"variant":"forward","trait_config":{"tile_m":{"values":[64]}}})"
            << QStringList{"tile_n"};
        QTest::newRow("synonym clash")
            << R"({"variant":"forward","trait_config":{"scheduler":{"values":["intrawave"]},"wave_mode":{"values":["interwave"]}}})"
            << QStringList{"scheduler", "sets too"};
        QTest::newRow("syntax error has line")
            << "{\"variant\": \"forward\",\n \"trait_config\": {,}}"
            << QStringList{"cfg.json:2:", "invalid JSON"};
    }

    void error_messages_name_file_path_and_allowed_values() {
        QFETCH(QString, text);
        QFETCH(QStringList, needles);
        const std::string message = error_of(text.toStdString());
        QVERIFY2(!message.empty(), "accepted bad config");
        for (const auto& n : needles)
            QVERIFY2(message.find(n.toStdString()) != std::string::npos, message.c_str());
    }

    void variant_mismatch_is_refused() {
        const std::string message =
            error_of(R"({"variant":"bwd_data","trait_config":{}})", Variant::Forward);
        QVERIFY2(message.find("config is for bwd_data but forward was asked for") !=
                     std::string::npos,
                 message.c_str());
    }

    void wave_mode_is_a_synonym_of_scheduler() {
        const auto a = pool_size(
            R"({"variant":"forward","trait_config":{"pipeline":{"values":["mem"]},"wave_mode":{"values":["interwave"]}}})");
        const auto b = pool_size(
            R"({"variant":"forward","trait_config":{"pipeline":{"values":["mem"]},"scheduler":{"values":["interwave"]}}})");
        QVERIFY(a > 0);
        QCOMPARE(a, b);
        const auto& specs = default_arch_specs();
        auto pool = enumerate_pool(
            parse_trait_config(
                R"({"variant":"forward","trait_config":{"pipeline":{"values":["mem"]},"wave_mode":{"values":["interwave"]}}})",
                "x"),
            specs.get("sm_90"), specs);
        for (const auto& k : pool.kernels) QCOMPARE(k.scheduler, Scheduler::Interwave);
    }

    void tile_records_equal_per_field_lists() {
        const std::string records =
            R"({"variant":"forward","trait_config":{"tile":{"values":[{"m":64,"n":64,"k":32},{"m":64,"n":128,"k":32},[128,64,32],[128,128,32]]}}})";
        const std::string fields =
            R"({"variant":"forward","trait_config":{"tile_m":{"values":[64,128]},"tile_n":{"values":[64,128]},"tile_k":{"values":[32]}}})";
        const auto& specs = default_arch_specs();
        auto a =
            enumerate_pool(parse_trait_config(records, "a"), specs.get("sm_90"), specs).kernels;
        auto b = enumerate_pool(parse_trait_config(fields, "b"), specs.get("sm_90"), specs).kernels;
        std::set<std::string> na, nb;
        for (const auto& k : a) na.insert(kernel_name(k));
        for (const auto& k : b) nb.insert(kernel_name(k));
        QVERIFY(!na.empty());
        QCOMPARE(na, nb);
    }

    void tile_records_may_carry_wave_and_warp_tile() {
        const std::string text =
            R"({"variant":"forward","trait_config":{"tile":{"values":[{"m":128,"n":128,"k":32,"wave":[2,2,1],"warp_tile":[64,64,16]}]}}})";
        const auto& specs = default_arch_specs();
        auto pool = enumerate_pool(parse_trait_config(text, "t"), specs.get("sm_90"), specs);
        QCOMPARE(pool.kernels.size(), std::size_t(1));
        QCOMPARE(pool.kernels[0].warp_tile_m, 64);
        QCOMPARE(pool.kernels[0].wave_n, 2);
    }

    void missing_keys_take_documented_defaults() {
        const auto traits = parse_trait_config(R"({"variant":"forward","trait_config":{}})", "d");
        const auto& specs = default_arch_specs();
        auto pool = enumerate_pool(traits, specs.get("sm_90"), specs);
        QVERIFY(!pool.kernels.empty());
        for (const auto& k : pool.kernels) {
            QCOMPARE(k.dtype, DataType::BF16);
            QCOMPARE(k.ndim_spatial, 2);
            QCOMPARE(k.pipeline, Pipeline::CompV3);
            QCOMPARE(k.scheduler, Scheduler::Intrawave);
            QCOMPARE(k.vector_size_a, 8);
            QCOMPARE(k.warp_tile_k, 16);
            QCOMPARE(k.split_k, 1);
        }
        // fp32 derives its own vector widths and warp tile.
        auto fp32 = enumerate_pool(
            parse_trait_config(
                R"({"variant":"forward","trait_config":{"data_type":{"values":["fp32"]}}})", "f"),
            specs.get("sm_90"), specs);
        QVERIFY(!fp32.kernels.empty());
        for (const auto& k : fp32.kernels) {
            QCOMPARE(k.vector_size_a, 4);
            QCOMPARE(k.warp_tile_k, 4);
        }
    }

    void compv5_derives_two_wave_groups_and_compv4_a_second_buffer() {
        const auto& specs = default_arch_specs();
        auto pool = enumerate_pool(
            parse_trait_config(
                R"({"variant":"forward","trait_config":{"pipeline":{"values":["compv4","compv5"]}}})",
                "p"),
            specs.get("sm_90"), specs);
        int v4 = 0, v5 = 0;
        for (const auto& k : pool.kernels) {
            if (k.pipeline == Pipeline::CompV4) {
                ++v4;
                QVERIFY(k.double_smem_buffer);
            }
            if (k.pipeline == Pipeline::CompV5) {
                ++v5;
                QCOMPARE(k.num_wave_groups, 2);
            }
        }
        QVERIFY(v4 > 0 && v5 > 0);
    }

    void culled_configs_keep_their_reasons() {
        const auto& specs = default_arch_specs();
        auto pool = enumerate_pool(
            load_trait_config(test::source_path("configs/forward_bf16.json").toStdString()),
            specs.get("sm_90"), specs);
        QVERIFY(!pool.culled.empty());
        QCOMPARE(pool.kernels.size() + pool.culled.size(), pool.candidates);
        for (const auto& c : pool.culled) {
            QVERIFY(!c.reasons.empty());
            for (const auto& r : c.reasons) QVERIFY(!r.message.empty());
        }
    }

    // "where" keeps exactly the product's configurations that pass it; the others are culled
    // with the where reason (beside any rule they also fail), so nothing vanishes unexplained.
    void where_keeps_the_passing_part_of_the_product() {
        const std::string product =
            R"("trait_config":{"tile":{"values":[[64,64,32],[128,64,32]]},"vector_size_a":{"values":[1,4,8]},"vector_size_b":{"values":[1,4,8]}})";
        const std::string where = R"("c.vector_size_a == c.vector_size_b or c.tile_m == 128")";
        const auto& specs = default_arch_specs();
        const auto all = enumerate_pool(
            parse_trait_config(R"({"variant":"forward",)" + product + "}", "all.json"),
            specs.get("sm_90"), specs);
        const auto kept = enumerate_pool(
            parse_trait_config(R"({"variant":"forward",)" + product + R"(,"where":)" + where + "}",
                               "where.json"),
            specs.get("sm_90"), specs);
        std::vector<std::string> expected;
        for (const auto& c : all.kernels)
            if (c.vector_size_a == c.vector_size_b || c.tile_m == 128)
                expected.push_back(kernel_name(c));
        std::vector<std::string> got;
        for (const auto& c : kept.kernels) got.push_back(kernel_name(c));
        QVERIFY(!got.empty());
        QVERIFY(got.size() < all.kernels.size());
        QCOMPARE(got, expected);
        QCOMPARE(kept.candidates, all.candidates);
        QCOMPARE(kept.kernels.size() + kept.culled.size(), kept.candidates);
        int by_where = 0;
        for (const auto& c : kept.culled)
            for (const auto& r : c.reasons)
                if (r.rule == Rule::Where) {
                    ++by_where;
                    QVERIFY2(r.message.find("config's filter") != std::string::npos,
                             r.message.c_str());
                    QVERIFY(c.config.vector_size_a != c.config.vector_size_b &&
                            c.config.tile_m != 128);
                }
        QCOMPARE(std::size_t(by_where),
                 all.kernels.size() - got.size() +
                     std::size_t(std::count_if(
                         all.culled.begin(), all.culled.end(), [](const CulledConfig& c) {
                             return c.config.vector_size_a != c.config.vector_size_b &&
                                    c.config.tile_m != 128;
                         })));
    }

    void random_bytes_never_crash_the_parser() {
        std::mt19937 rng(11);
        const std::string seed =
            R"({"variant":"forward","trait_config":{"pipeline":{"values":["compv3","mem"]},"tile":{"values":[{"m":64,"n":64,"k":32},[128,128,32]]},"split_image":{"values":[true,false]},"wave_layout":{"values":[[2,2,1]]}}})";
        int accepted = 0;
        for (int i = 0; i < 5000; ++i) {
            std::string text = seed;
            if (i % 5 == 0) {
                text.resize(rng() % 200);
                for (auto& ch : text) ch = char(rng() % 256);
            } else {
                const int edits = 1 + int(rng() % 6);
                for (int e = 0; e < edits; ++e) {
                    const std::size_t pos = rng() % text.size();
                    const char pool[] = "{}[]\",:0123456789-truefalsnm_xk ";
                    switch (rng() % 3) {
                    case 0:
                        text[pos] = pool[rng() % (sizeof pool - 1)];
                        break;
                    case 1:
                        text.erase(pos, 1 + rng() % 3);
                        break;
                    default:
                        text.insert(pos, 1, pool[rng() % (sizeof pool - 1)]);
                        break;
                    }
                }
            }
            try {
                auto traits = parse_trait_config(text, "fuzz.json");
                const auto& specs = default_arch_specs();
                if (traits.candidate_count() < 100000)
                    enumerate_pool(traits, specs.get("sm_90"), specs);
                ++accepted;
            } catch (const Error&) {
            }
        }
        QVERIFY(accepted > 0);
    }
};

QTEST_APPLESS_MAIN(TestTraitConfig)
#include "tst_trait_config.moc"
