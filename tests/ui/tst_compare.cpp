#include "csv/csv_writer.h"
#include "tst_results_rows.h"
#include "ui/compare/compare_matching.h"
#include "ui/compare/compare_page.h"

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>
#include <map>

using namespace gconv;
using namespace gconv::ui;

class TestCompare : public QObject {
    Q_OBJECT

    test::RandomRows random{std::random_device{}()};
    QTemporaryDir dir;

    // A and B share most cells; B's latencies are A's scaled by a random factor; each side
    // also has cells of its own, and B repeats a few cells (the first one counts).
    void makeTables(std::vector<ResultRow>& a, std::vector<ResultRow>& b) {
        std::map<std::string, bool> seen;
        for (const auto& r : random.rows(400)) {
            const std::string key = r.kernel + r.problem.key() + r.variant + r.dtype;
            if (!seen.emplace(key, true).second) continue;
            const int where = int(random.rng()() % 10);
            if (where < 7) {
                a.push_back(r);
                ResultRow other = r;
                if (has_value(other.latency_ms)) other.latency_ms *= random.real(0.5, 2.0);
                if (random.rng()() % 8 == 0) other.status = CellStatus::Timeout;
                b.push_back(other);
            } else if (where < 9) {
                a.push_back(r);
            } else {
                b.push_back(r);
            }
        }
        for (int i = 0; i < 5; ++i) {
            ResultRow dup = b[random.rng()() % b.size()];
            dup.latency_ms = 1000.0;
            b.push_back(dup);
        }
    }

    static std::string key(const ResultRow& r) {
        return r.kernel + "|" + r.problem.key() + "|" + r.variant + "|" + r.dtype;
    }

    void check(const CompareResult& got, const std::vector<ResultRow>& a,
               const std::vector<ResultRow>& b) {
        std::map<std::string, ResultRow> inB;
        for (const auto& r : b) inB.emplace(key(r), r);
        std::map<std::string, bool> inA;
        size_t matched = 0, onlyA = 0, withSpeedup = 0;
        double logSum = 0;
        std::map<std::string, double> speedups;
        for (const auto& r : a) {
            inA[key(r)] = true;
            auto it = inB.find(key(r));
            if (it == inB.end()) {
                ++onlyA;
                continue;
            }
            ++matched;
            const ResultRow& o = it->second;
            if (r.status == CellStatus::Ok && o.status == CellStatus::Ok &&
                !std::isnan(r.latency_ms) && !std::isnan(o.latency_ms)) {
                const double s = r.latency_ms / o.latency_ms;
                speedups[key(r)] = s;
                logSum += std::log(s);
                ++withSpeedup;
            }
        }
        size_t onlyB = 0;
        for (const auto& [k, r] : inB) onlyB += inA.count(k) ? 0 : 1;
        QCOMPARE(got.matched, matched);
        QCOMPARE(got.onlyA, onlyA);
        QCOMPARE(got.onlyB, onlyB);
        QCOMPARE(got.withSpeedup, withSpeedup);
        QVERIFY(withSpeedup > 10);
        QVERIFY(std::abs(got.geomeanSpeedup - std::exp(logSum / double(withSpeedup))) < 1e-9);
        size_t checked = 0;
        for (const auto& c : got.cells) {
            const auto it =
                speedups.find(c.kernel + "|" + c.problem + "|" + c.variant + "|" + c.dtype);
            if (it == speedups.end()) {
                QVERIFY(std::isnan(c.speedup));
                continue;
            }
            QVERIFY(std::abs(c.speedup - it->second) < 1e-9 * it->second);
            ++checked;
        }
        QCOMPARE(checked, withSpeedup);
    }

private slots:
    void matchesAgainstAnIndependentComputation() {
        std::vector<ResultRow> a, b;
        makeTables(a, b);
        check(compare_results(make_result_table(a), make_result_table(b)), a, b);
    }

    void pageComparesFiles() {
        std::vector<ResultRow> a, b;
        makeTables(a, b);
        for (auto [rows, name] : {std::pair{&a, "a.csv"}, std::pair{&b, "b.csv"}}) {
            CsvWriter writer(dir.filePath(name).toStdString(), CsvWriterOptions{});
            for (const auto& r : *rows) writer.write(r);
        }
        ComparePage page;
        QAbstractItemModelTester t1(page.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(page.proxy(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
        page.openFiles(dir.filePath("a.csv"), dir.filePath("b.csv"));
        QVERIFY2(page.errorText().isEmpty(), qPrintable(page.errorText()));
        check(page.result(), a, b);
        QVERIFY(page.summaryText().contains(QString::number(page.result().geomeanSpeedup, 'f', 3)));
        QCOMPARE(page.model()->rowCount(),
                 int(page.result().matched + page.result().onlyA + page.result().onlyB));
        // The plot holds every speedup, sorted.
        auto* data = page.plot()->graph(0)->data().data();
        QCOMPARE(size_t(data->size()), page.result().withSpeedup);
        for (int i = 1; i < data->size(); ++i)
            QVERIFY(data->at(i - 1)->value <= data->at(i)->value);
        // Sorted by speedup through the proxy (SortRole), N/A at one end.
        page.proxy()->sort(CompareModel::Speedup, Qt::DescendingOrder);
        double previous = INFINITY;
        for (int i = 0; i < page.proxy()->rowCount(); ++i) {
            const double s = page.proxy()
                                 ->index(i, CompareModel::Speedup)
                                 .data(CompareModel::SortRole)
                                 .toDouble();
            QCOMPARE(std::isnan(s), i >= int(page.result().withSpeedup)); // N/A last
            if (std::isnan(s)) continue;
            QVERIFY(s <= previous);
            previous = s;
        }
        QVERIFY(page.exportPng(dir.filePath("plot.png")));
        QVERIFY(QFileInfo(dir.filePath("plot.png")).size() > 1000);
        // A missing file: a message, the comparison stays.
        const size_t matched = page.result().matched;
        page.openFiles(dir.filePath("a.csv"), dir.filePath("missing.csv"));
        QVERIFY(page.errorText().contains("missing.csv"));
        QCOMPARE(page.result().matched, matched);
    }
};

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
