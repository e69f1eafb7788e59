#include "csv/csv_reader.h"
#include "csv/csv_writer.h"
#include "tst_results_rows.h"
#include "ui/results/result_store.h"
#include "ui/results/results_filter_proxy.h"
#include "ui/results/results_model.h"
#include "ui/results/results_page.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

#include <algorithm>

#include <cmath>
#include <fstream>
#include <map>

using namespace gconv;
using namespace gconv::ui;

namespace {

std::vector<size_t> expectedRows(const ResultStore& store,
                                 const std::function<bool(const ResultRow&)>& keep) {
    std::vector<size_t> rows;
    for (size_t i = 0; i < store.rowCount(); ++i)
        if (keep(store.row(i))) rows.push_back(i);
    return rows;
}

// The best ok row per (problem sizes, variant, dtype, arch) among rows `keep` accepts.
std::vector<size_t> expectedBest(const ResultStore& store,
                                 const std::function<bool(const ResultRow&)>& keep) {
    std::map<std::string, std::pair<double, size_t>> best;
    for (size_t i = 0; i < store.rowCount(); ++i) {
        const ResultRow r = store.row(i);
        if (r.status != CellStatus::Ok || std::isnan(r.latency_ms) || !keep(r)) continue;
        const std::string key = r.problem.key() + "|" + r.variant + "|" + r.dtype + "|" + r.arch;
        auto it = best.find(key);
        if (it == best.end() || r.latency_ms < it->second.first) best[key] = {r.latency_ms, i};
    }
    std::vector<size_t> rows;
    for (const auto& entry : best) rows.push_back(entry.second.second);
    std::sort(rows.begin(), rows.end());
    return rows;
}

std::vector<size_t> sortedVisible(const ResultsFilterProxy& proxy) {
    auto rows = proxy.visibleStoreRows();
    std::sort(rows.begin(), rows.end());
    return rows;
}

void writeRows(const QString& path, const std::vector<ResultRow>& rows, CsvForm form) {
    CsvWriterOptions options;
    options.form = form;
    CsvWriter writer(path.toStdString(), options);
    for (const auto& r : rows) writer.write(r);
    writer.close();
}

} // namespace

class TestResultsModel : public QObject {
    Q_OBJECT

    test::RandomRows random{std::random_device{}()};
    QTemporaryDir dir;

    QString path(const char* name) { return dir.filePath(name); }

    bool openAndWait(ResultsPage& page, const QString& file) {
        QSignalSpy opened(&page, &ResultsPage::fileOpened);
        QSignalSpy failed(&page, &ResultsPage::fileFailed);
        page.openFiles({file});
        return opened.wait(10000) || !opened.isEmpty();
    }

private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("gconv-test");
        QCoreApplication::setApplicationName("tst_results_model");
        QSettings().clear();
    }

    void modelTesterOnModelAndProxy() {
        ResultStore store;
        ResultsModel model(&store);
        ResultsFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto rows = random.rows(300);
        store.addTable("random",
                       CsvReadResult{make_result_table(rows), CsvForm::Full, {}, 0, false});
        QCOMPARE(model.rowCount(), 300);
        QCOMPARE(model.columnCount(), int(result_columns().size()));
        QVERIFY(!proxy.setFilterExpression("tflops > 50 and G == 32"));
        proxy.sort(model.columnOf("latency_ms"), Qt::DescendingOrder);
        proxy.setTextFilter("compv4");
        proxy.setStatusFilter(status_bit(CellStatus::Ok) | status_bit(CellStatus::Fail));
        proxy.setBestPerProblem(true);
        proxy.setBestPerProblem(false);
        store.appendRows(random.rows(40), "live.csv");
        QCOMPARE(model.rowCount(), 340);
        proxy.sort(-1);
        store.clear();
        QCOMPARE(proxy.rowCount(), 0);
    }

    void displayAndRoles() {
        ResultStore store;
        ResultsModel model(&store);
        auto rows = random.rows(50);
        store.addTable("r", CsvReadResult{make_result_table(rows), CsvForm::Full, {}, 0, false});
        const int lat = model.columnOf("latency_ms"), st = model.columnOf("status"),
                  tf = model.columnOf("tflops"), kernel = model.columnOf("kernel");
        for (int i = 0; i < 50; ++i) {
            const ResultRow r = store.row(size_t(i));
            const QString shown = model.index(i, lat).data().toString();
            if (std::isnan(r.latency_ms))
                QCOMPARE(shown, QString("N/A"));
            else
                QCOMPARE(shown.toDouble(), QString::number(r.latency_ms, 'g', 4).toDouble());
            const double raw = model.index(i, lat).data(ResultsModel::SortRole).toDouble();
            QVERIFY(std::isnan(r.latency_ms) ? std::isnan(raw) : raw == r.latency_ms);
            QCOMPARE(model.index(i, st).data().toString(), QString::fromUtf8(to_string(r.status)));
            QCOMPARE(model.index(i, st).data(Qt::ForegroundRole).value<QColor>(),
                     ResultsModel::statusColor(r.status));
            QVERIFY(model.index(i, tf).data(Qt::TextAlignmentRole).toInt() & Qt::AlignRight);
            QCOMPARE(model.index(i, kernel).data().toString(), QString::fromStdString(r.kernel));
            if (!r.error.empty())
                QVERIFY(model.index(i, kernel)
                            .data(Qt::ToolTipRole)
                            .toString()
                            .contains(QString::fromStdString(r.error)));
        }
        QCOMPARE(ResultsModel::statusColor(CellStatus::Ok), QColor(0x2e, 0x7d, 0x32));
        QVERIFY(ResultsModel::statusColor(CellStatus::Fail) !=
                ResultsModel::statusColor(CellStatus::Timeout));
    }

    void loadsFullForm() {
        const auto rows = random.rows(200);
        writeRows(path("full.csv"), rows, CsvForm::Full);
        ResultStore store;
        ResultsPage page(&store);
        QVERIFY(openAndWait(page, path("full.csv")));
        QCOMPARE(store.rowCount(), size_t(200));
        for (size_t i = 0; i < rows.size(); ++i) {
            const ResultRow back = store.row(i);
            QCOMPARE(back.kernel, rows[i].kernel);
            QCOMPARE(back.status, rows[i].status);
            QCOMPARE(back.problem.G, rows[i].problem.G);
        }
        QCOMPARE(page.proxy()->rowCount(), 200);
        QCOMPARE(page.rowCountText(), QString("200 of 200 rows"));
    }

    void loadsSeedForm() {
        // The seed README's columns, written by hand: 2D, N/A for a failed cell.
        std::ofstream out(path("seed.csv").toStdString());
        out << "kernel,problem_idx,N,C,K,G,Hi,Wi,Y,X,stride_h,stride_w,pad_h,pad_w,latency_ms,"
               "tflops,non_zero\n";
        int ok = 0;
        std::vector<double> latencies;
        for (int i = 0; i < 40; ++i) {
            const bool ran = random.rng()() % 3 != 0;
            const double ms = random.real(0.01, 2);
            ok += ran;
            latencies.push_back(ran ? ms : k_no_value);
            out << "k" << i % 7 << "," << i % 5 << ",2,64,64,8,28,28,3,3,1,1,1,1,";
            if (ran)
                out << ms << "," << random.real(1, 100) << ",true\n";
            else
                out << "N/A,0,false\n";
        }
        out.close();
        ResultStore store;
        ResultsPage page(&store);
        QVERIFY(openAndWait(page, path("seed.csv")));
        QCOMPARE(store.rowCount(), size_t(40));
        QCOMPARE(store.sources().back().form, CsvForm::Seed);
        page.proxy()->setStatusFilter(status_bit(CellStatus::Ok));
        QCOMPARE(page.proxy()->rowCount(), ok);
        // A seed file has no status column: the filter language still knows `status`.
        page.proxy()->setStatusFilter(k_all_statuses);
        QVERIFY(!page.proxy()->setFilterExpression("status == 'error'"));
        QCOMPARE(page.proxy()->rowCount(), 40 - ok);
        const int lat = page.model()->columnOf("latency_ms");
        for (int i = 0; i < 40; ++i)
            QCOMPARE(page.model()->index(i, lat).data().toString() == "N/A",
                     std::isnan(latencies[size_t(i)]));
    }

    void corruptFileChangesNothing() {
        const auto rows = random.rows(30);
        writeRows(path("good.csv"), rows, CsvForm::Full);
        writeRows(path("bad.csv"), rows, CsvForm::Full);
        // Line 7 (the 6th data row): a word where tflops must be a number.
        std::ifstream in(path("bad.csv").toStdString());
        std::vector<std::string> lines;
        for (std::string l; std::getline(in, l);) lines.push_back(l);
        in.close();
        const int line = 2 + int(random.rng()() % 20);
        auto& target = lines[size_t(line - 1)];
        // tflops is the 23rd field.
        size_t pos = 0;
        for (int f = 0; f < 22; ++f) pos = target.find(',', pos) + 1;
        const size_t end = target.find(',', pos);
        target.replace(pos, end - pos, "fast");
        std::ofstream out(path("bad.csv").toStdString());
        for (const auto& l : lines) out << l << "\n";
        out.close();

        ResultStore store;
        ResultsPage page(&store);
        QVERIFY(openAndWait(page, path("good.csv")));
        QSignalSpy failed(&page, &ResultsPage::fileFailed);
        QSignalSpy resets(&store, &ResultStore::reset);
        page.openFiles({path("bad.csv")});
        QVERIFY(failed.wait(10000));
        const QString message = failed.first().at(1).toString();
        QVERIFY2(message.contains(path("bad.csv") + ":" + QString::number(line) + ":"),
                 qPrintable(message));
        QVERIFY2(message.contains("tflops"), qPrintable(message));
        QVERIFY(page.statusText().contains(QString::number(line)));
        QCOMPARE(store.rowCount(), size_t(30));
        QCOMPARE(store.sources().size(), size_t(1));
        QCOMPARE(resets.count(), 0);
    }

    void filterExpressionsMatchALoop() {
        ResultStore store;
        ResultsModel model(&store);
        ResultsFilterProxy proxy;
        proxy.setSourceModel(&model);
        store.addTable(
            "r", CsvReadResult{make_result_table(random.rows(2000)), CsvForm::Full, {}, 0, false});
        // A group count the rows have (the six random problems may lack any one of 1, 8, 32).
        std::vector<int64_t> groups;
        for (size_t i = 0; i < store.rowCount(); ++i)
            if (std::find(groups.begin(), groups.end(), store.row(i).problem.G) == groups.end())
                groups.push_back(store.row(i).problem.G);
        const int64_t g = groups[random.rng()() % groups.size()];
        // Thresholds from the data, so each expression keeps some rows and drops others.
        std::vector<double> tflops, latency;
        for (size_t i = 0; i < store.rowCount(); ++i) {
            const ResultRow r = store.row(i);
            if (r.problem.G == g) tflops.push_back(r.tflops);
            if (has_value(r.latency_ms)) latency.push_back(r.latency_ms * 100);
        }
        QVERIFY(!tflops.empty() && !latency.empty());
        std::sort(tflops.begin(), tflops.end());
        std::sort(latency.begin(), latency.end());
        const double t = tflops[tflops.size() / 4];
        const double t_latency = latency[latency.size() / 2];
        struct Case {
            QString text;
            std::function<bool(const ResultRow&)> keep;
        };
        const std::vector<Case> cases{
            {QString("tflops > %1 and G == %2").arg(t, 0, 'g', 17).arg(g),
             [&](const ResultRow& r) { return r.tflops > t && r.problem.G == g; }},
            {"status == \"fail\"", [](const ResultRow& r) { return r.status == CellStatus::Fail; }},
            {"status in ['timeout', 'oom'] or dtype == 'fp16'",
             [](const ResultRow& r) {
                 return r.status == CellStatus::Timeout || r.status == CellStatus::Oom ||
                        r.dtype == "fp16";
             }},
            {QString("latency_ms != 'N/A' and latency_ms < %1").arg(t_latency / 100, 0, 'g', 17),
             [&](const ResultRow& r) { return r.latency_ms < t_latency / 100; }},
            {"not (C / G >= 16) and kernel < 'grouped_conv_fwd_bf16_2d_compv4'",
             [](const ResultRow& r) {
                 return !(double(r.problem.C) / double(r.problem.G) >= 16) &&
                        r.kernel < "grouped_conv_fwd_bf16_2d_compv4";
             }},
            {"", [](const ResultRow&) { return true; }},
        };
        for (const auto& c : cases) {
            const auto error = proxy.setFilterExpression(c.text);
            QVERIFY2(!error, error ? qPrintable(error->message) : "");
            const auto expected = expectedRows(store, c.keep);
            QVERIFY2(sortedVisible(proxy) == expected, qPrintable(c.text));
            const bool mayBeEmpty =
                c.text.contains("oom") || c.text.contains("fail") || c.text.contains("not (");
            QVERIFY2(!expected.empty() || mayBeEmpty, qPrintable(c.text));
        }
    }

    void badExpressionReportsCaret() {
        ResultStore store;
        ResultsPage page(&store);
        store.addTable(
            "r", CsvReadResult{make_result_table(random.rows(50)), CsvForm::Full, {}, 0, false});
        QVERIFY(!page.proxy()->setFilterExpression("G == 8"));
        const int before = page.proxy()->rowCount();
        const QString pad(int(random.rng()() % 5), ' ');
        const QString text = pad + "tflops > 1 and tflopz < 3";
        auto error = page.proxy()->setFilterExpression(text);
        QVERIFY(error);
        QCOMPARE(error->column, int(text.indexOf("tflopz")));
        QVERIFY(error->reason.contains("tflopz"));
        QCOMPARE(page.proxy()->rowCount(), before); // the previous filter stays
        error = page.proxy()->setFilterExpression("tflops > > 3");
        QVERIFY(error);
        QCOMPARE(error->column, 9);
        // Through the page: the line edit, the debounce, the inline message with its caret.
        QSignalSpy evaluated(&page, &ResultsPage::filterEvaluated);
        page.filterEdit()->setText(text);
        QVERIFY(evaluated.wait(2000));
        const QStringList lines = page.filterErrorText().split('\n');
        QVERIFY2(lines.size() >= 3, qPrintable(page.filterErrorText()));
        QCOMPARE(lines.last().indexOf('^'), lines[lines.size() - 2].indexOf("tflopz"));
    }

    void statusFilter() {
        ResultStore store;
        ResultsModel model(&store);
        ResultsFilterProxy proxy;
        proxy.setSourceModel(&model);
        store.addTable(
            "r", CsvReadResult{make_result_table(random.rows(800)), CsvForm::Full, {}, 0, false});
        StatusSet allowed = 0;
        for (int s = 0; s < 8; ++s)
            if (random.rng()() % 2) allowed |= status_bit(CellStatus(s));
        proxy.setStatusFilter(allowed);
        QCOMPARE(sortedVisible(proxy), expectedRows(store, [&](const ResultRow& r) {
                     return (allowed & status_bit(r.status)) != 0;
                 }));
    }

    void bestPerProblemPicksTheMinimum() {
        ResultStore store;
        ResultsModel model(&store);
        ResultsFilterProxy proxy;
        proxy.setSourceModel(&model);
        store.addTable(
            "r", CsvReadResult{make_result_table(random.rows(1500)), CsvForm::Full, {}, 0, false});
        proxy.setTextFilter("compv4");
        proxy.setBestPerProblem(true);
        const auto expected = expectedBest(
            store, [](const ResultRow& r) { return r.kernel.find("compv4") != std::string::npos; });
        QVERIFY(expected.size() > 3);
        QCOMPARE(sortedVisible(proxy), expected);
    }

    void sortsInCore() {
        ResultStore store;
        ResultsModel model(&store);
        ResultsFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        store.addTable(
            "r", CsvReadResult{make_result_table(random.rows(700)), CsvForm::Full, {}, 0, false});
        const int lat = model.columnOf("latency_ms");
        proxy.sort(lat, Qt::DescendingOrder);
        bool seenNan = false;
        double previous = INFINITY;
        for (int i = 0; i < proxy.rowCount(); ++i) {
            const double v = store.row(proxy.storeRow(i)).latency_ms;
            if (std::isnan(v)) {
                seenNan = true;
                continue;
            }
            QVERIFY(!seenNan); // N/A last
            QVERIFY(v <= previous);
            previous = v;
        }
        proxy.sort(model.columnOf("kernel"), Qt::AscendingOrder);
        for (int i = 1; i < proxy.rowCount(); ++i)
            QVERIFY(store.row(proxy.storeRow(i - 1)).kernel <= store.row(proxy.storeRow(i)).kernel);
    }

    void exportRoundTripEqualsVisibleRows() {
        ResultStore store;
        ResultsPage page(&store);
        store.addTable(
            "r", CsvReadResult{make_result_table(random.rows(600)), CsvForm::Full, {}, 0, false});
        QVERIFY(!page.proxy()->setFilterExpression("tflops > 30"));
        page.view()->sortByColumn(page.model()->columnOf("tflops"), Qt::DescendingOrder);
        const auto visible = page.proxy()->visibleStoreRows();
        QVERIFY(!visible.empty());
        QString error;
        QVERIFY2(page.exportVisibleRows(path("export.csv"), &error), qPrintable(error));
        const auto back = read_results_csv(path("export.csv").toStdString());
        QCOMPARE(back.table.rows(), visible.size());
        QCOMPARE(back.form, CsvForm::Full);
        for (size_t i = 0; i < visible.size(); ++i)
            QVERIFY(back.table.row(i) == store.row(visible[i]));
    }

    void liveAppendGrowsTheProxy() {
        ResultStore store;
        ResultsModel model(&store);
        ResultsFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        store.appendRows(random.rows(100), "live.csv");
        QVERIFY(!proxy.setFilterExpression("status == 'ok'"));
        const int before = proxy.rowCount();
        const auto extra = random.rows(60);
        const int extraOk = int(std::count_if(extra.begin(), extra.end(), [](const ResultRow& r) {
            return r.status == CellStatus::Ok;
        }));
        store.appendRows(extra, "live.csv");
        QCOMPARE(proxy.rowCount(), before + extraOk);
        QCOMPARE(sortedVisible(proxy), expectedRows(store, [](const ResultRow& r) {
                     return r.status == CellStatus::Ok;
                 }));
        // The best view follows live rows too (recomputed after a short delay).
        proxy.setBestPerProblem(true);
        const int best = proxy.rowCount();
        QVERIFY(best > 0);
        store.appendRows(random.rows(200), "live.csv");
        const auto expected =
            expectedBest(store, [](const ResultRow& r) { return r.status == CellStatus::Ok; });
        QVERIFY(expected.size() >= size_t(best));
        QTRY_VERIFY(sortedVisible(proxy) == expected);
    }

    void currentRowFollowsTheStore() {
        ResultStore store;
        ResultsPage page(&store);
        store.addTable(
            "r", CsvReadResult{make_result_table(random.rows(300)), CsvForm::Full, {}, 0, false});
        page.view()->sortByColumn(page.model()->columnOf("tflops"), Qt::AscendingOrder);
        const qint64 target = qint64(random.rng()() % 300);
        store.setCurrentRow(target);
        const QModelIndex current = page.view()->selectionModel()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(qint64(page.proxy()->storeRow(current.row())), target);
        const int other = int(random.rng()() % 300);
        page.view()->selectionModel()->setCurrentIndex(page.proxy()->index(other, 0),
                                                       QItemSelectionModel::ClearAndSelect);
        QCOMPARE(store.currentRow(), qint64(page.proxy()->storeRow(other)));
    }

    void hiddenColumnsPersist() {
        ResultStore store;
        {
            ResultsPage page(&store);
            store.addTable(
                "r",
                CsvReadResult{make_result_table(random.rows(10)), CsvForm::Full, {}, 0, false});
            QVERIFY(QSettings().value("results/hiddenColumns").toStringList().isEmpty());
        }
        QSettings().setValue("results/hiddenColumns", QStringList{"content_key", "timestamp"});
        ResultsPage page(&store);
        store.clear();
        store.addTable(
            "r", CsvReadResult{make_result_table(random.rows(10)), CsvForm::Full, {}, 0, false});
        auto* header = page.view()->horizontalHeader();
        QVERIFY(header->isSectionHidden(page.model()->columnOf("content_key")));
        QVERIFY(header->isSectionHidden(page.model()->columnOf("timestamp")));
        QVERIFY(!header->isSectionHidden(page.model()->columnOf("tflops")));
        QSettings().clear();
    }
};

QTEST_MAIN(TestResultsModel)
#include "tst_results_model.moc"
