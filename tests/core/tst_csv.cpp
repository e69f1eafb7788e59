#include "csv/content_key.h"
#include "csv/csv_reader.h"
#include "csv/csv_writer.h"
#include "util/error.h"

#include <QtTest>

#include <chrono>
#include <ctime>
#include <fstream>
#include <random>

using namespace gconv;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void append_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << text;
}

} // namespace

class TestCsv : public QObject {
    Q_OBJECT

    std::mt19937_64 rng{std::random_device{}()};
    QTemporaryDir dir;

    std::string path(const char* name) { return dir.filePath(name).toStdString(); }
    int64_t dim(int lo, int hi) { return lo + static_cast<int64_t>(rng() % (hi - lo + 1)); }
    double real(double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng);
    }

    std::string nasty_text() {
        static const char* parts[] = {"a,b",       "say \"hi\"", "line1\nline2", "cr\r\nlf",
                                      "",          ",",          "\"",           "plain",
                                      "tab\there", "ünïcode ✓",  "trailing,"};
        std::string text;
        const int n = static_cast<int>(rng() % 4);
        for (int i = 0; i < n; ++i) text += parts[rng() % std::size(parts)];
        return text;
    }

    ResultRow random_row(int ndim) {
        ResultRow r;
        r.kernel =
            "grouped_conv_fwd_bf16_" + std::to_string(dim(1, 999)) + (rng() % 2 ? ",odd" : "");
        r.problem_idx = dim(0, 5000);
        Problem& p = r.problem;
        p.ndim_spatial = ndim;
        p.G = dim(1, 8);
        p.C = p.G * dim(1, 64);
        p.K = p.G * dim(1, 64);
        p.N = dim(1, 32);
        p.Hi = dim(1, 300);
        p.Wi = dim(1, 300);
        p.Y = dim(1, 7);
        p.X = dim(1, 7);
        p.stride_h = dim(1, 3);
        p.stride_w = dim(1, 3);
        p.pad_h = dim(0, 3);
        p.pad_w = dim(0, 3);
        p.dilation_h = dim(1, 2);
        p.dilation_w = dim(1, 2);
        if (ndim == 3) {
            p.Di = dim(2, 30);
            p.Z = dim(2, 5);
            p.stride_d = dim(1, 2);
            p.pad_d = dim(0, 2);
            p.dilation_d = dim(1, 2);
        }
        p.layer = nasty_text();
        const auto statuses = cell_status_names();
        r.status = *cell_status_from_string(statuses[rng() % statuses.size()]);
        const bool ran = r.status == CellStatus::Ok || r.status == CellStatus::Fail;
        if (ran) {
            r.latency_ms = real(1e-4, 50);
            r.tflops = real(0.1, 900);
            r.latency_median_ms = real(1e-4, 50);
            r.cv = real(0, 0.3);
            r.gbps = real(1, 5000);
            r.max_rel_err = real(0, 1);
            r.verified = r.status == CellStatus::Ok;
            if (rng() % 2) {
                r.baseline_ms = real(1e-3, 10);
                r.speedup = real(0.1, 10);
            }
        }
        r.non_zero = rng() % 2;
        r.error = nasty_text();
        r.variant = "forward";
        r.dtype = "bf16";
        r.arch = "sm_90a";
        r.device = "NVIDIA H200, \"SXM\"";
        r.toolchain = "hip 6.2 / nvrtc 12.4";
        r.problem_key = "key" + std::to_string(dim(0, 1 << 30));
        r.content_key = content_key(r.kernel, r.problem_key, r.arch, r.toolchain);
        r.set = "forward_2d";
        r.warmup = static_cast<int>(dim(0, 10));
        r.repeat = static_cast<int>(dim(1, 100));
        r.timestamp = utc_timestamp_now();
        return r;
    }

    void expect_read_error(const std::string& file, const QString& needle) {
        try {
            read_results_csv(file);
            QFAIL("no error thrown");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains(needle), e.what());
        }
    }

private slots:
    void fullFormRoundTrip() {
        const std::string file = path("full.csv");
        std::vector<ResultRow> rows;
        {
            CsvWriter writer(file, {});
            for (int i = 0; i < 300; ++i) {
                rows.push_back(random_row(i % 3 == 0 ? 3 : 2));
                writer.write(rows.back());
            }
        }
        const CsvReadResult read = read_results_csv(file);
        QCOMPARE(read.form, CsvForm::Full);
        QVERIFY(read.warnings.empty());
        QCOMPARE(read.table.rows(), rows.size());
        QCOMPARE(read.valid_bytes, static_cast<uint64_t>(read_file(file).size()));
        for (size_t i = 0; i < rows.size(); ++i) {
            ResultRow expected = rows[i];
            if (expected.status != CellStatus::Ok && expected.status != CellStatus::Fail)
                expected.tflops = 0; // written N/A / 0 like the seed
            QVERIFY2(read.table.row(i) == expected,
                     ("row " + std::to_string(i) + " differs").c_str());
        }
    }

    void headerOrderFollowsTheTileEngine() {
        const auto full = columns_for(CsvForm::Full, false);
        const char* ck[] = {"kernel",     "problem_idx", "N",        "C",          "K",
                            "G",          "Di",          "Hi",       "Wi",         "Z",
                            "Y",          "X",           "stride_d", "stride_h",   "stride_w",
                            "pad_d",      "pad_h",       "pad_w",    "dilation_d", "dilation_h",
                            "dilation_w", "latency_ms",  "tflops",   "non_zero"};
        QVERIFY(full.size() > std::size(ck));
        for (size_t i = 0; i < std::size(ck); ++i) QCOMPARE(full[i]->name, std::string_view(ck[i]));
        QCOMPARE(full[std::size(ck)]->name, std::string_view("status"));
        QCOMPARE(columns_for(CsvForm::Ck, false).size(), std::size(ck));
    }

    void seedForm_data() {
        QTest::addColumn<int>("ndim");
        QTest::newRow("2d") << 2;
        QTest::newRow("3d") << 3;
    }
    void seedForm() {
        QFETCH(int, ndim);
        const std::string file = path(ndim == 3 ? "seed3.csv" : "seed2.csv");
        std::vector<ResultRow> rows;
        {
            CsvWriterOptions options;
            options.form = CsvForm::Seed;
            options.three_d = ndim == 3;
            CsvWriter writer(file, options);
            for (int i = 0; i < 50; ++i) {
                rows.push_back(random_row(ndim));
                writer.write(rows.back());
            }
        }
        const std::string text = read_file(file);
        const std::string header = text.substr(0, text.find('\n'));
        QCOMPARE(header,
                 std::string(ndim == 3 ? "kernel,problem_idx,N,C,K,G,Di,Hi,Wi,Z,Y,X,stride_d,"
                                         "stride_h,stride_w,pad_d,pad_h,pad_w,latency_ms,tflops,"
                                         "non_zero"
                                       : "kernel,problem_idx,N,C,K,G,Hi,Wi,Y,X,stride_h,"
                                         "stride_w,pad_h,pad_w,latency_ms,tflops,non_zero"));
        const CsvReadResult read = read_results_csv(file);
        QCOMPARE(read.form, CsvForm::Seed);
        QCOMPARE(read.table.rows(), rows.size());
        for (size_t i = 0; i < rows.size(); ++i) {
            const ResultRow back = read.table.row(i);
            const ResultRow& in = rows[i];
            QCOMPARE(back.kernel, in.kernel);
            QCOMPARE(back.problem.Hi, in.problem.Hi);
            QCOMPARE(back.problem.Di, in.problem.Di);
            QCOMPARE(back.problem.ndim_spatial, ndim);
            const bool ran = in.status == CellStatus::Ok || in.status == CellStatus::Fail;
            QCOMPARE(has_value(back.latency_ms), ran);
            if (ran) QCOMPARE(back.latency_ms, in.latency_ms);
            QCOMPARE(back.tflops, ran ? in.tflops : 0.0);
            QCOMPARE(back.status, ran ? CellStatus::Ok : CellStatus::Error);
        }
    }

    void readsCkFile() {
        const std::string file = path("ck.csv");
        const int hi = static_cast<int>(dim(8, 200));
        const double ms = real(0.01, 3);
        std::string text =
            "kernel,problem_idx,N,C,K,G,Di,Hi,Wi,Z,Y,X,stride_d,stride_h,stride_w,pad_d,pad_h,"
            "pad_w,dilation_d,dilation_h,dilation_w,latency_ms,tflops,non_zero\r\n";
        text += "grouped_conv_forward_bf16_2d_128x128x32_compv3_intrawave,0,2,64,64,1,1," +
                std::to_string(hi) + ",56,1,3,3,1,1,1,0,1,1,1,1,1," + std::to_string(ms) +
                ",12.5,True\r\n";
        text += "grouped_conv_forward_bf16_3d_64x64x64_mem_interwave,1,1,32,32,2,8,16,16,3,3,3,1,"
                "1,1,1,1,1,1,1,1,N/A,0,False\r\n";
        append_text(file, text);
        const CsvReadResult read = read_results_csv(file);
        QCOMPARE(read.form, CsvForm::Ck);
        QCOMPARE(read.table.rows(), size_t{2});
        const ResultRow a = read.table.row(0), b = read.table.row(1);
        QCOMPARE(a.problem.Hi, int64_t{hi});
        QCOMPARE(a.latency_ms, std::stod(std::to_string(ms)));
        QVERIFY(a.non_zero);
        QCOMPARE(a.status, CellStatus::Ok);
        QCOMPARE(a.problem.ndim_spatial, 2);
        QCOMPARE(b.problem.ndim_spatial, 3);
        QVERIFY(!has_value(b.latency_ms));
        QCOMPARE(b.status, CellStatus::Error);
        QVERIFY(!b.non_zero);
        QCOMPARE(read.table.column("kernel")->text(1),
                 std::string_view("grouped_conv_forward_bf16_3d_64x64x64_mem_interwave"));
    }

    void malformedLineNamesLineAndColumn() {
        const std::string file = path("bad.csv");
        {
            CsvWriter writer(file, {});
            ResultRow multi = random_row(2);
            multi.error = "one\ntwo\nthree"; // a record spanning three lines
            multi.problem.layer = "layer";
            writer.write(multi);
            for (int i = 0; i < 4; ++i) {
                ResultRow plain = random_row(2);
                plain.error = "plain, \"quoted\" error";
                plain.problem.layer = "layer";
                plain.kernel = "kernel_" + std::to_string(i);
                plain.device = "device";
                plain.status = CellStatus::Ok;
                plain.latency_ms = real(0.1, 2);
                writer.write(plain);
            }
        }
        // Header on line 1, the first record on lines 2-4, then 4 rows: the next is line 9.
        std::string text = read_file(file);
        const std::string last_row = text.substr(text.rfind('\n', text.size() - 2) + 1);
        std::string broken = last_row;
        // Replace the tflops field (column 23) of a copy of the last row by a word.
        size_t at = 0;
        for (int commas = 0; commas < 22; ++commas) at = broken.find(',', at) + 1;
        broken.replace(at, broken.find(',', at) - at, "fast");
        append_text(file, broken);
        expect_read_error(file, QString::fromStdString(file) + ":9: column \"tflops\"");
        expect_read_error(file, "got \"fast\"");

        const std::string short_file = path("short.csv");
        append_text(short_file, text + "k,1,2\n");
        expect_read_error(
            short_file, ":9: expected " +
                            QString::number(columns_for(CsvForm::Full, false).size()) + " fields");

        const std::string status_file = path("status.csv");
        std::string bad_status = last_row;
        at = 0;
        for (int commas = 0; commas < 24; ++commas) at = bad_status.find(',', at) + 1;
        bad_status.replace(at, bad_status.find(',', at) - at, "exploded");
        append_text(status_file, text + bad_status);
        expect_read_error(status_file, ":9: column \"status\": unknown status \"exploded\"");

        const std::string no_kernel = path("nokernel.csv");
        append_text(no_kernel, "a,b\n1,2\n");
        expect_read_error(no_kernel, "no \"kernel\" column");
    }

    void truncatedLastLineIsAWarningAndAppendCutsIt() {
        const std::string file = path("killed.csv");
        std::vector<ResultRow> rows;
        {
            CsvWriter writer(file, {});
            for (int i = 0; i < 20; ++i) {
                rows.push_back(random_row(2));
                rows.back().error = "one line, \"quoted\"";
                rows.back().problem.layer = "layer";
                writer.write(rows.back());
            }
        }
        const uint64_t complete = read_file(file).size();
        const std::string next_line = [&] {
            std::string all = read_file(file);
            return all.substr(all.rfind('\n', all.size() - 2) + 1);
        }();
        const size_t cut = 1 + rng() % (next_line.size() - 2);
        append_text(file, next_line.substr(0, cut)); // a writer killed mid-row
        const CsvReadResult read = read_results_csv(file);
        QCOMPARE(read.table.rows(), rows.size());
        QCOMPARE(read.warnings.size(), size_t{1});
        QVERIFY2(
            QString::fromStdString(read.warnings[0]).contains(":22: the last line is truncated"),
            read.warnings[0].c_str());
        QCOMPARE(read.valid_bytes, complete);

        CsvWriterOptions options;
        options.append = true;
        options.keep_bytes = read.valid_bytes;
        ResultRow extra = random_row(3);
        {
            CsvWriter writer(file, options);
            writer.write(extra);
        }
        const CsvReadResult again = read_results_csv(file);
        QVERIFY(again.warnings.empty());
        QCOMPARE(again.table.rows(), rows.size() + 1);
        QCOMPARE(again.table.row(rows.size()).content_key, extra.content_key);

        CsvWriterOptions seed;
        seed.form = CsvForm::Seed;
        seed.append = true;
        QVERIFY_THROWS_EXCEPTION(Error, CsvWriter(file, seed)); // header mismatch
    }

    void progressCanCancel() {
        const std::string file = path("progress.csv");
        {
            CsvWriter writer(file, {});
            for (int i = 0; i < 2000; ++i) writer.write(random_row(2));
        }
        CsvReadOptions options;
        options.chunk_bytes = 16 * 1024;
        int calls = 0;
        uint64_t last = 0;
        bool in_range = true;
        options.progress = [&](uint64_t done, uint64_t total) -> bool {
            last = done;
            in_range &= done <= total;
            return ++calls < 3;
        };
        const CsvReadResult read = read_results_csv(file, options);
        QVERIFY(read.cancelled);
        QCOMPARE(calls, 3);
        QVERIFY(read.table.rows() > 0 && read.table.rows() < 2000);
        QVERIFY(last > 0);
        QVERIFY(in_range);
    }

    // The parallel read (pieces split at record boundaries, quoted line breaks included) gives
    // the table of a serial read, and errors keep their file line numbers.
    void piecesGiveTheSerialTable() {
        const std::string file = path("pieces.csv");
        std::vector<ResultRow> rows;
        {
            CsvWriter writer(file, {});
            for (int i = 0; i < 3000; ++i) {
                ResultRow r = random_row(2 + int(rng() % 2));
                // Errors with quotes, commas and line breaks straddle any split point.
                if (i % 7 == 0) r.error = "line one, \"quoted\"\nline two\n\nline four";
                writer.write(r);
                rows.push_back(r);
            }
        }
        CsvReadOptions serial;
        serial.max_threads = 1;
        const CsvReadResult one = read_results_csv(file, serial);
        for (unsigned threads : {2u, 3u, 7u}) {
            CsvReadOptions parallel;
            parallel.piece_bytes = 50000 + rng() % 50000;
            parallel.max_threads = threads;
            const CsvReadResult many = read_results_csv(file, parallel);
            QCOMPARE(many.table.rows(), one.table.rows());
            QCOMPARE(many.valid_bytes, one.valid_bytes);
            for (size_t i = 0; i < rows.size(); ++i) {
                QVERIFY2(many.table.row(i) == one.table.row(i), qPrintable(QString::number(i)));
                QCOMPARE(many.table.row(i).error, rows[i].error);
            }
        }
        // A bad field far into the file: the message names its line, whatever the pieces.
        std::string text;
        {
            std::ifstream in(file, std::ios::binary);
            text.assign(std::istreambuf_iterator<char>(in), {});
        }
        const size_t bad_row = 2000 + rng() % 900;
        // Record starts: after each line break outside quotes; data row j starts at starts[j].
        std::vector<size_t> starts;
        bool quoted = false;
        for (size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '"') quoted = !quoted;
            if (text[i] == '\n' && !quoted) starts.push_back(i + 1);
        }
        const size_t offset = starts[bad_row];
        const size_t line = 1 + size_t(std::count(text.begin(), text.begin() + long(offset), '\n'));
        // The kernel field may be quoted (random names hold commas): skip it as the reader does.
        size_t comma = offset;
        if (text[offset] == '"') {
            for (comma = offset + 1; !(text[comma] == '"' && text[comma + 1] != '"'); ++comma)
                if (text[comma] == '"') ++comma; // an escaped ""
            ++comma;
        } else {
            comma = text.find(',', offset);
        }
        const size_t second = text.find(',', comma + 1); // problem_idx
        text.replace(comma + 1, second - comma - 1, "oops");
        const std::string broken = path("pieces_bad.csv");
        std::ofstream(broken, std::ios::binary) << text;
        for (unsigned threads : {1u, 4u}) {
            CsvReadOptions o;
            o.piece_bytes = 40000;
            o.max_threads = threads;
            try {
                read_results_csv(broken, o);
                QFAIL("no error for a bad integer");
            } catch (const Error& e) {
                const QString what = e.what();
                QVERIFY2(what.contains(QString(":%1: column \"problem_idx\"").arg(line)), e.what());
            }
        }
    }

    void contentKeyIdentity() {
        const std::string k = "kern" + std::to_string(rng()), p = "prob" + std::to_string(rng());
        QCOMPARE(content_key(k, p, "sm_90a", "t1"), content_key(k, p, "sm_90a", "t1"));
        QCOMPARE(content_key(k, p, "sm_90a", "t1").size(), size_t{16});
        QVERIFY(content_key(k, p, "sm_90a", "t1") != content_key(k, p, "sm_90a", "t2"));
        QVERIFY(content_key(k, p, "sm_90a", "t1") != content_key(k, p, "gfx950", "t1"));
        QVERIFY(content_key("ab", "c", "x", "y") != content_key("a", "bc", "x", "y"));
    }

    // Not a timing assertion (shared machine); prints the rate so regressions are visible.
    void largeFileReads() {
        const std::string file = path("large.csv");
        const size_t n = 200000;
        ResultRow base = random_row(2);
        base.status = CellStatus::Ok;
        base.latency_ms = 1.0;
        base.error.clear();
        {
            CsvWriter writer(file, {});
            for (size_t i = 0; i < n; ++i) {
                base.kernel = "kernel_" + std::to_string(i % 850);
                base.problem_idx = static_cast<int64_t>(i / 850);
                base.latency_ms = 0.01 + static_cast<double>(i % 977) * 1e-3;
                base.content_key = content_key(base.kernel, std::to_string(i), "a", "t");
                writer.write(base);
            }
        }
        const auto start = std::chrono::steady_clock::now();
        const std::clock_t cpu_start = std::clock();
        const CsvReadResult read = read_results_csv(file);
        const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        qInfo("read %zu rows (%.1f MB) in %.3f s wall, %.3f s cpu", read.table.rows(),
              static_cast<double>(read_file(file).size()) / 1e6, s, cpu);
        QCOMPARE(read.table.rows(), n);
        const auto* latency = read.table.column("latency_ms");
        QCOMPARE(latency->numbers[n - 1], 0.01 + static_cast<double>((n - 1) % 977) * 1e-3);
        QCOMPARE(read.table.column("kernel")->dictionary.size(), size_t{850});
    }
};

QTEST_APPLESS_MAIN(TestCsv)
#include "tst_csv.moc"
