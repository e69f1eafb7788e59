// The Plots page over 1,000,000 rows: how long one recompute of every kind takes (the target
// is well under 1 s for all of them together). Prints the figures; asserts only that the
// plots hold what the rows say, since the machine is shared and timings vary.
#include "csv/csv_reader.h"
#include "tst_plots_rows.h"
#include "ui/plots/best_tflops_view.h"
#include "ui/plots/heatmap_view.h"
#include "ui/plots/latency_view.h"
#include "ui/plots/plots_page.h"
#include "ui/plots/roofline_view.h"
#include "ui/plots/trait_view.h"
#include "ui/results/result_store.h"

#include <QElapsedTimer>
#include <QtTest>

#include <qcustomplot.h>
#include <set>

using namespace gconv;
using namespace gconv::ui;
using Kind = PlotsPage::Kind;

class TestPlotsBench : public QObject {
    Q_OBJECT

    static constexpr size_t k_rows = 1000000;
    static constexpr size_t k_kernels = 2000;
    static constexpr size_t k_max_problems = 2000;

    template <typename F> double millis(F&& f) {
        QElapsedTimer t;
        t.start();
        f();
        return double(t.nsecsElapsed()) / 1e6;
    }

private slots:
    void millionRows() {
        test::PlotRows data(std::random_device{}(), k_kernels, k_max_problems);
        QVERIFY(data.kernel_names.size() > 500);
        const size_t kernels = data.kernel_names.size();
        const size_t k_problems = (k_rows + kernels - 1) / kernels;

        // Built in chunks: a million ResultRows at once would take gigabytes.
        CsvReadResult read;
        const double build_ms = millis([&] {
            for (size_t p = 0; p < k_problems; p += 10) {
                std::vector<ResultRow> rows;
                for (size_t q = p; q < p + 10 && q < k_problems; ++q)
                    for (size_t k = 0; k < kernels; ++k)
                        rows.push_back(data.row(k, q, data.real(0, 1) < 0.05));
                read.table.append(make_result_table(rows));
            }
        });
        const size_t total = read.table.rows();
        QVERIFY(total >= k_rows);
        ResultStore store;

        PlotsPage page(&store);
        page.resize(1400, 900);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));

        // What a reset costs: the full index, the bests and the current (first) plot.
        store.addTable(QStringLiteral("bench.csv"), std::move(read));
        QVERIFY(page.recomputePending());
        const double recompute_ms = millis([&] { page.recomputeNow(); });
        PlotIndex index;
        const double index_ms = millis([&] { index.update(store.table()); });
        std::vector<ProblemBest> best;
        const double best_ms = millis([&] { best = best_per_problem(store.table(), index); });
        QCOMPARE(page.context().index.rows(), total);

        struct Figure {
            std::string what;
            double ms;
        };
        std::vector<Figure> figures{{"index (1 pass, all rows)", index_ms},
                                    {"best per problem", best_ms}};
        double kinds_ms = 0;
        for (int k = 0; k < PlotsPage::k_kinds; ++k) {
            page.setKind(Kind(k));
            const double ms = millis([&] { page.currentView()->rebuild(); });
            kinds_ms += ms;
            figures.push_back({page.currentView()->title().toStdString(), ms});
        }
        const double all_rows_ms = millis([&] {
            page.setKind(Kind::Roofline);
            page.rooflineView()->setAllRowsShown(true);
        });
        const int drawn = page.rooflineView()->allPoints()->dataCount();
        QVERIFY(drawn <= int(RooflineView::k_max_points) + int(k_problems));
        QVERIFY(drawn >= int(RooflineView::k_max_points) / 2);
        const double hit_ms = millis([&] {
                                  for (int i = 0; i < 100; ++i)
                                      page.rowAt(QPoint(100 + i * 10, 300));
                              }) /
                              100.0;
        page.traitView()->setMetric(PlotMetric::Efficiency);
        page.setKind(Kind::Traits);
        const double traits_eff_ms = millis([&] { page.currentView()->rebuild(); });

        // A sweep appends a batch: index the new rows only, then replot.
        std::vector<ResultRow> batch;
        for (size_t k = 0; k < 1000; ++k) batch.push_back(data.row(k % kernels, 0, false));
        store.appendRows(batch, QStringLiteral("bench.csv"));
        page.setKind(Kind::BestTflops);
        const double append_ms = millis([&] { page.recomputeNow(); });

        qInfo("rows: %zu (%zu kernels x %zu problems, built in %.0f ms)", total, kernels,
              k_problems, build_ms);
        for (const auto& f : figures) qInfo("  %-44s %8.1f ms", f.what.c_str(), f.ms);
        qInfo("  every kind (index + best + 5 rebuilds)      %8.1f ms",
              index_ms + best_ms + kinds_ms);
        qInfo("  recomputeNow() after a reset                %8.1f ms", recompute_ms);
        qInfo("  roofline, all %zu ok rows (%d drawn)  %8.1f ms", page.context().index.okRows(),
              drawn, all_rows_ms);
        qInfo("  per-trait, efficiency metric                %8.1f ms", traits_eff_ms);
        qInfo("  hit test on the roofline (all rows)         %8.3f ms", hit_ms);
        qInfo("  recompute after appending 1000 live rows    %8.1f ms", append_ms);

        QCOMPARE(page.context().index.rows(), store.rowCount());
        // One bar per distinct shape: the index keys problems by their sizes (layer excluded),
        // and two of the random problems can draw the same shape.
        std::set<std::string> shapes;
        for (size_t q = 0; q < k_problems; ++q) shapes.insert(data.problems[q].key());
        QCOMPARE(page.bestTflopsView()->bars()->dataCount(), int(shapes.size()));
        QCOMPARE(page.heatmapView()->matrix().kernelCount(),
                 size_t(HeatmapView::k_default_kernels));
        QVERIFY(page.context().index.okRows() < store.rowCount());
    }
};

QTEST_MAIN(TestPlotsBench)
#include "tst_plots_bench.moc"
