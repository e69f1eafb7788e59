// Times the explorer's Results page on a generated 1,000,000-row results CSV: the reader, the
// page opening it (until the view shows rows), a filter change, a text search, a sort and the
// best-per-problem view. Usage: gconv-ui-load-bench [rows] [csv path]   (offscreen works)
#include "csv/csv_reader.h"
#include "csv/csv_writer.h"
#include "ui/results/result_store.h"
#include "ui/results/results_page.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QHeaderView>
#include <QLineEdit>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

using namespace gconv;

namespace {

// ~400 kernel names over ~50 problems, every column of the full form filled as a sweep would.
void generate(const std::string& path, size_t rows) {
    std::mt19937_64 rng(20260131);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
    const char* pipelines[] = {"compv3", "compv4", "compv5", "mem"};
    const char* schedulers[] = {"intrawave", "interwave"};
    std::vector<std::string> kernels;
    for (int i = 0; i < 400; ++i)
        kernels.push_back("grouped_conv_fwd_bf16_2d_" + std::to_string(64 << pick(3)) + "x" +
                          std::to_string(64 << pick(3)) + "x" + std::to_string(32 << pick(2)) +
                          "_" + pipelines[i % 4] + "_" + schedulers[pick(2)] + "_" +
                          std::to_string(i));
    std::vector<Problem> problems;
    for (int i = 0; i < 50; ++i) {
        Problem p;
        p.G = int64_t{1} << pick(6);
        p.C = p.G * (16 << pick(3));
        p.K = p.G * (16 << pick(3));
        p.N = 1 << pick(6);
        p.Hi = p.Wi = 7 << pick(5);
        p.Y = p.X = 1 + 2 * pick(2);
        p.pad_h = p.pad_w = p.Y / 2;
        problems.push_back(p);
    }
    CsvWriter writer(path, CsvWriterOptions{});
    ResultRow r;
    r.variant = "forward";
    r.dtype = "bf16";
    r.arch = "gfx942";
    r.device = "AMD Instinct MI300X";
    r.toolchain = "rocm 6.2.4 hiprtc";
    r.set = "resnext50";
    r.warmup = 5;
    r.repeat = 20;
    r.timestamp = "2026-01-31T12:34:56.789Z";
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (size_t i = 0; i < rows; ++i) {
        const int pi = static_cast<int>(i % problems.size());
        r.kernel = kernels[(i / problems.size()) % kernels.size()];
        r.problem = problems[pi];
        r.problem_idx = pi;
        r.problem_key = r.problem.key();
        r.problem.layer = "resnext50.layer" + std::to_string(pi % 4 + 1) + ".conv2";
        r.content_key = std::to_string(rng()) + std::to_string(rng());
        const double u = unit(rng);
        r.status = u < 0.85   ? CellStatus::Ok
                   : u < 0.88 ? CellStatus::Fail
                   : u < 0.95 ? CellStatus::Unsupported
                   : u < 0.97 ? CellStatus::CompileError
                              : CellStatus::Timeout;
        const bool ran = r.status == CellStatus::Ok || r.status == CellStatus::Fail;
        r.latency_ms = ran ? 0.01 + 2.0 * unit(rng) : k_no_value;
        r.latency_median_ms = ran ? r.latency_ms * (1 + 0.01 * unit(rng)) : k_no_value;
        r.tflops = ran ? r.problem.flops() / (r.latency_ms * 1e9) : 0.0;
        r.gbps = ran ? 100 + 3000 * unit(rng) : k_no_value;
        r.cv = ran ? 0.05 * unit(rng) : k_no_value;
        r.verified = ran ? std::optional<bool>(r.status == CellStatus::Ok) : std::nullopt;
        r.max_rel_err = ran ? 1e-3 * unit(rng) : k_no_value;
        r.non_zero = ran;
        r.baseline_ms = k_no_value;
        r.speedup = k_no_value;
        r.error = r.status == CellStatus::Unsupported    ? "tile does not divide the problem"
                  : r.status == CellStatus::CompileError ? "hiprtc: error: no matching function"
                  : r.status == CellStatus::Timeout      ? "timeout after 30 s"
                                                         : "";
        writer.write(r);
    }
    writer.close();
}

double ms(QElapsedTimer& t) {
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

// Lets the view lay out and paint what changed, so a timing includes showing the result.
void settle(QTableView* view) {
    QApplication::processEvents();
    view->viewport()->repaint();
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const std::string first = argc > 1 ? argv[1] : "";
    if (first == "--help" || first == "-h") {
        std::printf("usage: gconv-ui-load-bench [ROWS (default 1000000)] [CSV path to write]\n"
                    "Generates a results CSV, then times reading it, opening it in the Results\n"
                    "page, filter changes, text search, sorting and the best-per-problem view.\n");
        return 0;
    }
    size_t rows = 1000000;
    if (!first.empty()) {
        char* end = nullptr;
        rows = std::strtoull(first.c_str(), &end, 10);
        if (!end || *end || rows == 0) {
            std::fprintf(stderr, "gconv-ui-load-bench: ROWS must be a positive integer, got '%s'\n",
                         first.c_str());
            return 2;
        }
    }
    QTemporaryDir dir;
    const std::string path = argc > 2 ? argv[2] : dir.filePath("results.csv").toStdString();

    struct Line {
        const char* what;
        double ms;
        QString note;
    };
    std::vector<Line> lines;
    QElapsedTimer t;
    if (argc <= 2 || !std::filesystem::exists(path)) {
        t.start();
        generate(path, rows);
        lines.push_back({"generate CSV", ms(t),
                         QString("%1 MB").arg(std::filesystem::file_size(path) / 1e6, 0, 'f', 0)});
    }

    t.start();
    const auto read = read_results_csv(path);
    lines.push_back({"read_results_csv", ms(t), QString("%1 rows").arg(read.table.rows())});

    ui::ResultStore store;
    ui::ResultsPage page(&store);
    page.resize(1400, 800);
    page.show();
    QApplication::processEvents();
    QEventLoop wait;
    QObject::connect(&page, &ui::ResultsPage::fileOpened, &wait, &QEventLoop::quit);
    QObject::connect(&page, &ui::ResultsPage::fileFailed, [&](const QString&, const QString& e) {
        std::fprintf(stderr, "%s\n", e.toUtf8().constData());
        std::exit(1);
    });
    t.start();
    page.openFiles({QString::fromStdString(path)});
    wait.exec();
    settle(page.view());
    lines.push_back({"open in ResultsPage", ms(t), page.rowCountText()});

    auto timed = [&](const char* what, auto&& change) {
        QElapsedTimer timer;
        timer.start();
        change();
        settle(page.view());
        lines.push_back({what, ms(timer), page.rowCountText()});
    };
    timed("filter `tflops > 100 and G == 32`", [&] {
        page.filterEdit()->setText("tflops > 100 and G == 32");
        page.applyFilterNow();
    });
    timed("filter cleared", [&] {
        page.filterEdit()->clear();
        page.applyFilterNow();
    });
    timed("text filter `compv4`", [&] { page.proxy()->setTextFilter("compv4"); });
    timed("text filter cleared", [&] { page.proxy()->setTextFilter(""); });
    const int tflops = page.model()->columnOf("tflops");
    timed("sort by tflops (descending)",
          [&] { page.view()->sortByColumn(tflops, Qt::DescendingOrder); });
    timed("filter while sorted", [&] {
        page.filterEdit()->setText("tflops > 100 and G == 32");
        page.applyFilterNow();
    });
    timed("sort by kernel",
          [&] { page.view()->sortByColumn(page.model()->columnOf("kernel"), Qt::AscendingOrder); });
    timed("best per problem on", [&] { page.bestButton()->setChecked(true); });
    timed("best per problem off", [&] { page.bestButton()->setChecked(false); });

    std::printf("gconv-ui-load-bench: %zu rows, %s\n", rows, path.c_str());
    std::printf("%-36s %10s  %s\n", "step", "ms", "");
    for (const auto& l : lines)
        std::printf("%-36s %10.1f  %s\n", l.what, l.ms, l.note.toUtf8().constData());
    return 0;
}
