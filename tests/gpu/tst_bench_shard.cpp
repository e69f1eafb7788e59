// gconv-bench --shard and gconv-bench merge end to end with the fake worker (no GPU): the
// shards partition the sweep by the documented rule, build only their kernels, and merge back
// into the unsharded CSV; merge refuses what it cannot join and de-duplicates by its rule.
#include "bench_cli.h"
#include "csv/csv_reader.h"
#include "csv/csv_writer.h"
#include "sweep/shard.h"
#include "test_paths.h"
#include "util/json_file.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>
#include <random>
#include <set>

using namespace gconv;

class TestBenchShard : public QObject {
    Q_OBJECT

    using Result = gconv::test::BenchRun;

    QTemporaryDir dir_;
    QString cache_;
    std::mt19937_64 rng_{std::random_device{}()};
    // The unsharded sweep, by content key.
    std::map<std::string, ResultRow> whole_;

    std::string path(const QString& name) { return dir_.filePath(name).toStdString(); }

    QStringList sweep_args(const QString& output, int max_kernels = 3) {
        return gconv::test::fake_sweep_args(output, cache_, max_kernels);
    }

    Result run(const QStringList& args) {
        auto env = QProcessEnvironment::systemEnvironment();
        // The fake worker's numbers then depend on kernel and problem only, not on the cell's
        // place in the plan, so a shard measures exactly what the whole sweep does.
        env.insert("GCONV_FAKE_NOISE", "problem");
        return gconv::test::run_bench(args, env);
    }

    static std::map<std::string, ResultRow> rows_by_key(const std::string& csv) {
        const CsvReadResult read = read_results_csv(csv);
        std::map<std::string, ResultRow> rows;
        for (size_t i = 0; i < read.table.rows(); ++i) {
            ResultRow r = read.table.row(i);
            if (rows.count(r.content_key)) throw std::runtime_error(csv + ": a cell twice");
            rows[r.content_key] = std::move(r);
        }
        return rows;
    }

    // The cells the documented rule puts into shard i of n.
    std::set<std::string> expected_shard(size_t i, size_t n) {
        std::set<std::string> keys;
        for (const auto& [key, row] : whole_)
            if (shard_of_cell(row.kernel, row.problem_key, n) == i - 1) keys.insert(key);
        return keys;
    }

    static std::set<std::string> keys_of(const std::map<std::string, ResultRow>& rows) {
        std::set<std::string> keys;
        for (const auto& kv : rows) keys.insert(kv.first);
        return keys;
    }

    // Runs shard i/n into a fresh file and checks its cells and sidecar against the rule.
    std::string run_shard(size_t i, size_t n, int max_kernels = 3) {
        const QString name = QString("shard_%1_of_%2_k%3.csv").arg(i).arg(n).arg(max_kernels);
        QStringList args = sweep_args(dir_.filePath(name), max_kernels);
        args << "--shard" << QString("%1/%2").arg(i).arg(n);
        const auto r = run(args);
        if (r.code != 0) throw std::runtime_error(r.err.toStdString());
        return path(name);
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        cache_ = dir_.filePath("cache");
        if (!QFile::exists(gconv::test::tool_path("gconv-bench")))
            QSKIP("gconv-bench is not built (no GPU platform)");
        const auto r = run(sweep_args(dir_.filePath("whole.csv")));
        QVERIFY2(r.code == 0, qPrintable(r.err));
        whole_ = rows_by_key(path("whole.csv"));
        QCOMPARE(int(whole_.size()), 3 * 22);
    }

    void help_documents_shard_and_merge() {
        auto r = run({"--help"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("--shard") && r.out.contains("merge"), qPrintable(r.out));
        r = run({"merge", "--help"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("-o") && r.out.contains("--force") && r.out.contains("content key"),
                 qPrintable(r.out));
    }

    void bad_shard_values_name_the_flag() {
        for (const QString bad : {"0/3", "4/3", "x", "1/0", "2", "1/3/3", ""}) {
            QStringList args = sweep_args(dir_.filePath("bad.csv"));
            args << "--shard" << bad;
            const auto r = run(args);
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains("--shard") && r.err.contains("'" + bad + "'"),
                     qPrintable(bad + ": " + r.err));
        }
        QVERIFY(!QFile::exists(dir_.filePath("bad.csv.meta.json")));
    }

    void shards_partition_the_sweep_and_merge_back_into_it() {
        std::set<std::string> seen;
        QStringList merge_args{"merge"};
        for (size_t i = 1; i <= 3; ++i) {
            const std::string csv = run_shard(i, 3);
            const auto rows = rows_by_key(csv);
            const auto keys = keys_of(rows);
            QCOMPARE(keys, expected_shard(i, 3));
            for (const auto& k : keys) QVERIFY2(seen.insert(k).second, "a cell in two shards");
            const auto meta = read_json_file(csv + ".meta.json");
            QCOMPARE(meta["shard"]["index"].get<size_t>(), i);
            QCOMPARE(meta["shard"]["count"].get<size_t>(), size_t(3));
            QCOMPARE(meta["shard"]["cells"].get<size_t>(), keys.size());
            QCOMPARE(meta["state"].get<std::string>(), std::string("finished"));
            merge_args << QString::fromStdString(csv);
        }
        QCOMPARE(seen, keys_of(whole_));

        const QString merged = dir_.filePath("merged.csv");
        merge_args << "-o" << merged;
        const auto r = run(merge_args);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const auto rows = rows_by_key(merged.toStdString());
        QCOMPARE(rows.size(), whole_.size());
        int measured = 0;
        for (const auto& [key, row] : rows) {
            QVERIFY(whole_.count(key));
            ResultRow a = row, b = whole_.at(key);
            a.timestamp.clear();
            b.timestamp.clear();
            QVERIFY2(a == b,
                     qPrintable(QString::fromStdString(row.kernel + " " + row.problem_key)));
            measured += row.status == CellStatus::Ok;
        }
        QVERIFY(measured > 0);
        const auto meta = read_json_file(merged.toStdString() + ".meta.json");
        QCOMPARE(meta["inputs"].size(), size_t(3));
        QCOMPARE(meta["merge"]["rows_out"].get<size_t>(), whole_.size());
        QCOMPARE(meta["arch"].get<std::string>(), std::string("sm_90"));
    }

    void a_shard_builds_only_its_kernels_and_ignores_the_pool_order() {
        // With many shards, some hold the cells of fewer kernels than the pool has.
        const size_t n = 40;
        size_t pick = 0, fewest = 4;
        for (size_t i = 1; i <= n; ++i) {
            std::set<std::string> kernels;
            for (const auto& key : expected_shard(i, n)) kernels.insert(whole_.at(key).kernel);
            if (!kernels.empty() && kernels.size() < fewest) fewest = kernels.size(), pick = i;
        }
        QVERIFY(pick > 0 && fewest < 3);
        const std::string csv = run_shard(pick, n);
        QCOMPARE(keys_of(rows_by_key(csv)), expected_shard(pick, n));
        const auto meta = read_json_file(csv + ".meta.json");
        QCOMPARE(meta["shard"]["kernels"].get<size_t>(), fewest);
        const auto& build = meta["build"];
        QCOMPARE(build["compiled"].get<size_t>() + build["cached"].get<size_t>() +
                     build["failed"].get<size_t>(),
                 fewest);

        // A smaller pool: the same shard keeps exactly its cells of the kernels left.
        const std::string small = run_shard(2, 3, 2);
        std::set<std::string> kernels_left;
        for (const auto& [key, row] : rows_by_key(small)) kernels_left.insert(row.kernel);
        std::set<std::string> expected;
        for (const auto& key : expected_shard(2, 3))
            if (kernels_left.count(whole_.at(key).kernel)) expected.insert(key);
        QCOMPARE(keys_of(rows_by_key(small)), expected);
        QVERIFY(kernels_left.size() <= 2);
    }

    void an_empty_shard_writes_an_empty_csv() {
        // 66 cells over 500 shards: most shards are empty.
        size_t empty = 0;
        for (size_t i = 1; i <= 500 && !empty; ++i)
            if (expected_shard(i, 500).empty()) empty = i;
        QVERIFY(empty > 0);
        const std::string csv = run_shard(empty, 500);
        QCOMPARE(read_results_csv(csv).table.rows(), size_t(0));
        QCOMPARE(read_json_file(csv + ".meta.json")["shard"]["cells"].get<size_t>(), size_t(0));
    }

    void merge_refuses_mismatched_sidecars_and_seed_files() {
        const std::string a = run_shard(1, 2);
        const std::string b = run_shard(2, 2);
        const QString out = dir_.filePath("refused.csv");
        // Another arch in b's sidecar.
        const std::string edited = path("edited.csv");
        std::filesystem::copy_file(b, edited);
        nlohmann::json meta = read_json_file(b + ".meta.json");
        meta["arch"] = "sm_80";
        std::ofstream(edited + ".meta.json") << meta.dump(2);
        auto r =
            run({"merge", QString::fromStdString(a), QString::fromStdString(edited), "-o", out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("arch") && r.err.contains("sm_80") && r.err.contains("sm_90") &&
                     r.err.contains(QString::fromStdString(edited)),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(out));

        QStringList args = sweep_args(dir_.filePath("seed.csv"));
        args << "--shard"
             << "1/2"
             << "--csv-schema"
             << "seed";
        QCOMPARE(run(args).code, 0);
        r = run({"merge", QString::fromStdString(a), dir_.filePath("seed.csv"), "-o", out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("seed.csv") && r.err.contains("seed-form") &&
                     r.err.contains("full"),
                 qPrintable(r.err));
        QVERIFY(!QFile::exists(out));

        const std::string bare = path("bare.csv");
        std::filesystem::copy_file(b, bare);
        r = run({"merge", QString::fromStdString(a), QString::fromStdString(bare), "-o", out});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("bare.csv.meta.json") && r.err.contains("--force"),
                 qPrintable(r.err));
        r = run({"merge", QString::fromStdString(a), QString::fromStdString(bare), "-o", out,
                 "--force"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(rows_by_key(out.toStdString()).size(), whole_.size());

        QCOMPARE(run({"merge", QString::fromStdString(a)}).code, 2);
        QCOMPARE(run({"merge", "-o", out}).code, 2);
    }

    void duplicates_resolve_ok_first_then_latest() {
        const std::string shard = run_shard(1, 3);
        const CsvReadResult read = read_results_csv(shard);
        std::vector<ResultRow> rows;
        for (size_t i = 0; i < read.table.rows(); ++i) rows.push_back(read.table.row(i));
        std::vector<size_t> ok;
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i].status == CellStatus::Ok) ok.push_back(i);
        QVERIFY(ok.size() >= 2);
        std::shuffle(ok.begin(), ok.end(), rng_);
        // A later crash of one ok cell (loses to the ok row) and a later, different measurement
        // of another (wins, whichever file comes first).
        ResultRow crashed = rows[ok[0]], remeasured = rows[ok[1]];
        crashed.status = CellStatus::Crash;
        crashed.latency_ms = k_no_value;
        crashed.verified.reset();
        crashed.error = "worker crashed";
        crashed.timestamp = "2999-01-01T00:00:00.000Z";
        remeasured.latency_ms = rows[ok[1]].latency_ms * (1.5 + double(rng_() % 100) / 100);
        remeasured.timestamp = "2999-01-01T00:00:01.000Z";
        const std::string rerun = path("rerun.csv");
        {
            CsvWriter writer(rerun, {});
            writer.write(crashed);
            writer.write(remeasured);
        }
        std::filesystem::copy_file(shard + ".meta.json", rerun + ".meta.json");
        for (const bool rerun_first : {false, true}) {
            const QString out = dir_.filePath(rerun_first ? "dup2.csv" : "dup1.csv");
            QStringList args{"merge"};
            if (rerun_first) args << QString::fromStdString(rerun);
            args << QString::fromStdString(shard);
            if (!rerun_first) args << QString::fromStdString(rerun);
            args << "-o" << out;
            const auto r = run(args);
            QVERIFY2(r.code == 0, qPrintable(r.err));
            QVERIFY2(r.err.contains("2 duplicates"), qPrintable(r.err));
            const auto merged = rows_by_key(out.toStdString());
            QCOMPARE(merged.size(), rows.size());
            QVERIFY(merged.at(crashed.content_key) == rows[ok[0]]);
            QVERIFY(merged.at(remeasured.content_key) == remeasured);
        }
    }
};

QTEST_APPLESS_MAIN(TestBenchShard)
#include "tst_bench_shard.moc"
