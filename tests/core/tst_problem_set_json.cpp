// Writing problem sets (problem_set_json.h) and the user's problem directory of the registry:
// a written set reads back equal, and a set saved into the user directory is found by key.
#include "problem/problem_set.h"
#include "problem/problem_set_json.h"
#include "problem/registry.h"
#include "util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <random>
#include <set>

using namespace gconv;
namespace fs = std::filesystem;

namespace {

// A random valid problem: sizes chosen so that validate() accepts them.
Problem random_problem(std::mt19937& rng, int ndim) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Problem p;
    p.ndim_spatial = ndim;
    p.G = pick(1, 8);
    p.C = p.G * pick(1, 64);
    p.K = p.G * pick(1, 64);
    p.N = pick(1, 32);
    p.Hi = pick(7, 64);
    p.Wi = pick(7, 64);
    p.Y = pick(1, 5);
    p.X = pick(1, 5);
    p.stride_h = pick(1, 3);
    p.stride_w = pick(1, 3);
    p.pad_h = pick(0, 2);
    p.pad_w = pick(0, 2);
    p.dilation_h = pick(1, 2);
    p.dilation_w = pick(1, 2);
    if (ndim == 3) {
        p.Di = pick(7, 16);
        p.Z = pick(1, 3);
        p.stride_d = pick(1, 2);
        p.pad_d = pick(0, 1);
        p.dilation_d = pick(1, 2);
    }
    if (pick(0, 1)) p.layer = "net.layer" + std::to_string(pick(0, 99)) + ".conv \"q\"";
    return p;
}

ProblemSet random_set(std::mt19937& rng, const std::string& key) {
    ProblemSet set;
    set.key = key;
    set.direction = Variant(std::uniform_int_distribution<int>(0, 2)(rng));
    set.description = "random set " + std::to_string(rng() % 1000) + " with \"quotes\"";
    set.generator = "tst_problem_set_json";
    std::set<std::string> shapes;
    const int count = std::uniform_int_distribution<int>(3, 40)(rng);
    while (int(set.problems.size()) < count) {
        Problem p = random_problem(rng, std::uniform_int_distribution<int>(2, 3)(rng));
        if (!validate(p).empty()) continue; // e.g. a dilated filter larger than the input
        if (shapes.insert(p.key()).second) set.problems.push_back(p);
    }
    return set;
}

void compare_sets(const ProblemSet& read, const ProblemSet& written) {
    QCOMPARE(read.key, written.key);
    QCOMPARE(read.direction, written.direction);
    QCOMPARE(read.description, written.description);
    QCOMPARE(read.generator, written.generator);
    QCOMPARE(read.problems.size(), written.problems.size());
    for (std::size_t i = 0; i < read.problems.size(); ++i) {
        QCOMPARE(read.problems[i].key(), written.problems[i].key());
        QCOMPARE(read.problems[i].layer, written.problems[i].layer);
        QCOMPARE(read.problems[i].ndim_spatial, written.problems[i].ndim_spatial);
    }
}

} // namespace

class TestProblemSetJson : public QObject {
    Q_OBJECT

private slots:
    void cleanup() {
        qunsetenv("XDG_DATA_HOME");
        qunsetenv("GCONV_PROBLEMS_DIR");
    }

    void written_text_parses_back_equal() {
        std::mt19937 rng(std::random_device{}());
        for (int round = 0; round < 20; ++round) {
            const ProblemSet set = random_set(rng, "set_" + std::to_string(round));
            const std::string text = problem_set_to_json_text(set);
            compare_sets(parse_problem_set(text, "mem.json"), set);
            // One problem per line, like the shipped files.
            QCOMPARE(std::count(text.begin(), text.end(), '\n'),
                     std::ptrdiff_t(set.problems.size() + 8 + (set.description.empty() ? -1 : 0) +
                                    (set.generator.empty() ? -1 : 0)));
        }
    }

    void write_then_load_file_round_trips() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::mt19937 rng(std::random_device{}());
        const ProblemSet set = random_set(rng, "mine");
        const fs::path path = fs::path(dir.path().toStdString()) / "sub" / "mine.json";
        write_problem_set(path, set);
        QVERIFY(!fs::exists(fs::path(path.string() + ".part")));
        const ProblemSet read = ProblemRegistry::load_file(path);
        compare_sets(read, set);
        QCOMPARE(read.source, path);
    }

    void unwritable_path_names_it() {
        const fs::path path = "/proc/gconv_no_such_dir/x.json";
        try {
            write_problem_set(path, ProblemSet{});
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find(path.string()) != std::string::npos, e.what());
        }
    }

    void user_dir_follows_xdg_data_home_and_comes_last() {
        QTemporaryDir dir;
        qputenv("XDG_DATA_HOME", dir.path().toUtf8());
        const fs::path expected = fs::path(dir.path().toStdString()) / "gconv" / "problems";
        QCOMPARE(ProblemRegistry::user_problems_dir(), expected);
        const auto dirs = ProblemRegistry::default_search_dirs();
        QCOMPARE(dirs.back(), expected);
        QCOMPARE(dirs.front(), fs::path(GCONV_DATA_DIR_SOURCE) / "problems");

        // A relative XDG_DATA_HOME is ignored (XDG spec): HOME decides.
        qputenv("XDG_DATA_HOME", "relative/dir");
        const QByteArray home = qgetenv("HOME");
        if (!home.isEmpty())
            QCOMPARE(ProblemRegistry::user_problems_dir(),
                     fs::path(home.toStdString()) / ".local" / "share" / "gconv" / "problems");
    }

    void a_set_saved_in_the_user_dir_is_found_by_key() {
        QTemporaryDir dir;
        qputenv("XDG_DATA_HOME", dir.path().toUtf8());
        std::mt19937 rng(std::random_device{}());
        const std::string key = "user_set_" + std::to_string(rng() % 100000);
        const ProblemSet set = random_set(rng, key);
        write_problem_set(ProblemRegistry::user_problems_dir() / (key + ".json"), set);
        const ProblemRegistry registry;
        QVERIFY(registry.contains(key));
        QVERIFY(registry.contains("forward_2d")); // shipped sets are still there
        compare_sets(registry.load(key), set);
    }
};

QTEST_APPLESS_MAIN(TestProblemSetJson)
#include "tst_problem_set_json.moc"
