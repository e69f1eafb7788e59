// Sharding and merging of sweeps: --shard parsing and the split, the de-duplication rule, the
// sidecar checks, and merge_results end to end on files written by the CSV writer.
#include "csv/content_key.h"
#include "csv/csv_reader.h"
#include "csv/csv_writer.h"
#include "sweep/merge.h"
#include "sweep/shard.h"
#include "util/error.h"
#include "util/json_file.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>
#include <random>
#include <set>

using namespace gconv;

class TestMerge : public QObject {
    Q_OBJECT

    std::mt19937_64 rng{std::random_device{}()};
    QTemporaryDir dir;

    std::string path(const std::string& name) {
        return dir.filePath(QString::fromStdString(name)).toStdString();
    }
    int64_t dim(int64_t lo, int64_t hi) { return lo + int64_t(rng() % uint64_t(hi - lo + 1)); }

    std::string random_name() { return "grouped_conv_forward_bf16_2d_" + std::to_string(rng()); }

    ResultRow random_row(const std::string& kernel, const std::string& problem_key,
                         CellStatus status, const std::string& timestamp) {
        ResultRow r;
        r.kernel = kernel;
        r.problem_idx = dim(0, 500);
        Problem& p = r.problem;
        p.ndim_spatial = 2;
        p.G = dim(1, 8);
        p.C = p.G * dim(1, 64);
        p.K = p.G * dim(1, 64);
        p.N = dim(1, 32);
        p.Hi = dim(1, 300);
        p.Wi = dim(1, 300);
        p.Y = dim(1, 7);
        p.X = dim(1, 7);
        r.status = status;
        if (status == CellStatus::Ok || status == CellStatus::Fail) {
            r.latency_ms = 1e-3 + double(rng() % 100000) / 1e4;
            r.tflops = 0.5 + double(rng() % 100000) / 100;
            r.verified = status == CellStatus::Ok;
        } else {
            r.error = "error " + std::to_string(rng() % 1000);
        }
        r.variant = "forward";
        r.dtype = "bf16";
        r.arch = "sm_90";
        r.device = "NVIDIA H200";
        r.toolchain = "hip 7.0 / nvrtc 13.0";
        r.problem_key = problem_key;
        r.content_key = content_key(r.kernel, r.problem_key, r.arch, r.toolchain);
        r.set = "forward_2d";
        r.warmup = int(dim(0, 10));
        r.repeat = int(dim(1, 100));
        r.timestamp = timestamp;
        return r;
    }

    // "2026-01-01T00:00:SS.mmmZ" with a random time: ordered as text and as time.
    std::string stamp(int seconds, int millis) {
        char text[40];
        std::snprintf(text, sizeof text, "2026-01-01T%02d:%02d:%02d.%03dZ", seconds / 3600,
                      seconds / 60 % 60, seconds % 60, millis);
        return text;
    }

    nlohmann::json sidecar() {
        return {
            {"tool", "gconv-bench"},
            {"state", "finished"},
            {"variant", "forward"},
            {"dtype", "bf16"},
            {"arch", "sm_90"},
            {"toolchain", "hip 7.0 / nvrtc 13.0"},
            {"config", {{"path", "configs/forward_bf16.json"}, {"sha256", std::string(64, 'a')}}},
            {"problem_sets", {{"forward_2d", std::string(64, 'b')}}}};
    }

    void write_csv(const std::string& file, const std::vector<ResultRow>& rows,
                   const nlohmann::json* meta, CsvForm form = CsvForm::Full) {
        CsvWriterOptions options;
        options.form = form;
        CsvWriter writer(file, options);
        for (const auto& r : rows) writer.write(r);
        writer.close();
        if (meta) std::ofstream(file + ".meta.json") << meta->dump(2);
    }

    static QString message_of(const std::function<void()>& f) {
        try {
            f();
        } catch (const Error& e) {
            return QString::fromUtf8(e.what());
        }
        return {};
    }

private slots:
    void parse_shard_accepts_every_valid_pair() {
        for (int i = 0; i < 200; ++i) {
            const size_t n = size_t(dim(1, 5000)), k = size_t(dim(1, int64_t(n)));
            const ShardSpec s = parse_shard(std::to_string(k) + "/" + std::to_string(n));
            QCOMPARE(s.index, k);
            QCOMPARE(s.count, n);
            QCOMPARE(s.text(), std::to_string(k) + "/" + std::to_string(n));
        }
    }

    void parse_shard_names_the_flag_on_bad_values() {
        const size_t n = size_t(dim(2, 99));
        for (const std::string& bad :
             {std::string("0/") + std::to_string(n),
              std::to_string(n + 1) + "/" + std::to_string(n), std::string("x"), std::to_string(n),
              std::string("1/0"), std::string("a/b"), std::string("1/3x"), std::string(""),
              std::string("/3"), std::string("-1/3"), std::string("1//3")}) {
            const QString m = message_of([&] { parse_shard(bad); });
            QVERIFY2(m.contains("--shard") && m.contains(QString::fromStdString("'" + bad + "'")),
                     qPrintable(QString::fromStdString(bad) + " -> " + m));
        }
    }

    void the_split_is_a_partition_and_balanced() {
        const size_t n = size_t(dim(2, 7));
        std::vector<std::string> kernels, problems;
        for (int i = 0; i < 40; ++i) kernels.push_back(random_name());
        for (int i = 0; i < 30; ++i) problems.push_back("p" + std::to_string(rng()));
        std::vector<size_t> per_shard(n, 0);
        for (const auto& k : kernels)
            for (const auto& p : problems) {
                const size_t s = shard_of_cell(k, p, n);
                QVERIFY(s < n);
                QCOMPARE(shard_of_cell(k, p, n), s); // a function of the cell alone
                int owners = 0;
                for (size_t i = 1; i <= n; ++i) owners += cell_in_shard({i, n}, k, p);
                QCOMPARE(owners, 1);
                ++per_shard[s];
            }
        const double mean = double(kernels.size() * problems.size()) / double(n);
        for (size_t s = 0; s < n; ++s)
            QVERIFY2(per_shard[s] > 0.8 * mean && per_shard[s] < 1.2 * mean,
                     qPrintable(QString("shard %1 of %2 has %3 cells, mean %4")
                                    .arg(s + 1)
                                    .arg(n)
                                    .arg(per_shard[s])
                                    .arg(mean)));
    }

    void ok_beats_failed_then_later_timestamp_wins() {
        const std::string k = random_name(), p = "p" + std::to_string(rng());
        const int t = int(dim(100, 80000));
        const ResultRow ok_old = random_row(k, p, CellStatus::Ok, stamp(t, 0));
        const ResultRow crash_new = random_row(k, p, CellStatus::Crash, stamp(t + 5, 0));
        QVERIFY(!replaces_row(crash_new, ok_old));
        QVERIFY(replaces_row(ok_old, crash_new));
        const ResultRow ok_new = random_row(k, p, CellStatus::Ok, stamp(t, 1));
        QVERIFY(replaces_row(ok_new, ok_old));
        QVERIFY(!replaces_row(ok_old, ok_new));
        const ResultRow timeout_new = random_row(k, p, CellStatus::Timeout, stamp(t + 9, 0));
        QVERIFY(replaces_row(timeout_new, crash_new));
        // A tie goes to the later input.
        const ResultRow ok_same = random_row(k, p, CellStatus::Ok, stamp(t, 1));
        QVERIFY(replaces_row(ok_same, ok_new));
    }

    void dedup_keeps_one_row_per_key_by_the_rule() {
        const auto statuses = cell_status_names();
        std::vector<ResultRow> rows;
        std::map<std::string, ResultRow> expected;
        std::vector<std::string> first_order;
        for (int c = 0; c < 60; ++c) {
            const std::string k = random_name(), p = "p" + std::to_string(rng());
            const int copies = int(dim(1, 4));
            for (int i = 0; i < copies; ++i) {
                const auto status = *cell_status_from_string(statuses[rng() % statuses.size()]);
                rows.push_back(
                    random_row(k, p, status, stamp(int(dim(0, 80000)), int(dim(0, 999)))));
            }
        }
        std::shuffle(rows.begin(), rows.end(), rng);
        // The expectation, computed the slow way: best by (ok, timestamp, position).
        std::map<std::string, size_t> best;
        for (size_t i = 0; i < rows.size(); ++i) {
            const auto& r = rows[i];
            if (!best.count(r.content_key)) {
                best[r.content_key] = i;
                first_order.push_back(r.content_key);
                continue;
            }
            const auto& b = rows[best[r.content_key]];
            const auto rank = [](const ResultRow& x) {
                return std::make_pair(x.status == CellStatus::Ok, x.timestamp);
            };
            if (rank(r) >= rank(b)) best[r.content_key] = i;
        }
        const DedupResult d = dedup_by_content_key(rows);
        QCOMPARE(d.rows.size(), best.size());
        QCOMPARE(d.duplicates, rows.size() - best.size());
        for (size_t i = 0; i < d.rows.size(); ++i) {
            QCOMPARE(d.rows[i].content_key, first_order[i]);
            QVERIFY(d.rows[i] == rows[best[first_order[i]]]);
        }
        rows.front().content_key.clear();
        QVERIFY(message_of([&] { dedup_by_content_key(rows); }).contains("content_key"));
    }

    void sidecars_must_agree_on_every_field() {
        QVERIFY(message_of([&] {
                    check_sidecars_agree({sidecar(), sidecar(), sidecar()}, {"a", "b", "c"});
                }).isEmpty());
        for (const std::string& field : merge_sidecar_fields()) {
            nlohmann::json changed = sidecar();
            const nlohmann::json::json_pointer ptr(field);
            changed[ptr] = "changed" + std::to_string(rng() % 1000);
            QString m = message_of([&] {
                check_sidecars_agree({sidecar(), sidecar(), changed},
                                     {"a.json", "b.json", "c.json"});
            });
            QVERIFY2(m.contains(QString::fromStdString(field.substr(1))) && m.contains("a.json") &&
                         m.contains("c.json") && m.contains("changed"),
                     qPrintable(m));
            nlohmann::json missing = sidecar();
            missing[ptr.parent_pointer()].erase(ptr.back());
            m = message_of([&] {
                check_sidecars_agree({sidecar(), missing}, {"a.json", "b.json"});
            });
            QVERIFY2(m.contains("(missing)"), qPrintable(m));
        }
    }

    void merge_results_joins_files_and_lists_the_inputs() {
        // Three shards with some cells in two of them (a rerun), one of those a failed copy.
        std::vector<std::vector<ResultRow>> files(3);
        std::map<std::string, ResultRow> truth;
        int t = int(dim(100, 1000));
        for (int c = 0; c < 90; ++c) {
            const ResultRow r = random_row(random_name(), "p" + std::to_string(rng()),
                                           CellStatus::Ok, stamp(t++, 0));
            const size_t f = rng() % 3;
            files[f].push_back(r);
            truth[r.content_key] = r;
            if (rng() % 4 == 0) {
                ResultRow failed = r;
                failed.status = CellStatus::Crash;
                failed.latency_ms = k_no_value;
                failed.error = "worker crashed";
                failed.timestamp = stamp(t++, 0);
                files[(f + 1) % 3].push_back(failed);
            }
        }
        std::vector<std::filesystem::path> inputs;
        size_t rows_in = 0;
        for (size_t f = 0; f < 3; ++f) {
            nlohmann::json meta = sidecar();
            meta["shard"] = {{"index", f + 1}, {"count", 3}};
            inputs.push_back(path("shard" + std::to_string(f) + ".csv"));
            write_csv(inputs.back().string(), files[f], &meta);
            rows_in += files[f].size();
        }
        const std::string out = path("merged.csv");
        const MergeReport report = merge_results(inputs, out);
        QCOMPARE(report.rows_in, rows_in);
        QCOMPARE(report.rows_out, truth.size());
        QCOMPARE(report.duplicates, rows_in - truth.size());
        const CsvReadResult back = read_results_csv(out);
        QVERIFY(back.form == CsvForm::Full);
        QCOMPARE(back.table.rows(), truth.size());
        for (size_t i = 0; i < back.table.rows(); ++i) {
            const ResultRow r = back.table.row(i);
            QVERIFY(truth.count(r.content_key));
            QVERIFY2(r == truth[r.content_key], r.kernel.c_str());
        }
        const nlohmann::json meta = read_json_file(out + ".meta.json");
        QCOMPARE(meta["inputs"].size(), size_t(3));
        for (size_t f = 0; f < 3; ++f) {
            QCOMPARE(meta["inputs"][f]["csv"].get<std::string>(), inputs[f].string());
            QCOMPARE(meta["inputs"][f]["shard"]["index"].get<size_t>(), f + 1);
        }
        QCOMPARE(meta["arch"].get<std::string>(), std::string("sm_90"));
        QCOMPARE(meta["merge"]["duplicates"].get<size_t>(), report.duplicates);
    }

    void merge_refuses_seed_form_missing_sidecars_and_mismatches() {
        const nlohmann::json meta = sidecar();
        std::vector<ResultRow> rows;
        for (int i = 0; i < 5; ++i)
            rows.push_back(random_row(random_name(), "p" + std::to_string(rng()), CellStatus::Ok,
                                      stamp(int(dim(0, 9999)), 0)));
        const std::string full = path("full.csv"), seed = path("seed.csv"), bare = path("bare.csv"),
                          other = path("other.csv"), out = path("o.csv");
        write_csv(full, rows, &meta);
        write_csv(seed, rows, &meta, CsvForm::Seed);
        write_csv(bare, rows, nullptr);
        nlohmann::json other_meta = meta;
        other_meta["arch"] = "sm_80";
        write_csv(other, rows, &other_meta);

        QString m = message_of([&] { merge_results({full, seed}, out); });
        QVERIFY2(m.contains(QString::fromStdString(seed)) && m.contains("seed-form") &&
                     m.contains("full"),
                 qPrintable(m));
        QVERIFY(!std::filesystem::exists(out));
        m = message_of([&] { merge_results({full, bare}, out); });
        QVERIFY2(m.contains(QString::fromStdString(bare + ".meta.json")) && m.contains("--force"),
                 qPrintable(m));
        MergeOptions force;
        force.force = true;
        const MergeReport forced = merge_results({full, bare}, out, force);
        QCOMPARE(forced.rows_out, rows.size());
        QCOMPARE(forced.duplicates, rows.size());
        QVERIFY(!forced.warnings.empty());
        m = message_of([&] { merge_results({full, other}, path("o2.csv")); });
        QVERIFY2(m.contains("arch") && m.contains("sm_80") && m.contains("sm_90"), qPrintable(m));
        QVERIFY(!std::filesystem::exists(path("o2.csv")));
        m = message_of([&] { merge_results({full, out}, out); });
        QVERIFY2(m.contains("output"), qPrintable(m));
    }
};

QTEST_APPLESS_MAIN(TestMerge)
#include "tst_merge.moc"
