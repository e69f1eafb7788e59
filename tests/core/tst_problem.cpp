// The problem model: output sizes, FLOPs, bytes and GEMM views against hand-computed values,
// one test per validation rule, and the JSON form of a single problem.
#include "problem/problem.h"
#include "problem/problem_json.h"
#include "problem/problem_set.h"
#include "util/error.h"

#include <QRandomGenerator>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>

using namespace gconv;
using nlohmann::json;

namespace {

bool has_message_for(const std::vector<std::string>& errors, const std::string& field) {
    return std::any_of(errors.begin(), errors.end(),
                       [&](const std::string& e) { return e.rfind(field + ":", 0) == 0; });
}

std::string joined(const std::vector<std::string>& errors) {
    std::string out;
    for (const auto& e : errors) out += e + "\n";
    return out;
}

// A valid 3D problem with random sizes (the dilated filter always fits).
Problem random_problem(std::mt19937& rng, int ndim) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Problem p;
    p.ndim_spatial = ndim;
    p.G = pick(1, 8);
    p.C = p.G * pick(1, 40);
    p.K = p.G * pick(1, 40);
    p.N = pick(1, 9);
    auto dim = [&](int64_t& in, int64_t& f, int64_t& s, int64_t& pad, int64_t& d) {
        f = pick(1, 5);
        d = pick(1, 3);
        s = pick(1, 3);
        pad = pick(0, 3);
        in = std::max<int64_t>(1, (f - 1) * d + 1 - 2 * pad) + pick(0, 30);
    };
    if (ndim == 3) dim(p.Di, p.Z, p.stride_d, p.pad_d, p.dilation_d);
    dim(p.Hi, p.Y, p.stride_h, p.pad_h, p.dilation_h);
    dim(p.Wi, p.X, p.stride_w, p.pad_w, p.dilation_w);
    return p;
}

// Output extent by walking the filter window over the padded input.
int64_t brute_output_extent(int64_t in, int64_t f, int64_t s, int64_t pad, int64_t d) {
    int64_t count = 0;
    for (int64_t start = 0; start + (f - 1) * d < in + 2 * pad; start += s) ++count;
    return count;
}

std::string problem_set_text(const std::vector<json>& problems) {
    json doc = {{"key", "unit"}, {"direction", "forward"}, {"problems", problems}};
    return doc.dump();
}

json valid_problem_json(int index) {
    return {{"N", 1 + index}, {"C", 8}, {"K", 16}, {"G", 2},     {"Hi", 9},
            {"Wi", 11},       {"Y", 3}, {"X", 3},  {"pad_h", 1}, {"pad_w", 1}};
}

// Parses a set whose problems[12] is `bad`; returns the error message.
QString error_for_bad_problem(const json& bad) {
    std::vector<json> problems;
    for (int i = 0; i < 12; ++i) problems.push_back(valid_problem_json(i));
    problems.push_back(bad);
    try {
        parse_problem_set(problem_set_text(problems), "sets/unit.json");
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestProblem : public QObject {
    Q_OBJECT

private slots:
    void resnet_stem_2d() {
        Problem p;
        p.N = 2, p.C = 3, p.K = 64, p.G = 1, p.Hi = 224, p.Wi = 224, p.Y = 7, p.X = 7;
        p.stride_h = p.stride_w = 2, p.pad_h = p.pad_w = 3;
        QCOMPARE(p.Do(), int64_t(1));
        QCOMPARE(p.Ho(), int64_t(112));
        QCOMPARE(p.Wo(), int64_t(112));
        QCOMPARE(p.flops(), 472055808.0);
        QCOMPARE(p.input_elements(), int64_t(301056));
        QCOMPARE(p.weight_elements(), int64_t(9408));
        QCOMPARE(p.output_elements(), int64_t(1605632));
        QCOMPARE(p.min_bytes(DataType::BF16), 3832192.0);
        const auto fwd = p.gemm(Variant::Forward);
        QCOMPARE(fwd.m, int64_t(25088));
        QCOMPARE(fwd.n, int64_t(64));
        QCOMPARE(fwd.k, int64_t(147));
        const auto bwd_data = p.gemm(Variant::BwdData);
        QCOMPARE(bwd_data.m, int64_t(100352));
        QCOMPARE(bwd_data.n, int64_t(3));
        QCOMPARE(bwd_data.k, int64_t(3136));
        const auto bwd_weight = p.gemm(Variant::BwdWeight);
        QCOMPARE(bwd_weight.m, int64_t(64));
        QCOMPARE(bwd_weight.n, int64_t(147));
        QCOMPARE(bwd_weight.k, int64_t(25088));
        QVERIFY(validate(p).empty());
    }

    void grouped_dilated_rectangular_2d() {
        Problem p;
        p.N = 3, p.C = 64, p.K = 96, p.G = 8, p.Hi = 17, p.Wi = 20, p.Y = 3, p.X = 5;
        p.stride_h = 2, p.stride_w = 1, p.pad_h = 2, p.pad_w = 1;
        p.dilation_h = 2, p.dilation_w = 3;
        QCOMPARE(p.Ho(), int64_t(9));
        QCOMPARE(p.Wo(), int64_t(10));
        QCOMPARE(p.c_per_group(), int64_t(8));
        QCOMPARE(p.k_per_group(), int64_t(12));
        QCOMPARE(p.flops(), 6220800.0);
        QCOMPARE(p.input_elements(), int64_t(65280));
        QCOMPARE(p.weight_elements(), int64_t(11520));
        QCOMPARE(p.output_elements(), int64_t(25920));
        QCOMPARE(p.min_bytes(DataType::FP32), 410880.0);
        const auto fwd = p.gemm(Variant::Forward);
        QCOMPARE(fwd.m, int64_t(270));
        QCOMPARE(fwd.n, int64_t(12));
        QCOMPARE(fwd.k, int64_t(120));
        const auto bwd_data = p.gemm(Variant::BwdData);
        QCOMPARE(bwd_data.m, int64_t(1020));
        QCOMPARE(bwd_data.n, int64_t(8));
        QCOMPARE(bwd_data.k, int64_t(180));
        const auto bwd_weight = p.gemm(Variant::BwdWeight);
        QCOMPARE(bwd_weight.m, int64_t(12));
        QCOMPARE(bwd_weight.n, int64_t(120));
        QCOMPARE(bwd_weight.k, int64_t(270));
        QVERIFY(validate(p).empty());
    }

    void depthwise_3d() {
        Problem p;
        p.ndim_spatial = 3;
        p.N = 2, p.C = 24, p.K = 24, p.G = 24, p.Di = 7, p.Hi = 9, p.Wi = 11;
        p.Z = p.Y = p.X = 3;
        p.stride_d = 2, p.stride_h = 1, p.stride_w = 2;
        p.pad_d = 1, p.pad_h = 0, p.pad_w = 1;
        p.dilation_h = 2;
        QCOMPARE(p.Do(), int64_t(4));
        QCOMPARE(p.Ho(), int64_t(5));
        QCOMPARE(p.Wo(), int64_t(6));
        QCOMPARE(p.flops(), 311040.0);
        QCOMPARE(p.input_elements(), int64_t(33264));
        QCOMPARE(p.weight_elements(), int64_t(648));
        QCOMPARE(p.output_elements(), int64_t(5760));
        QCOMPARE(p.min_bytes(DataType::FP16), 79344.0);
        const auto fwd = p.gemm(Variant::Forward);
        QCOMPARE(fwd.m, int64_t(240));
        QCOMPARE(fwd.n, int64_t(1));
        QCOMPARE(fwd.k, int64_t(27));
        const auto bwd_data = p.gemm(Variant::BwdData);
        QCOMPARE(bwd_data.m, int64_t(1386));
        QCOMPARE(bwd_data.n, int64_t(1));
        QCOMPARE(bwd_data.k, int64_t(27));
        const auto bwd_weight = p.gemm(Variant::BwdWeight);
        QCOMPARE(bwd_weight.m, int64_t(1));
        QCOMPARE(bwd_weight.n, int64_t(27));
        QCOMPARE(bwd_weight.k, int64_t(240));
        QVERIFY(validate(p).empty());
    }

    void output_size_rounds_down_and_never_rounds_up_to_one() {
        Problem p;
        p.Hi = 8, p.Y = 3, p.stride_h = 2;
        QCOMPARE(p.Ho(), int64_t(3)); // (8 - 3) / 2 + 1
        p.Hi = 5, p.Y = 7;            // span -2: truncating division would say 1
        QCOMPARE(p.Ho(), int64_t(0));
    }

    void random_problems_match_brute_force() {
        std::mt19937 rng(std::random_device{}());
        for (int i = 0; i < 500; ++i) {
            const Problem p = random_problem(rng, i % 2 ? 3 : 2);
            QVERIFY2(validate(p).empty(), joined(validate(p)).c_str());
            QCOMPARE(p.Do(), brute_output_extent(p.Di, p.Z, p.stride_d, p.pad_d, p.dilation_d));
            QCOMPARE(p.Ho(), brute_output_extent(p.Hi, p.Y, p.stride_h, p.pad_h, p.dilation_h));
            QCOMPARE(p.Wo(), brute_output_extent(p.Wi, p.X, p.stride_w, p.pad_w, p.dilation_w));
            // Forward and bwd_weight GEMMs over all groups do exactly the convolution's MACs.
            for (Variant v : {Variant::Forward, Variant::BwdWeight}) {
                const auto g = p.gemm(v);
                QCOMPARE(2.0 * g.m * g.n * g.k * p.G, p.flops());
            }
            QCOMPARE(p.flops(), 2.0 * p.output_elements() * p.c_per_group() * p.Z * p.Y * p.X);
        }
    }

    void key_names_every_size_field_but_not_the_layer() {
        std::mt19937 rng(std::random_device{}());
        const Problem base = random_problem(rng, 3);
        Problem renamed = base;
        renamed.layer = "somewhere.else";
        QCOMPARE(renamed.key(), base.key());
        QVERIFY(renamed == base);
        int64_t Problem::*fields[] = {
            &Problem::N,          &Problem::C,          &Problem::K,         &Problem::G,
            &Problem::Di,         &Problem::Hi,         &Problem::Wi,        &Problem::Z,
            &Problem::Y,          &Problem::X,          &Problem::stride_d,  &Problem::stride_h,
            &Problem::stride_w,   &Problem::pad_d,      &Problem::pad_h,     &Problem::pad_w,
            &Problem::dilation_d, &Problem::dilation_h, &Problem::dilation_w};
        std::vector<std::string> keys{base.key()};
        for (auto field : fields) {
            Problem changed = base;
            changed.*field += 1 + std::uniform_int_distribution<int>(0, 5)(rng);
            keys.push_back(changed.key());
        }
        Problem other_ndim = base;
        other_ndim.ndim_spatial = 2;
        keys.push_back(other_ndim.key());
        std::sort(keys.begin(), keys.end());
        QVERIFY(std::adjacent_find(keys.begin(), keys.end()) == keys.end());
    }

    // --- validation, one rule per test ---------------------------------------------------------

    void validate_positive_sizes() {
        for (auto [name, field] : std::initializer_list<std::pair<const char*, int64_t Problem::*>>{
                 {"N", &Problem::N},
                 {"C", &Problem::C},
                 {"K", &Problem::K},
                 {"G", &Problem::G},
                 {"Di", &Problem::Di},
                 {"Hi", &Problem::Hi},
                 {"Wi", &Problem::Wi},
                 {"Z", &Problem::Z},
                 {"Y", &Problem::Y},
                 {"X", &Problem::X}}) {
            Problem p;
            p.ndim_spatial = 3;
            p.*field = -std::uniform_int_distribution<int>(0, 7)(*QRandomGenerator::global());
            const auto errors = validate(p);
            QVERIFY2(has_message_for(errors, name),
                     (name + std::string("\n") + joined(errors)).c_str());
        }
    }

    void validate_channels_divisible_by_groups() {
        Problem p;
        p.C = 30, p.K = 64, p.G = 4;
        auto errors = validate(p);
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY(has_message_for(errors, "C"));
        QVERIFY(QString::fromStdString(errors[0]).contains("G = 4"));
        p.C = 32, p.K = 66;
        errors = validate(p);
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY(has_message_for(errors, "K"));
    }

    void validate_strides_at_least_one() {
        for (auto [name, field] : std::initializer_list<std::pair<const char*, int64_t Problem::*>>{
                 {"stride_d", &Problem::stride_d},
                 {"stride_h", &Problem::stride_h},
                 {"stride_w", &Problem::stride_w}}) {
            Problem p;
            p.ndim_spatial = 3;
            p.*field = 0;
            QVERIFY2(has_message_for(validate(p), name), joined(validate(p)).c_str());
        }
    }

    void validate_dilations_at_least_one() {
        for (auto [name, field] : std::initializer_list<std::pair<const char*, int64_t Problem::*>>{
                 {"dilation_d", &Problem::dilation_d},
                 {"dilation_h", &Problem::dilation_h},
                 {"dilation_w", &Problem::dilation_w}}) {
            Problem p;
            p.ndim_spatial = 3;
            p.*field = -1;
            QVERIFY2(has_message_for(validate(p), name), joined(validate(p)).c_str());
        }
    }

    void validate_pads_not_negative() {
        for (auto [name, field] : std::initializer_list<std::pair<const char*, int64_t Problem::*>>{
                 {"pad_d", &Problem::pad_d},
                 {"pad_h", &Problem::pad_h},
                 {"pad_w", &Problem::pad_w}}) {
            Problem p;
            p.ndim_spatial = 3;
            p.*field = -2;
            QVERIFY2(has_message_for(validate(p), name), joined(validate(p)).c_str());
        }
    }

    void validate_dilated_filter_fits() {
        Problem p;
        p.Hi = 9, p.Wi = 9, p.Y = 3, p.X = 3, p.dilation_h = 4; // extent 9: fits exactly
        QVERIFY(validate(p).empty());
        QCOMPARE(p.Ho(), int64_t(1));
        p.dilation_h = 5; // extent 11 > 9
        auto errors = validate(p);
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY(has_message_for(errors, "Y"));
        QVERIFY(QString::fromStdString(errors[0]).contains("Ho"));
        p.pad_h = 1; // padded input 11: fits again
        QVERIFY(validate(p).empty());

        Problem q;
        q.ndim_spatial = 3;
        q.Di = 2, q.Z = 3, q.Wi = 4, q.X = 5;
        errors = validate(q);
        QCOMPARE(errors.size(), size_t(2));
        QVERIFY(has_message_for(errors, "Z"));
        QVERIFY(has_message_for(errors, "X"));
    }

    void validate_2d_has_no_depth() {
        for (auto [name, field, value] :
             std::initializer_list<std::tuple<const char*, int64_t Problem::*, int64_t>>{
                 {"Di", &Problem::Di, 4},
                 {"Z", &Problem::Z, 3},
                 {"stride_d", &Problem::stride_d, 2},
                 {"pad_d", &Problem::pad_d, 1},
                 {"dilation_d", &Problem::dilation_d, 2}}) {
            Problem p;
            p.Hi = p.Wi = 16;
            p.*field = value;
            QVERIFY(validate(p).size() >= 1);
            QVERIFY2(has_message_for(validate(p), name), joined(validate(p)).c_str());
            p.ndim_spatial = 3;
            if (field != &Problem::Di) p.Di = 8; // room for Z = 3 in 3D
            QVERIFY2(validate(p).empty(), joined(validate(p)).c_str());
        }
    }

    void validate_ndim() {
        Problem p;
        p.ndim_spatial = 4;
        QVERIFY(has_message_for(validate(p), "ndim_spatial"));
    }

    void validate_rejects_implausible_sizes() {
        Problem p;
        p.Hi = int64_t(1) << 40;
        QVERIFY(has_message_for(validate(p), "Hi"));
        Problem q;
        q.N = q.Hi = q.Wi = q.C = 1 << 20; // each in range, the tensor is not
        q.K = 1 << 20;
        QVERIFY(has_message_for(validate(q), "input"));
    }

    // --- JSON ----------------------------------------------------------------------------------

    void json_round_trip() {
        std::mt19937 rng(std::random_device{}());
        for (int i = 0; i < 200; ++i) {
            Problem p = random_problem(rng, i % 2 ? 3 : 2);
            p.layer = "net.layer" + std::to_string(i);
            const json j = problem_to_json(p);
            QCOMPARE(j.contains("Di"), p.ndim_spatial == 3);
            const Problem back = problem_from_json(j, "unit");
            QCOMPARE(back.key(), p.key());
            QCOMPARE(back.layer, p.layer);
            QCOMPARE(back.ndim_spatial, p.ndim_spatial);
        }
    }

    void json_defaults_and_ndim_inference() {
        json j = {{"N", 4}, {"C", 6}, {"K", 9}, {"G", 3}, {"Hi", 7}, {"Wi", 5}, {"Y", 3}, {"X", 1}};
        Problem p = problem_from_json(j, "unit");
        QCOMPARE(p.ndim_spatial, 2);
        QCOMPARE(p.stride_h, int64_t(1));
        QCOMPARE(p.dilation_w, int64_t(1));
        QCOMPARE(p.pad_h, int64_t(0));
        QCOMPARE(p.Di, int64_t(1));

        for (const char* depth_key : {"stride_d", "pad_d", "dilation_d"}) {
            json k = j;
            k["Di"] = 3;
            k["Z"] = 1;
            k[depth_key] = 1;
            QCOMPARE(problem_from_json(k, "unit").ndim_spatial, 3);
        }
        json only_stride_d = j;
        only_stride_d["stride_d"] = 1;
        // 3D inferred from stride_d, so Di and Z become required.
        QVERIFY_THROWS_EXCEPTION(Error, problem_from_json(only_stride_d, "unit"));
        json explicit_2d = j;
        explicit_2d["ndim"] = 2;
        QCOMPARE(problem_from_json(explicit_2d, "unit").ndim_spatial, 2);
        json explicit_3d = j;
        explicit_3d["ndim"] = 3;
        try {
            problem_from_json(explicit_3d, "unit");
            QFAIL("a 3D problem without Di was accepted");
        } catch (const Error& e) {
            QVERIFY(QString(e.what()).contains("\"Di\""));
        }
        explicit_3d["ndim"] = 5;
        QVERIFY_THROWS_EXCEPTION(Error, problem_from_json(explicit_3d, "unit"));
    }

    void json_unknown_key_names_path_and_allowed_keys() {
        json bad = valid_problem_json(12);
        bad["strides"] = 2;
        const QString message = error_for_bad_problem(bad);
        QVERIFY2(message.contains("sets/unit.json"), qPrintable(message));
        QVERIFY2(message.contains("problems[12].strides"), qPrintable(message));
        QVERIFY2(message.contains("allowed keys"), qPrintable(message));
        QVERIFY2(message.contains("stride_h") && message.contains("dilation_w"),
                 qPrintable(message));
    }

    void json_wrong_types_name_the_path() {
        const std::vector<std::pair<const char*, json>> cases{{"stride_h", "2"},
                                                              {"N", 2.5},
                                                              {"C", true},
                                                              {"pad_w", json::array({1})},
                                                              {"K", nullptr},
                                                              {"layer", 7},
                                                              {"G", 18446744073709551615ull}};
        for (const auto& [key, value] : cases) {
            json bad = valid_problem_json(12);
            bad[key] = value;
            const QString message = error_for_bad_problem(bad);
            QVERIFY2(message.contains(QString("problems[12].") + key), qPrintable(message));
        }
        const QString not_object = error_for_bad_problem(json::array({1, 2}));
        QVERIFY2(not_object.contains("problems[12]"), qPrintable(not_object));
    }

    void json_invalid_problem_names_index_and_field() {
        json bad = valid_problem_json(12);
        bad["C"] = 9; // not divisible by G = 2
        const QString message = error_for_bad_problem(bad);
        QVERIFY2(message.contains("sets/unit.json: problems[12].C:"), qPrintable(message));
    }
};

QTEST_APPLESS_MAIN(TestProblem)
#include "tst_problem.moc"
