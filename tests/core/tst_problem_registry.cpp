// The problem registry and the shipped problems/*.json: discovery, sizes and directions,
// disjointness of the validation sets, user directories, and a fuzzed problem-set parser.
#include "problem/problem_json.h"
#include "problem/problem_set.h"
#include "problem/registry.h"
#include "util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <set>
#include <sstream>

using namespace gconv;
namespace fs = std::filesystem;

namespace {

struct Expected {
    const char* key;
    Variant direction;
    int ndim; // 0: mixed
    size_t min_count, max_count;
};

const Expected k_expected[] = {
    {"forward_2d", Variant::Forward, 2, 300, 2500},
    {"bwd_data_2d", Variant::BwdData, 2, 300, 2500},
    {"bwd_weight_2d", Variant::BwdWeight, 2, 300, 2500},
    {"forward_3d", Variant::Forward, 3, 100, 1000},
    {"bwd_data_3d", Variant::BwdData, 3, 100, 1000},
    {"bwd_weight_3d", Variant::BwdWeight, 3, 100, 1000},
    {"forward_2d_test_validation", Variant::Forward, 2, 10, 30},
    {"bwd_data_2d_test_validation", Variant::BwdData, 2, 10, 30},
    {"bwd_weight_2d_test_validation", Variant::BwdWeight, 2, 10, 30},
    {"forward_3d_test_validation", Variant::Forward, 3, 10, 30},
    {"bwd_data_3d_test_validation", Variant::BwdData, 3, 10, 30},
    {"bwd_weight_3d_test_validation", Variant::BwdWeight, 3, 10, 30},
    {"validation_holdout", Variant::Forward, 0, 300, 300},
};

const char* const k_training[] = {"forward_2d", "bwd_data_2d", "bwd_weight_2d",
                                  "forward_3d", "bwd_data_3d", "bwd_weight_3d"};

fs::path source_problems_dir() {
    return fs::path(GCONV_TEST_SOURCE_DIR) / "problems";
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

// A valid set of `count` random distinct problems.
std::string random_set_text(std::mt19937& rng, const std::string& key, int count) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    nlohmann::json problems = nlohmann::json::array();
    std::set<std::string> seen;
    while (static_cast<int>(problems.size()) < count) {
        Problem p;
        p.G = pick(1, 4);
        p.C = p.G * pick(1, 16);
        p.K = p.G * pick(1, 16);
        p.N = pick(1, 64);
        p.Hi = pick(3, 64);
        p.Wi = pick(3, 64);
        p.Y = p.X = 3;
        p.stride_h = pick(1, 2);
        p.pad_w = pick(0, 1);
        if (seen.insert(p.key()).second) problems.push_back(problem_to_json(p));
    }
    nlohmann::json doc = {{"key", key},
                          {"direction", "bwd_weight"},
                          {"description", "random"},
                          {"problems", problems}};
    return doc.dump(1);
}

} // namespace

class TestProblemRegistry : public QObject {
    Q_OBJECT

private slots:
    void init() { qunsetenv("GCONV_PROBLEMS_DIR"); }
    void cleanup() { qunsetenv("GCONV_PROBLEMS_DIR"); }

    void discovers_every_shipped_key() {
        const ProblemRegistry registry({source_problems_dir()});
        const auto keys = registry.keys();
        for (const auto& e : k_expected)
            QVERIFY2(std::find(keys.begin(), keys.end(), e.key) != keys.end(), e.key);
        QVERIFY(std::is_sorted(keys.begin(), keys.end()));
    }

    void default_dirs_include_the_source_tree() {
        const auto dirs = ProblemRegistry::default_search_dirs();
        QCOMPARE(dirs.front(), fs::path(GCONV_DATA_DIR_SOURCE) / "problems");
        const ProblemRegistry registry;
        QVERIFY(registry.contains("forward_2d"));
    }

    void loads_every_set_with_expected_sizes_and_directions() {
        const ProblemRegistry registry({source_problems_dir()});
        for (const auto& e : k_expected) {
            const ProblemSet set = registry.load(e.key);
            QCOMPARE(set.key, std::string(e.key));
            QCOMPARE(set.direction, e.direction);
            QCOMPARE(set.source, source_problems_dir() / (std::string(e.key) + ".json"));
            QVERIFY2(set.problems.size() >= e.min_count && set.problems.size() <= e.max_count,
                     qPrintable(QString("%1: %2 problems").arg(e.key).arg(set.problems.size())));
            QVERIFY(!set.description.empty());
            for (const auto& p : set.problems) {
                QVERIFY2(validate(p).empty(), p.key().c_str());
                QVERIFY2(!p.layer.empty(), p.key().c_str());
                if (e.ndim != 0) QCOMPARE(p.ndim_spatial, e.ndim);
            }
            qInfo("%s: %zu problems", e.key, set.problems.size());
        }
    }

    void training_sets_cover_the_required_features() {
        const ProblemRegistry registry({source_problems_dir()});
        const auto set_2d = registry.load("forward_2d");
        auto any = [&](const ProblemSet& set, auto pred) {
            return std::any_of(set.problems.begin(), set.problems.end(), pred);
        };
        QVERIFY(any(set_2d, [](const Problem& p) { return p.G == 1; }));
        QVERIFY(any(set_2d, [](const Problem& p) { return p.G == p.C && p.Y == 7; }));
        QVERIFY(any(set_2d, [](const Problem& p) { return p.G == p.C && p.Y == 5; }));
        QVERIFY(any(set_2d, [](const Problem& p) { return p.G == 32 && p.Y == 3; }));
        QVERIFY(any(set_2d, [](const Problem& p) { return p.dilation_h == 18 && p.pad_h == 18; }));
        QVERIFY(any(set_2d, [](const Problem& p) { return p.N == 128; }));
        const auto set_3d = registry.load("forward_3d");
        QVERIFY(any(set_3d, [](const Problem& p) { return p.G == p.C && p.Z == 3; }));
        QVERIFY(any(set_3d, [](const Problem& p) { return p.Z == 1 && p.Y == 3; }));
        QVERIFY(any(set_3d, [](const Problem& p) { return p.Z == 3 && p.Y == 1; }));
    }

    void validation_sets_are_disjoint_from_training_sets() {
        const ProblemRegistry registry({source_problems_dir()});
        std::set<std::string> training;
        for (const char* key : k_training)
            for (const auto& p : registry.load(key).problems) training.insert(p.key());
        for (const auto& key : registry.keys()) {
            if (key.find("validation") == std::string::npos) continue;
            for (const auto& p : registry.load(key).problems)
                QVERIFY2(!training.count(p.key()), (key + ": " + p.layer).c_str());
        }
    }

    void holdout_has_250_2d_and_50_3d() {
        const auto set = ProblemRegistry({source_problems_dir()}).load("validation_holdout");
        const auto count_3d = std::count_if(set.problems.begin(), set.problems.end(),
                                            [](const Problem& p) { return p.ndim_spatial == 3; });
        QCOMPARE(count_3d, 50L);
        QCOMPARE(static_cast<long>(set.problems.size()) - count_3d, 250L);
    }

    void unknown_key_lists_known_keys() {
        const ProblemRegistry registry({source_problems_dir()});
        try {
            registry.load("forward_4d");
            QFAIL("an unknown key loaded");
        } catch (const Error& e) {
            const QString message = e.what();
            QVERIFY2(message.contains("forward_4d"), qPrintable(message));
            QVERIFY2(message.contains("forward_2d") && message.contains("validation_holdout"),
                     qPrintable(message));
        }
        QVERIFY(!registry.contains("forward_4d"));
    }

    void new_set_in_env_dir_is_found_and_shadows() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::mt19937 rng(std::random_device{}());
        const int count = std::uniform_int_distribution<int>(3, 40)(rng);
        const fs::path root = dir.path().toStdString();
        write_file(root / "my_new_set.json", random_set_text(rng, "my_new_set", count));
        write_file(root / "forward_2d_test_validation.json",
                   random_set_text(rng, "forward_2d_test_validation", 2));
        write_file(root / "notes.txt", "not a set");
        qputenv("GCONV_PROBLEMS_DIR", dir.path().toUtf8());

        const ProblemRegistry registry; // default search dirs: the env dir comes first
        QCOMPARE(registry.search_dirs().front(), root);
        const auto keys = registry.keys();
        QVERIFY(std::find(keys.begin(), keys.end(), "my_new_set") != keys.end());
        QVERIFY(std::find(keys.begin(), keys.end(), "notes") == keys.end());
        QVERIFY(std::find(keys.begin(), keys.end(), "forward_3d") != keys.end());
        const auto set = registry.load("my_new_set");
        QCOMPARE(set.problems.size(), size_t(count));
        QCOMPARE(set.direction, Variant::BwdWeight);
        QCOMPARE(registry.load("forward_2d_test_validation").problems.size(), size_t(2));
    }

    void key_field_must_match_file_name() {
        QTemporaryDir dir;
        std::mt19937 rng(std::random_device{}());
        const fs::path root = dir.path().toStdString();
        write_file(root / "copied.json", random_set_text(rng, "original", 3));
        try {
            ProblemRegistry({root}).load("copied");
            QFAIL("a mismatched key loaded");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("copied.json"), e.what());
        }
        // A user's own file keeps its own key.
        QCOMPARE(ProblemRegistry::load_file(root / "copied.json").key, std::string("original"));
        QVERIFY_THROWS_EXCEPTION(Error, ProblemRegistry::load_file(root / "missing.json"));
        QVERIFY_THROWS_EXCEPTION(Error, ProblemRegistry::load_file(root));
    }

    void problem_set_structure_errors() {
        const std::vector<std::pair<std::string, QString>> cases{
            {R"({"direction": "forward"})", "problems"},
            {R"({"problems": [{"N":1,"C":1,"K":1,"G":1,"Hi":1,"Wi":1,"Y":1,"X":1}]})", "direction"},
            {R"({"direction": "sideways", "problems": []})", "bwd_weight"},
            {R"({"direction": "forward", "problems": []})", "empty"},
            {R"({"direction": "forward", "problems": {}})", "array"},
            {R"({"direction": "forward", "problem": []})", "allowed keys"},
            {R"({"direction": 3, "problems": []})", "direction"},
            {R"([1, 2])", "object"},
            {R"({"direction": "forward", "problems": [)", "JSON"},
        };
        for (const auto& [text, expected] : cases) {
            try {
                parse_problem_set(text, "user/set.json");
                QFAIL(text.c_str());
            } catch (const Error& e) {
                const QString message = e.what();
                QVERIFY2(message.startsWith("user/set.json"), qPrintable(message));
                QVERIFY2(message.contains(expected), qPrintable(message));
            }
        }
        const std::string one =
            R"({"N":2,"C":4,"K":4,"G":1,"Hi":5,"Wi":5,"Y":3,"X":3,"layer":"a"})";
        const std::string two =
            R"({"N":2,"C":4,"K":4,"G":1,"Hi":5,"Wi":5,"Y":3,"X":3,"layer":"b"})";
        try {
            parse_problem_set(R"({"direction":"forward","problems":[)" + one + "," + two + "]}",
                              "dup.json");
            QFAIL("duplicate shapes accepted");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains("problems[1]"), e.what());
        }
    }

    void parse_key_list_splits_and_trims() {
        QCOMPARE(parse_key_list("forward_2d, bwd_data_2d ,forward_2d"),
                 (std::vector<std::string>{"forward_2d", "bwd_data_2d"}));
        QCOMPARE(parse_key_list("validation_holdout"),
                 (std::vector<std::string>{"validation_holdout"}));
        QVERIFY_THROWS_EXCEPTION(Error, parse_key_list(""));
        QVERIFY_THROWS_EXCEPTION(Error, parse_key_list("a,,b"));
        QVERIFY_THROWS_EXCEPTION(Error, parse_key_list("a, "));
    }

    // Random and mutated bytes never crash the parser: it returns a set or throws gconv::Error.
    void fuzzed_input_only_throws_error() {
        const unsigned seed = std::random_device{}();
        qInfo("fuzz seed %u", seed);
        std::mt19937 rng(seed);
        const std::string valid =
            read_file(source_problems_dir() / "forward_3d_test_validation.json");
        QVERIFY(!valid.empty());
        const std::string tokens[] = {"{",       "}",
                                      "[",       "]",
                                      ",",       ":",
                                      "\"",      "-",
                                      "0",       "1e309",
                                      "null",    "true",
                                      "\"N\"",   "\"problems\"",
                                      "-1",      "99999999999999999999",
                                      "\\u0000", "\xff",
                                      "1.5",     " "};
        auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
        int accepted = 0, rejected = 0;
        for (int i = 0; i < 4000; ++i) {
            std::string text;
            if (i % 5 == 0) {
                text.resize(pick(300));
                for (auto& c : text) c = static_cast<char>(pick(256));
            } else {
                text = valid;
                const size_t edits = 1 + pick(8);
                for (size_t e = 0; e < edits && !text.empty(); ++e) {
                    const size_t at = pick(text.size());
                    switch (pick(5)) {
                    case 0:
                        text[at] = static_cast<char>(pick(256));
                        break;
                    case 1:
                        text.erase(at, 1 + pick(20));
                        break;
                    case 2:
                        text.insert(at, tokens[pick(std::size(tokens))]);
                        break;
                    case 3:
                        text.insert(at, text.substr(pick(text.size()), pick(200)));
                        break;
                    default:
                        text.resize(at);
                        break;
                    }
                }
            }
            try {
                const ProblemSet set = parse_problem_set(text, "fuzz.json");
                for (const auto& p : set.problems) QVERIFY(validate(p).empty());
                ++accepted;
            } catch (const Error& e) {
                QVERIFY(std::string(e.what()).rfind("fuzz.json", 0) == 0);
                ++rejected;
            } catch (const std::exception& e) {
                QFAIL(qPrintable(QString("non-Error exception: %1\ninput: %2")
                                     .arg(e.what(), QString::fromStdString(text).left(400))));
            }
        }
        qInfo("fuzz: %d accepted, %d rejected", accepted, rejected);
        QVERIFY(rejected > 0);
    }
};

QTEST_APPLESS_MAIN(TestProblemRegistry)
#include "tst_problem_registry.moc"
