#include "config/kernel_name.h"
#include "csv/csv_reader.h"
#include "tst_plots_rows.h"
#include "ui/plots/best_tflops_view.h"
#include "ui/plots/heatmap_view.h"
#include "ui/plots/latency_view.h"
#include "ui/plots/plot_data.h"
#include "ui/plots/plots_page.h"
#include "ui/plots/roofline_view.h"
#include "ui/plots/trait_groups.h"
#include "ui/plots/trait_view.h"
#include "ui/results/result_store.h"

#include <QImage>
#include <QSignalSpy>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>
#include <map>
#include <set>

using namespace gconv;
using namespace gconv::ui;
using Kind = PlotsPage::Kind;

namespace {

std::string identity(const ResultRow& r) {
    return r.problem.key() + "|" + r.variant + "|" + r.dtype + "|" + r.arch;
}
std::string identity(const PlotProblem& p) {
    return p.problem.key() + "|" + p.variant + "|" + p.dtype + "|" + p.arch;
}
bool usable(const ResultRow& r) {
    return r.status == CellStatus::Ok && has_value(r.latency_ms) && r.latency_ms > 0;
}

// The best ok row per problem identity, by a plain loop over ResultRows.
std::map<std::string, size_t> expectedBest(const ResultStore& store) {
    std::map<std::string, size_t> best;
    for (size_t i = 0; i < store.rowCount(); ++i) {
        const ResultRow r = store.row(i);
        if (!usable(r)) continue;
        auto it = best.find(identity(r));
        if (it == best.end() || r.tflops > store.row(it->second).tflops) best[identity(r)] = i;
    }
    return best;
}

std::string kernelTrait(const std::string& name, KernelTrait trait) {
    try {
        return trait_value(parse_kernel_name(name), trait);
    } catch (const std::exception&) {
        return "other";
    }
}

double sortedQuantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double h = double(v.size() - 1) * q;
    const size_t lo = size_t(std::floor(h));
    if (lo + 1 >= v.size()) return v[lo];
    return v[lo] + (h - double(lo)) * (v[lo + 1] - v[lo]);
}

QPoint pixelOf(QCustomPlot* plot, double x, double y) {
    return QPoint(int(std::lround(plot->xAxis->coordToPixel(x))),
                  int(std::lround(plot->yAxis->coordToPixel(y))));
}

} // namespace

class TestPlots : public QObject {
    Q_OBJECT

    uint64_t seed = std::random_device{}();
    test::PlotRows data{seed, 14, 9};
    QTemporaryDir dir;

    void fill(ResultStore& store, double coverage = 0.85, double failed = 0.15) {
        store.appendRows(data.rows(coverage, failed), QStringLiteral("sweep.csv"));
    }

    // A page on a store, shown at a fixed size so that pixels map to coordinates.
    std::unique_ptr<PlotsPage> shownPage(ResultStore& store) {
        auto page = std::make_unique<PlotsPage>(&store);
        page->resize(1300, 900);
        page->show();
        if (!QTest::qWaitForWindowExposed(page.get())) qWarning("page not exposed");
        page->recomputeNow();
        return page;
    }

private slots:
    void initTestCase() {
        qInfo("seed %llu", static_cast<unsigned long long>(seed));
        QVERIFY(dir.isValid());
        QCOMPARE(data.kernel_names.size(), size_t(14));
    }

    // The cluster trait groups kernels by cluster shape: along N (cn) or along K (ck), which
    // the rules never combine, so a ck kernel is not filed with the lone blocks.
    void cluster_trait_names_the_cluster_shape() {
        KernelConfig c;
        QCOMPARE(trait_value(c, KernelTrait::Cluster), std::string("cn1"));
        c.cluster_n = 2;
        QCOMPARE(trait_value(c, KernelTrait::Cluster), std::string("cn2"));
        c.cluster_n = 1, c.cluster_k = 4;
        QCOMPARE(trait_value(c, KernelTrait::Cluster), std::string("ck4"));
        QCOMPARE(std::string(to_string(KernelTrait::Cluster)), std::string("cluster"));
    }

    void bestPerProblemMatchesAPlainLoop() {
        ResultStore store;
        fill(store);
        PlotIndex index;
        index.update(store.table());
        QCOMPARE(index.rows(), store.rowCount());
        const auto best = best_per_problem(store.table(), index);
        const auto expected = expectedBest(store);

        std::set<std::string> identities;
        size_t with_best = 0;
        for (size_t p = 0; p < index.problems().size(); ++p) {
            const std::string id = identity(index.problems()[p]);
            QVERIFY2(identities.insert(id).second, id.c_str());
            auto it = expected.find(id);
            if (it == expected.end()) {
                QCOMPARE(best[p].row, int64_t(-1));
                continue;
            }
            ++with_best;
            QCOMPARE(best[p].row, int64_t(it->second));
            QCOMPARE(best[p].tflops, store.row(it->second).tflops);
            QCOMPARE(best[p].latency_ms, store.row(it->second).latency_ms);
        }
        QCOMPARE(with_best, expected.size());

        size_t ok = 0;
        for (size_t i = 0; i < store.rowCount(); ++i) {
            const ResultRow r = store.row(i);
            ok += usable(r);
            QCOMPARE(index.ok(i), usable(r));
            QCOMPARE(index.kernels()[index.kernelOf(i)].name, r.kernel);
            QCOMPARE(identity(index.problems()[index.problemOf(i)]), identity(r));
        }
        QCOMPARE(index.okRows(), ok);
        QVERIFY(ok < store.rowCount()); // some rows failed
    }

    void indexGrowsIncrementally() {
        ResultStore store;
        const auto rows = data.rows(0.9, 0.2);
        PlotIndex grown;
        for (size_t first = 0; first < rows.size(); first += 17) {
            const auto end = rows.begin() + std::ptrdiff_t(std::min(rows.size(), first + 17));
            store.appendRows(std::vector<ResultRow>(rows.begin() + std::ptrdiff_t(first), end),
                             QStringLiteral("live.csv"));
            grown.update(store.table());
        }
        PlotIndex whole;
        whole.update(store.table());
        QCOMPARE(grown.rows(), whole.rows());
        QCOMPARE(grown.okRows(), whole.okRows());
        for (size_t i = 0; i < whole.rows(); ++i) {
            QCOMPARE(identity(grown.problems()[grown.problemOf(i)]),
                     identity(whole.problems()[whole.problemOf(i)]));
            QCOMPARE(grown.kernels()[grown.kernelOf(i)].name,
                     whole.kernels()[whole.kernelOf(i)].name);
        }
    }

    void problemLabels() {
        ResultStore store;
        fill(store, 1.0, 0.0);
        PlotIndex index;
        index.update(store.table());
        std::set<std::string> labels;
        for (const auto& p : index.problems()) {
            QVERIFY2(labels.insert(p.label).second, p.label.c_str());
            const Problem& s = p.problem;
            if (!s.layer.empty()) {
                QCOMPARE(p.label, s.layer);
                continue;
            }
            const std::string expected = "N" + std::to_string(s.N) + " C" + std::to_string(s.C) +
                                         " K" + std::to_string(s.K) + " G" + std::to_string(s.G) +
                                         " " + std::to_string(s.Hi) + "x" + std::to_string(s.Wi) +
                                         " k" + std::to_string(s.Y) + " s" +
                                         std::to_string(s.stride_h);
            QCOMPARE(p.label, expected);
        }
        Problem odd;
        odd.N = 2, odd.C = odd.K = odd.G = 4, odd.Hi = 9, odd.Wi = 11, odd.Y = 3, odd.X = 1;
        odd.stride_h = 2, odd.pad_h = 0, odd.dilation_w = 2;
        QCOMPARE(compact_problem_label(odd), std::string("N2 C4 K4 G4 9x11 k3x1 s2x1 p0 d1x2"));
    }

    void heatmapMatchesAnIndependentComputation() {
        ResultStore store;
        // Many repeated cells: the better of two measurements counts.
        store.appendRows(data.rows(0.7, 0.2, 0.4), QStringLiteral("sweep.csv"));
        PlotIndex index;
        index.update(store.table());
        const auto best = best_per_problem(store.table(), index);
        // Best TFLOPS per problem and per (kernel, problem), from ResultRows.
        std::map<std::string, double> top;
        std::map<std::pair<std::string, std::string>, double> cell;
        for (size_t i = 0; i < store.rowCount(); ++i) {
            const ResultRow r = store.row(i);
            if (!usable(r)) continue;
            top[identity(r)] = std::max(top[identity(r)], r.tflops);
            double& c = cell[{r.kernel, identity(r)}];
            c = std::max(c, r.tflops);
        }
        std::map<std::string, double> score;
        for (const auto& [key, tflops] : cell) score[key.first] += tflops / top[key.second];
        std::vector<std::pair<double, std::string>> ranked;
        for (const auto& [kernel, s] : score) ranked.push_back({-s / double(top.size()), kernel});
        std::sort(ranked.begin(), ranked.end());

        // Capped, and uncapped (every kernel that ran ok somewhere is a row).
        for (const size_t cap : {size_t(5), size_t(1000)}) {
            const EfficiencyMatrix m = efficiency_matrix(store.table(), index, best, cap);
            QCOMPARE(m.kernelCount(), std::min(cap, ranked.size()));
            QCOMPARE(m.problems, index.problems().size());
            for (size_t k = 0; k < m.kernelCount(); ++k) {
                const std::string& name = index.kernels()[m.kernels[k]].name;
                QCOMPARE(name, ranked[k].second);
                QVERIFY(std::abs(m.scores[k] + ranked[k].first) < 1e-12);
                for (size_t p = 0; p < m.problems; ++p) {
                    const std::string id = identity(index.problems()[p]);
                    auto it = cell.find({name, id});
                    if (it == cell.end()) {
                        QVERIFY(std::isnan(m.at(k, p)));
                        QCOMPARE(m.rowAt(k, p), int64_t(-1));
                    } else {
                        QCOMPARE(m.at(k, p), it->second / top[id]);
                        const ResultRow r = store.row(size_t(m.rowAt(k, p)));
                        QCOMPARE(r.kernel, name);
                        QCOMPARE(r.tflops, it->second);
                    }
                }
            }
        }
    }

    void traitGroupsMatchParsedNames() {
        ResultStore store;
        fill(store);
        PlotIndex index;
        index.update(store.table());
        const auto best = best_per_problem(store.table(), index);
        std::map<std::string, double> top;
        for (size_t i = 0; i < store.rowCount(); ++i)
            if (const ResultRow r = store.row(i); usable(r))
                top[identity(r)] = std::max(top[identity(r)], r.tflops);

        for (KernelTrait trait : kernel_traits())
            for (PlotMetric metric : plot_metrics()) {
                std::map<std::string, std::vector<double>> expected;
                for (size_t i = 0; i < store.rowCount(); ++i) {
                    const ResultRow r = store.row(i);
                    if (!usable(r)) continue;
                    const double v = metric == PlotMetric::Tflops ? r.tflops
                                     : metric == PlotMetric::LatencyMs
                                         ? r.latency_ms
                                         : r.tflops / top[identity(r)];
                    expected[kernelTrait(r.kernel, trait)].push_back(v);
                }
                const auto groups = trait_groups(store.table(), index, best, trait, metric);
                QCOMPARE(groups.size(), expected.size());
                QCOMPARE(groups.back().value, std::string("other")); // the foreign kernel ran
                for (size_t g = 0; g < groups.size(); ++g) {
                    const auto& group = groups[g];
                    if (g > 0 && g + 1 < groups.size())
                        QVERIFY(natural_less(groups[g - 1].value, group.value));
                    auto it = expected.find(group.value);
                    QVERIFY2(it != expected.end(), group.value.c_str());
                    QCOMPARE(group.values.size(), it->second.size());
                    QCOMPARE(group.rows.size(), it->second.size());
                    QCOMPARE(group.values, it->second); // table order
                    QCOMPARE(group.box.median, sortedQuantile(it->second, 0.5));
                    QCOMPARE(group.box.lowerQuartile, sortedQuantile(it->second, 0.25));
                    QCOMPARE(group.box.upperQuartile, sortedQuantile(it->second, 0.75));
                }
            }
    }

    void boxStatsAndNaturalOrder() {
        std::vector<double> values;
        for (int i = 0; i < 301; ++i) values.push_back(data.real(1, 50));
        values.push_back(400.0); // an outlier beyond the whisker
        const std::vector<double> copy = values;
        const BoxStats b = box_stats(values);
        QCOMPARE(b.median, sortedQuantile(copy, 0.5));
        QCOMPARE(b.maximum, 400.0);
        QVERIFY(b.upperWhisker < 400.0);
        QCOMPARE(b.upperWhisker, *std::max_element(copy.begin(), copy.end() - 1));
        QCOMPARE(b.minimum, *std::min_element(copy.begin(), copy.end()));
        QVERIFY(natural_less("64x128x32", "128x64x32"));
        QVERIFY(natural_less("gm2", "gm16"));
        QVERIFY(!natural_less("gm16", "gm2"));
        QVERIFY(natural_less("compv3", "compv4"));
    }

    void plotsDrawTheirData() {
        ResultStore store;
        fill(store);
        auto page = shownPage(store);
        const auto expected = expectedBest(store);

        page->setKind(Kind::BestTflops);
        QCOMPARE(page->bestTflopsView()->bars()->dataCount(), int(expected.size()));
        std::multiset<double> bars, tops;
        for (auto it = page->bestTflopsView()->bars()->data()->constBegin();
             it != page->bestTflopsView()->bars()->data()->constEnd(); ++it)
            bars.insert(it->value);
        for (const auto& [id, row] : expected) tops.insert(store.row(row).tflops);
        QCOMPARE(bars, tops);

        page->setKind(Kind::Latency);
        LatencyView* latency = page->latencyView();
        for (uint32_t p = 0; p < page->context().index.problems().size(); ++p) {
            latency->setProblem(p);
            size_t ok = 0;
            double fastest = 1e300;
            for (size_t i = 0; i < store.rowCount(); ++i) {
                const ResultRow r = store.row(i);
                if (usable(r) && identity(r) == identity(page->context().index.problems()[p]))
                    ++ok, fastest = std::min(fastest, r.latency_ms);
            }
            QCOMPARE(latency->points()->dataCount(), int(ok));
            if (ok == 0) continue;
            QCOMPARE(latency->bestPoint()->dataCount(), 1);
            QCOMPARE(latency->bestPoint()->data()->begin()->value, fastest);
            double previous = 0;
            for (auto it = latency->points()->data()->constBegin();
                 it != latency->points()->data()->constEnd(); ++it) {
                QVERIFY(it->value >= previous);
                previous = it->value;
            }
            const bool log = latency->series().back().value / fastest > LatencyView::k_log_span;
            QCOMPARE(page->plot(Kind::Latency)->yAxis->scaleType() == QCPAxis::stLogarithmic, log);
        }

        page->setKind(Kind::Heatmap);
        page->heatmapView()->setMaxKernels(6);
        QCOMPARE(page->heatmapView()->matrix().kernelCount(), size_t(6));
        QCPColorMapData* cells = page->heatmapView()->colorMap()->data();
        QCOMPARE(cells->keySize(), int(page->context().index.problems().size()));
        QCOMPARE(cells->valueSize(), 6);
        for (int k = 0; k < 6; ++k)
            for (int p = 0; p < cells->keySize(); ++p) {
                const double e = page->heatmapView()->matrix().at(size_t(k), size_t(p));
                QVERIFY(std::isnan(e) ? std::isnan(cells->cell(p, k)) : cells->cell(p, k) == e);
            }

        page->setKind(Kind::Roofline);
        RooflineView* roof = page->rooflineView();
        QCOMPARE(roof->bestPoints()->dataCount(), int(expected.size()));
        QCOMPARE(roof->computeTflops(), RooflineView::k_default_compute_tflops);
        QCOMPARE(roof->bandwidthGbps(), RooflineView::k_default_bandwidth_gbps);
        roof->setAllRowsShown(true);
        QCOMPARE(roof->allPoints()->dataCount(), int(page->context().index.okRows()));
        roof->setCeilings(1000.0, 200.0);
        QCOMPARE(roof->attainable(0.05), 0.05);
        QCOMPARE(roof->attainable(1e4), 200.0);
        QVERIFY(roof->ceilings()->dataCount() >= 2);
        for (auto it = roof->ceilings()->data()->constBegin();
             it != roof->ceilings()->data()->constEnd(); ++it)
            QVERIFY(std::abs(it->value - roof->attainable(it->key)) < 1e-9 * it->value);
        QCOMPARE(page->plot(Kind::Roofline)->xAxis->scaleType(), QCPAxis::stLogarithmic);

        page->setKind(Kind::Traits);
        TraitView* traits = page->traitView();
        traits->setTrait(KernelTrait::Tile);
        traits->setMetric(PlotMetric::Efficiency);
        QCOMPARE(traits->boxes()->dataCount(), int(traits->groups().size()));
        size_t rows = 0;
        for (const auto& g : traits->groups()) rows += g.rows.size();
        QCOMPARE(rows, page->context().index.okRows());
        QCOMPARE(traits->points()->dataCount(), int(rows));
        auto ticker = page->plot(Kind::Traits)->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().size(), int(traits->groups().size()));
        QVERIFY(ticker->ticks().first().contains(
            QStringLiteral("(n=%1)").arg(traits->groups().front().rows.size())));
    }

    void roofFollowsFp32() {
        ResultStore store;
        auto rows = data.rows(0.8, 0.1);
        for (auto& r : rows) r.dtype = "fp32";
        store.appendRows(rows, QStringLiteral("fp32.csv"));
        auto page = shownPage(store);
        page->setKind(Kind::Roofline);
        QCOMPARE(page->rooflineView()->computeTflops(), RooflineView::k_fp32_compute_tflops);
        // fp32 moves 4 bytes per element: the intensity is half of bf16's.
        const PlotProblem& p = page->context().index.problems().front();
        QCOMPARE(p.intensity(), p.problem.flops() / p.problem.min_bytes(DataType::FP32));
    }

    void currentRowIsHighlighted() {
        ResultStore store;
        fill(store);
        auto page = shownPage(store);
        const auto expected = expectedBest(store);
        const size_t best_row = expected.begin()->second;
        size_t failed_row = 0;
        while (usable(store.row(failed_row))) ++failed_row;

        page->rooflineView()->setAllRowsShown(false);
        for (int k = 0; k < PlotsPage::k_kinds; ++k) {
            page->setKind(Kind(k));
            store.setCurrentRow(qint64(best_row));
            QCOMPARE(page->highlightedRow(), qint64(best_row));
            const auto at = page->currentView()->coordsOf(qint64(best_row));
            QVERIFY(at);
            // The highlight is drawn at the row's place.
            bool drawn = false;
            QCustomPlot* plot = page->currentPlot();
            for (int g = 0; g < plot->graphCount(); ++g)
                if (plot->graph(g)->name() == QStringLiteral("current row") &&
                    plot->graph(g)->dataCount() == 1) {
                    drawn = plot->graph(g)->data()->begin()->key == at->x() &&
                            plot->graph(g)->data()->begin()->value == at->y();
                }
            if (Kind(k) == Kind::BestTflops) {
                auto* bar = qobject_cast<QCPBars*>(plot->plottable(1));
                QVERIFY(bar && bar->dataCount() == 1);
                drawn = bar->data()->begin()->value == store.row(best_row).tflops;
            }
            if (Kind(k) == Kind::Heatmap)
                drawn = plot->itemCount() == 1 && plot->item(0)->visible();
            QVERIFY2(drawn, qPrintable(page->currentView()->title()));

            store.setCurrentRow(qint64(failed_row));
            if (Kind(k) != Kind::Heatmap) QCOMPARE(page->highlightedRow(), qint64(-1));
            store.setCurrentRow(-1);
            QCOMPARE(page->highlightedRow(), qint64(-1));
        }

        // The latency plot follows the current row to its problem.
        page->setKind(Kind::Latency);
        for (const auto& [id, row] : expected) {
            store.setCurrentRow(qint64(row));
            QCOMPARE(page->latencyView()->problem(), page->context().index.problemOf(row));
            QCOMPARE(page->highlightedRow(), qint64(row));
            QCOMPARE(page->latencyView()->series().front().row, uint32_t(row));
        }
    }

    void clickSelectsAndTooltipShowsTheRow() {
        ResultStore store;
        fill(store);
        auto page = shownPage(store);
        auto click = [&](const QPoint& pixel) {
            store.setCurrentRow(-1);
            QTest::mouseClick(page->currentPlot(), Qt::LeftButton, {}, pixel);
            return store.currentRow();
        };

        page->setKind(Kind::BestTflops);
        const auto& bar_rows = page->bestTflopsView()->barRows();
        QVERIFY(!bar_rows.empty());
        for (size_t i = 0; i < bar_rows.size(); ++i) {
            const double v = store.row(size_t(bar_rows[i])).tflops;
            QCOMPARE(click(pixelOf(page->currentPlot(), double(i), v * 0.5)), bar_rows[i]);
        }
        // Between two bars: nothing.
        QCOMPARE(click(pixelOf(page->currentPlot(), 0.5, 0.0) - QPoint(0, 2)), qint64(-1));

        page->setKind(Kind::Latency);
        const auto series = page->latencyView()->series();
        for (size_t i = 0; i < series.size(); ++i)
            QCOMPARE(click(pixelOf(page->currentPlot(), double(i + 1), series[i].value)),
                     qint64(series[i].row));

        page->setKind(Kind::Heatmap);
        const EfficiencyMatrix& m = page->heatmapView()->matrix();
        for (size_t k = 0; k < m.kernelCount(); ++k)
            for (size_t p = 0; p < m.problems; ++p)
                QCOMPARE(click(pixelOf(page->currentPlot(), double(p), double(k))), m.rowAt(k, p));

        page->setKind(Kind::Roofline);
        RooflineView* roof = page->rooflineView();
        for (auto it = roof->bestPoints()->data()->constBegin();
             it != roof->bestPoints()->data()->constEnd(); ++it) {
            const qint64 row = click(pixelOf(page->currentPlot(), it->key, it->value));
            QVERIFY(row >= 0);
            // Points of similar problems may overlap: the one picked lies at that place.
            const auto at = roof->coordsOf(row);
            QVERIFY(at);
            const QPoint a = pixelOf(page->currentPlot(), at->x(), at->y());
            const QPoint b = pixelOf(page->currentPlot(), it->key, it->value);
            QVERIFY((a - b).manhattanLength() <= 2 * int(PlotView::k_hit_pixels));
        }

        page->setKind(Kind::Traits);
        TraitView* traits = page->traitView();
        traits->setTrait(KernelTrait::Pipeline);
        int checked = 0;
        for (auto it = traits->points()->data()->constBegin();
             it != traits->points()->data()->constEnd() && checked < 40; ++it, ++checked) {
            const qint64 row = click(pixelOf(page->currentPlot(), it->key, it->value));
            QVERIFY(row >= 0);
            const auto at = traits->coordsOf(row);
            QVERIFY(at);
            const QPoint a = pixelOf(page->currentPlot(), at->x(), at->y());
            const QPoint b = pixelOf(page->currentPlot(), it->key, it->value);
            QVERIFY((a - b).manhattanLength() <= 2 * int(PlotView::k_hit_pixels));
        }

        // A drag pans instead of selecting.
        page->setKind(Kind::BestTflops);
        store.setCurrentRow(-1);
        const QPoint on_bar =
            pixelOf(page->currentPlot(), 0.0, store.row(size_t(bar_rows[0])).tflops / 2);
        QTest::mousePress(page->currentPlot(), Qt::LeftButton, {}, on_bar);
        QTest::mouseMove(page->currentPlot(), on_bar + QPoint(40, 0));
        QTest::mouseRelease(page->currentPlot(), Qt::LeftButton, {}, on_bar + QPoint(40, 0));
        QCOMPARE(store.currentRow(), qint64(-1));
        page->currentView()->restoreHome();

        // The tooltip names the row.
        const ResultRow r = store.row(size_t(bar_rows[0]));
        const QString tip = page->toolTipAt(on_bar);
        QVERIFY2(tip.contains(QString::fromStdString(r.kernel)), qPrintable(tip));
        QVERIFY(tip.contains(QStringLiteral("status ok")));
        QVERIFY(tip.contains(QString::number(r.latency_ms, 'g', 4)));
        QVERIFY(tip.contains(QString::number(r.tflops, 'f', 1)));
        const auto& problem =
            page->context().index.problems()[page->context().index.problemOf(size_t(bar_rows[0]))];
        QVERIFY(tip.contains(QString::fromStdString(problem.label)));
        QVERIFY(page->toolTipAt(QPoint(2, 2)).isEmpty());
    }

    void liveRowsArriveAfterTheThrottle() {
        ResultStore store;
        auto page = shownPage(store);
        QSignalSpy recomputed(page.get(), &PlotsPage::recomputed);
        QCOMPARE(page->bestTflopsView()->bars()->dataCount(), 0);

        // A sweep streams rows in small batches: one recompute for the burst, not one per row.
        const auto rows = data.rows(0.9, 0.1);
        QElapsedTimer clock;
        clock.start();
        for (size_t i = 0; i < 40 && i < rows.size(); ++i)
            store.appendRows({rows[i]}, QStringLiteral("live.csv"));
        QVERIFY(page->recomputePending());
        if (clock.elapsed() < PlotsPage::k_throttle_ms / 2)
            QCOMPARE(page->bestTflopsView()->bars()->dataCount(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(!recomputed.isEmpty(), 5000);
        QVERIFY(clock.elapsed() >= PlotsPage::k_throttle_ms - 50);
        QVERIFY(recomputed.size() <= 2);
        QVERIFY(!page->recomputePending());
        PlotIndex index;
        index.update(store.table());
        const auto best = best_per_problem(store.table(), index);
        int problems = 0;
        for (const auto& b : best) problems += b.row >= 0;
        QCOMPARE(page->bestTflopsView()->bars()->dataCount(), problems);

        // The rest arrives: the bars follow.
        store.appendRows(std::vector<ResultRow>(rows.begin() + 40, rows.end()),
                         QStringLiteral("live.csv"));
        QTRY_COMPARE_WITH_TIMEOUT(page->context().index.rows(), store.rowCount(), 5000);
        QCOMPARE(page->bestTflopsView()->bars()->dataCount(), int(expectedBest(store).size()));

        // Hidden pages wait until shown.
        page->hide();
        const size_t before = page->context().index.rows();
        store.appendRows({data.row(0, 0, false)}, QStringLiteral("live.csv"));
        QTest::qWait(PlotsPage::k_throttle_ms + 100);
        QCOMPARE(page->context().index.rows(), before);
        page->show();
        QCOMPARE(page->context().index.rows(), before + 1);

        // A reset (another file) drops the old rows at once and plots the new ones.
        store.clear();
        QCOMPARE(page->bestTflopsView()->bars()->dataCount(), 0);
        fill(store);
        QTRY_COMPARE_WITH_TIMEOUT(page->context().index.rows(), store.rowCount(), 5000);
        QCOMPARE(page->bestTflopsView()->bars()->dataCount(), int(expectedBest(store).size()));
    }

    void exportsWriteFiles() {
        ResultStore store;
        fill(store);
        auto page = shownPage(store);
        for (int k = 0; k < PlotsPage::k_kinds; ++k) {
            page->setKind(Kind(k));
            const QString png = dir.filePath(QStringLiteral("plot%1.png").arg(k));
            const QString pdf = dir.filePath(QStringLiteral("plot%1.pdf").arg(k));
            QVERIFY(page->exportPng(png));
            QVERIFY(page->exportPdf(pdf));
            const QImage image(png);
            QVERIFY(!image.isNull());
            QCOMPARE(image.size(), page->currentPlot()->size());
            QFile file(pdf);
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY(file.size() > 1000);
            QVERIFY(file.read(5) == "%PDF-");
        }
        QVERIFY(!page->exportPng(dir.filePath(QStringLiteral("missing/dir/plot.png"))));
    }
};

QTEST_MAIN(TestPlots)
#include "tst_plots.moc"
