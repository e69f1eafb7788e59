// A result row as the JSON object of CSV texts that `cell` progress events carry: every column
// of the full form is there, and reading it back gives the row the CSV reader gives for the
// same row on disk.
#include "csv/csv_reader.h"
#include "csv/csv_writer.h"
#include "csv/result_row_json.h"
#include "sweep/progress_reporter.h"
#include "util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <random>

using namespace gconv;

class TestResultRowJson : public QObject {
    Q_OBJECT

    std::mt19937_64 rng{std::random_device{}()};
    QTemporaryDir dir;

    int64_t dim(int lo, int hi) { return lo + static_cast<int64_t>(rng() % (hi - lo + 1)); }
    double real(double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng);
    }
    std::string text() {
        static const char* parts[] = {"a,b", "\"q\"", "two\nlines", "", "plain", "ünï ✓", " "};
        std::string t;
        for (int i = int(rng() % 4); i > 0; --i) t += parts[rng() % std::size(parts)];
        return t;
    }

    ResultRow random_row() {
        ResultRow r;
        r.kernel = "grouped_conv_fwd_bf16_" + std::to_string(dim(1, 99999));
        r.problem_idx = dim(0, 100000);
        Problem& p = r.problem;
        p.ndim_spatial = rng() % 3 == 0 ? 3 : 2;
        p.G = dim(1, 32);
        p.C = p.G * dim(1, 64);
        p.K = p.G * dim(1, 64);
        p.N = dim(1, 64);
        p.Hi = dim(1, 300);
        p.Wi = dim(1, 300);
        p.Y = dim(1, 7);
        p.X = dim(1, 7);
        p.stride_h = dim(1, 3);
        p.stride_w = dim(1, 3);
        p.pad_h = dim(0, 3);
        p.pad_w = dim(0, 3);
        p.dilation_h = dim(1, 3);
        p.dilation_w = dim(1, 3);
        if (p.ndim_spatial == 3) {
            p.Di = dim(2, 40);
            p.Z = dim(2, 5);
            p.stride_d = dim(1, 3);
            p.pad_d = dim(0, 2);
            p.dilation_d = dim(1, 2);
        }
        p.layer = text();
        const auto statuses = cell_status_names();
        r.status = *cell_status_from_string(statuses[rng() % statuses.size()]);
        // Numbers on every row, also where the CSV writes N/A: the round trip must match the
        // file, not the struct.
        r.latency_ms = real(1e-5, 100);
        r.tflops = real(0.01, 1000);
        r.non_zero = rng() % 2;
        if (rng() % 3) r.verified = rng() % 2 == 0;
        if (rng() % 4) r.max_rel_err = real(0, 1);
        if (rng() % 4) r.latency_median_ms = real(1e-5, 100);
        if (rng() % 4) r.cv = real(0, 0.5);
        if (rng() % 4) r.gbps = real(1, 5000);
        if (rng() % 4) r.baseline_ms = real(1e-3, 10);
        if (rng() % 4) r.speedup = real(0.1, 10);
        r.error = text();
        r.variant = rng() % 2 ? "forward" : "bwd_data";
        r.dtype = rng() % 2 ? "bf16" : "fp16";
        r.arch = "sm_" + std::to_string(dim(70, 100));
        r.device = "NVIDIA H" + std::to_string(dim(100, 300)) + ", \"SXM\"";
        r.toolchain = "nvrtc " + std::to_string(dim(11, 13));
        r.content_key = std::to_string(rng());
        r.problem_key = "key" + std::to_string(dim(0, 1 << 30));
        r.set = text();
        r.warmup = int(dim(0, 10));
        r.repeat = int(dim(1, 1000));
        r.timestamp = utc_timestamp_now();
        return r;
    }

    static void expect_error(const nlohmann::json& object, const QString& needle) {
        try {
            result_row_from_json(object);
            QFAIL(qPrintable("no error for " + QString::fromStdString(object.dump())));
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains(needle), e.what());
        }
    }

private slots:
    void every_full_column_is_there_as_text() {
        const nlohmann::json object = result_row_to_json(random_row());
        const auto columns = columns_for(CsvForm::Full, true);
        QCOMPARE(object.size(), columns.size());
        for (const ResultColumn* c : columns) {
            const auto found = object.find(std::string(c->name));
            QVERIFY2(found != object.end(), c->name.data());
            QVERIFY2(found->is_string(), c->name.data());
        }
    }

    void read_back_equals_the_csv_on_disk() {
        const std::string file = dir.filePath("rows.csv").toStdString();
        std::vector<ResultRow> rows;
        std::vector<std::string> lines;
        {
            CsvWriter writer(file, {});
            for (int i = 0; i < 400; ++i) {
                rows.push_back(random_row());
                writer.write(rows.back());
                // Through a JSON line, as the event stream carries it.
                lines.push_back(result_row_to_json(rows.back()).dump());
            }
        }
        const CsvReadResult read = read_results_csv(file);
        QCOMPARE(read.table.rows(), rows.size());
        for (size_t i = 0; i < rows.size(); ++i) {
            const ResultRow live = result_row_from_json(nlohmann::json::parse(lines[i]));
            QVERIFY2(live == read.table.row(i), lines[i].c_str());
            // Cells that ran keep their numbers exactly (shortest round-trip text).
            if (rows[i].status == CellStatus::Ok || rows[i].status == CellStatus::Fail)
                QVERIFY2(live == rows[i], lines[i].c_str());
        }
    }

    void missing_columns_keep_defaults_and_unknown_names_are_ignored() {
        const ResultRow r = random_row();
        nlohmann::json object = result_row_to_json(r);
        object.erase("device");
        object.erase("cv");
        object["column_of_a_newer_writer"] = "42";
        const ResultRow back = result_row_from_json(object);
        QCOMPARE(back.device, std::string());
        QVERIFY(!has_value(back.cv));
        QCOMPARE(back.kernel, r.kernel);
        QCOMPARE(back.problem.C, r.problem.C);
    }

    void json_numbers_booleans_and_null_are_taken() {
        const int64_t c = dim(1, 5000);
        const double latency = real(0.001, 10);
        const ResultRow r = result_row_from_json({{"kernel", "k"},
                                                  {"C", c},
                                                  {"latency_ms", latency},
                                                  {"verified", true},
                                                  {"non_zero", false},
                                                  {"gbps", nullptr},
                                                  {"status", "ok"}});
        QCOMPARE(r.problem.C, c);
        QCOMPARE(r.latency_ms, latency);
        QCOMPARE(r.verified, std::optional<bool>(true));
        QVERIFY(!has_value(r.gbps));
    }

    void bad_values_name_the_field() {
        expect_error(nlohmann::json::array(), "row: expected an object");
        expect_error({{"latency_ms", "fast"}}, "row.latency_ms: expected a number, got \"fast\"");
        expect_error({{"C", "2.5"}}, "row.C: expected an integer");
        expect_error({{"C", 2.5}}, "row.C: expected an integer");
        expect_error({{"verified", "maybe"}}, "row.verified: expected true or false");
        expect_error({{"status", "splendid"}}, "row.status: unknown status \"splendid\"");
        expect_error({{"status", "splendid"}}, "timeout");
        expect_error({{"kernel", 7}}, "row.kernel: expected the column's text");
        expect_error({{"N", nlohmann::json::array()}}, "row.N:");
    }

    void cell_events_carry_the_row() {
        ResultRow r = random_row();
        r.status = CellStatus::Crash;
        const nlohmann::json details = cell_event_details(&r);
        QCOMPARE(details.at("status").get<std::string>(), std::string("crash"));
        QCOMPARE(details.at("kernel").get<std::string>(), r.kernel);
        QCOMPARE(details.at("problem_idx").get<int64_t>(), r.problem_idx);
        QVERIFY(result_row_from_json(details.at("row")) ==
                result_row_from_json(result_row_to_json(r)));
        QVERIFY(counts_as_failure(r));
        r.status = CellStatus::Unsupported;
        QVERIFY(!counts_as_failure(r));
        r.status = CellStatus::Ok;
        QVERIFY(!counts_as_failure(r));
        const nlohmann::json resumed = cell_event_details(nullptr);
        QCOMPARE(resumed.at("status").get<std::string>(), std::string("resumed"));
        QVERIFY(!resumed.contains("row"));
    }
};

QTEST_APPLESS_MAIN(TestResultRowJson)
#include "tst_result_row_json.moc"
