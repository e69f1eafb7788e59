// The Problems page: registry keys with their sets, derived columns equal to Problem's
// functions, validation of edits (marked rows, messages, no saving), add / delete rows, and
// save-as read back by ProblemRegistry::load_file.
#include "problem/problem_set.h"
#include "problem/registry.h"
#include "ui/problems/problem_set_list_model.h"
#include "ui/problems/problem_table_model.h"
#include "ui/problems/problems_page.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QtTest>

#include <random>

using namespace gconv;
using namespace gconv::ui;
using Model = ProblemTableModel;

namespace {

std::mt19937& rng() {
    static std::mt19937 engine(std::random_device{}());
    return engine;
}

const char* k_sets[] = {"forward_2d_test_validation", "bwd_weight_3d_test_validation",
                        "bwd_data_2d_test_validation"};

// A registry directory with copies of a few shipped sets, so saved sets land beside them.
struct Fixture {
    QTemporaryDir dir;
    std::vector<std::filesystem::path> dirs;
    Fixture() {
        for (const char* key : k_sets)
            QFile::copy(QStringLiteral(GCONV_TEST_SOURCE_DIR "/problems/%1.json").arg(key),
                        dir.filePath(QStringLiteral("%1.json").arg(key)));
        dirs = {dir.path().toStdString()};
    }
    ProblemSet load(const char* key) const { return ProblemRegistry(dirs).load(key); }
};

bool waitLoaded(ProblemsPage& page) {
    return QTest::qWaitFor([&] { return !page.isLoading(); }, 10000);
}

QVariant cell(const ProblemsPage& page, int row, int column, int role = Qt::DisplayRole) {
    return page.problemModel()->index(row, column).data(role);
}

} // namespace

class TestProblemsPage : public QObject {
    Q_OBJECT

private slots:
    void lists_registry_keys_with_their_sets() {
        Fixture f;
        ProblemsPage page(f.dirs);
        QAbstractItemModelTester sets(page.setModel());
        QVERIFY(waitLoaded(page));
        QStringList expected;
        for (const char* key : k_sets) expected << QString::fromLatin1(key);
        expected.sort();
        QCOMPARE(page.setModel()->keys(), expected);
        for (int r = 0; r < page.setModel()->rowCount(); ++r) {
            const QString key = page.setModel()->index(r, 0).data().toString();
            const ProblemSet set = f.load(key.toLatin1().constData());
            QCOMPARE(page.setModel()->index(r, ProblemSetListModel::ColCount).data().toLongLong(),
                     qlonglong(set.problems.size()));
            QCOMPARE(page.setModel()->index(r, ProblemSetListModel::ColDirection).data().toString(),
                     QString::fromUtf8(to_string(set.direction).data()));
            QCOMPARE(
                page.setModel()->index(r, ProblemSetListModel::ColDescription).data().toString(),
                QString::fromStdString(set.description));
        }
    }

    void checked_sets_fill_the_table_with_derived_columns() {
        Fixture f;
        ProblemsPage page(f.dirs);
        QAbstractItemModelTester table(page.problemModel());
        QAbstractItemModelTester proxy(page.problemProxy());
        QVERIFY(waitLoaded(page));
        QSignalSpy selection(&page, &ProblemsPage::selectionChanged);
        page.setSelectedKeys({k_sets[0], k_sets[1]});
        QVERIFY(selection.count() >= 1);
        QCOMPARE(selection.last().at(0).toStringList(), page.selectedKeys());
        const ProblemSet a = f.load(k_sets[0]), b = f.load(k_sets[1]);
        QCOMPARE(page.problemModel()->rowCount(), int(a.problems.size() + b.problems.size()));

        for (DataType dtype : {DataType::BF16, DataType::FP32}) {
            page.setDtype(dtype);
            for (int round = 0; round < 20; ++round) {
                const int row = int(rng()() % page.problemModel()->rowCount());
                // Rows come set by set, in the registry's key order.
                const QString set = cell(page, row, Model::ColSet).toString();
                const bool first = set == QLatin1String(k_sets[0]);
                QVERIFY(first || set == QLatin1String(k_sets[1]));
                const ProblemSet& s = first ? a : b;
                int offset = 0;
                while (cell(page, offset, Model::ColSet).toString() != set) ++offset;
                const Problem& p = s.problems[std::size_t(row - offset)];
                const Variant direction = s.direction;
                QCOMPARE(cell(page, row, Model::ColC).toLongLong(), qlonglong(p.C));
                QCOMPARE(cell(page, row, Model::ColDo).toLongLong(), qlonglong(p.Do()));
                QCOMPARE(cell(page, row, Model::ColHo).toLongLong(), qlonglong(p.Ho()));
                QCOMPARE(cell(page, row, Model::ColWo).toLongLong(), qlonglong(p.Wo()));
                QCOMPARE(cell(page, row, Model::ColGflop, Model::SortRole).toDouble(),
                         p.flops() / 1e9);
                QCOMPARE(cell(page, row, Model::ColGflop).toString(),
                         QString::number(p.flops() / 1e9, 'f', 3));
                QCOMPARE(cell(page, row, Model::ColMinMB, Model::SortRole).toDouble(),
                         p.min_bytes(dtype) / 1e6);
                QCOMPARE(cell(page, row, Model::ColIntensity, Model::SortRole).toDouble(),
                         p.flops() / p.min_bytes(dtype));
                const auto gemm = p.gemm(direction);
                QCOMPARE(cell(page, row, Model::ColGemmM).toLongLong(), qlonglong(gemm.m));
                QCOMPARE(cell(page, row, Model::ColGemmN).toLongLong(), qlonglong(gemm.n));
                QCOMPARE(cell(page, row, Model::ColGemmK).toLongLong(), qlonglong(gemm.k));
                QCOMPARE(cell(page, row, Model::ColDirection).toString(),
                         QString::fromUtf8(to_string(direction).data()));
            }
        }
        // Sorting by GFLOP goes by number.
        page.problemProxy()->sort(Model::ColGflop, Qt::AscendingOrder);
        for (int r = 1; r < page.problemProxy()->rowCount(); ++r)
            QVERIFY(
                page.problemProxy()
                    ->index(r - 1, Model::ColGflop)
                    .data(Model::SortRole)
                    .toDouble() <=
                page.problemProxy()->index(r, Model::ColGflop).data(Model::SortRole).toDouble());

        page.setSelectedKeys({k_sets[1]});
        QCOMPARE(page.problemModel()->rowCount(), int(b.problems.size()));
    }

    void an_invalid_edit_is_marked_and_blocks_saving() {
        Fixture f;
        ProblemsPage page(f.dirs);
        QAbstractItemModelTester table(page.problemModel());
        QVERIFY(waitLoaded(page));
        page.setSelectedKeys({k_sets[0]});
        const int rows = page.problemModel()->rowCount();
        QVERIFY(rows > 0);
        const int row = int(rng()() % rows);
        const Problem before = page.problemModel()->rows()[std::size_t(row)].problem;

        // Not an integer: refused, value unchanged, message in the status line.
        QVERIFY(!page.problemModel()->setData(page.problemModel()->index(row, Model::ColK),
                                              QStringLiteral("12a"), Qt::EditRole));
        QCOMPARE(cell(page, row, Model::ColK).toLongLong(), qlonglong(before.K));
        QVERIFY2(page.statusText().contains(QStringLiteral("not an integer")),
                 qPrintable(page.statusText()));

        // G that does not divide C: the row is marked with validate()'s message.
        const qlonglong g = before.C + 1 + qlonglong(rng()() % 5);
        QVERIFY(page.problemModel()->setData(page.problemModel()->index(row, Model::ColG), g,
                                             Qt::EditRole));
        Problem edited = before;
        edited.G = g;
        const auto expected = validate(edited);
        QVERIFY(!expected.empty());
        const QString message = QString::fromStdString(expected.front());
        QVERIFY(message.startsWith(QStringLiteral("C: ")));
        QCOMPARE(cell(page, row, Model::ColN, Model::ErrorsRole).toStringList().value(0), message);
        QVERIFY(cell(page, row, Model::ColN, Qt::ToolTipRole).toString().contains(message));
        QVERIFY(cell(page, row, Model::ColN, Qt::BackgroundRole).isValid());
        QVERIFY2(page.statusText().contains(message), qPrintable(page.statusText()));
        QCOMPARE(cell(page, row, Model::ColGflop).toString(), QStringLiteral("-"));
        QCOMPARE(page.problemModel()->invalidRowCount(), 1);

        const QString path = f.dir.filePath(QStringLiteral("broken.json"));
        QVERIFY(!page.saveSetAs(path, QStringLiteral("broken")));
        QVERIFY(!QFile::exists(path));
        QVERIFY(page.statusText().contains(QStringLiteral("row %1: %2").arg(row + 1).arg(message)));

        // Putting G back makes the row valid again.
        QVERIFY(page.problemModel()->setData(page.problemModel()->index(row, Model::ColG),
                                             qlonglong(before.G), Qt::EditRole));
        QCOMPARE(page.problemModel()->invalidRowCount(), 0);
        QVERIFY(!cell(page, row, Model::ColN, Qt::BackgroundRole).isValid());

        // A copy of another row's shape is a duplicate, which a set cannot hold.
        if (rows > 1) {
            const int other = (row + 1) % rows;
            const Problem target = page.problemModel()->rows()[std::size_t(other)].problem;
            for (int c = Model::ColN; c <= Model::ColDilationW; ++c)
                page.problemModel()->setData(page.problemModel()->index(row, c),
                                             qlonglong(target.*Model::sizeMember(c)), Qt::EditRole);
            page.problemModel()->setData(page.problemModel()->index(row, Model::ColNdim),
                                         target.ndim_spatial, Qt::EditRole);
            QVERIFY(page.problemModel()->invalidRowCount() == 1);
            QVERIFY(!page.saveSetAs(path, {}));
            QVERIFY(page.statusText().contains(QStringLiteral("duplicates row")));
        }
    }

    void save_as_then_load_file_round_trips() {
        Fixture f;
        ProblemsPage page(f.dirs);
        QAbstractItemModelTester table(page.problemModel());
        QVERIFY(waitLoaded(page));

        // Two directions cannot make one set.
        page.setSelectedKeys({k_sets[0], k_sets[2]});
        QVERIFY(!page.saveSetAs(f.dir.filePath(QStringLiteral("mixed.json")), {}));
        QVERIFY(page.statusText().contains(QStringLiteral("mix directions")));

        page.setSelectedKeys({k_sets[1]});
        auto* model = page.problemModel();
        const int rows = model->rowCount();
        // Random valid edits: a new batch size, an added row, a deleted row.
        const int row = int(rng()() % rows);
        const qlonglong n = 100 + qlonglong(rng()() % 900);
        QVERIFY(model->setData(model->index(row, Model::ColN), n, Qt::EditRole));
        QVERIFY(model->setData(model->index(row, Model::ColLayer), QStringLiteral("edited layer"),
                               Qt::EditRole));
        page.addRow();
        QCOMPARE(model->rowCount(), rows + 1);
        int victim = int(rng()() % rows);
        if (victim == row) victim = (row + 1) % rows;
        model->removeRows(victim, 1);
        QCOMPARE(model->rowCount(), rows);
        QCOMPARE(model->invalidRowCount(), 0);

        const QString key = QStringLiteral("mine_%1").arg(rng()() % 10000);
        QVERIFY(!page.saveSetAs(f.dir.filePath(key + QStringLiteral(".json")),
                                QStringLiteral("other_key")));
        // A key the registry already has in another file is refused.
        QTemporaryDir elsewhere;
        QVERIFY(!page.saveSetAs(elsewhere.filePath(QStringLiteral("%1.json").arg(k_sets[0])), {}));
        QVERIFY(page.statusText().contains(QStringLiteral("already the set")));
        const QString path = f.dir.filePath(key + QStringLiteral(".json"));
        QVERIFY2(page.saveSetAs(path, key), qPrintable(page.statusText()));

        const ProblemSet read = ProblemRegistry::load_file(path.toStdString());
        QCOMPARE(QString::fromStdString(read.key), key);
        QCOMPARE(read.direction, f.load(k_sets[1]).direction);
        QCOMPARE(int(read.problems.size()), model->rowCount());
        for (int r = 0; r < model->rowCount(); ++r) {
            QCOMPARE(read.problems[std::size_t(r)].key(),
                     model->rows()[std::size_t(r)].problem.key());
            QCOMPARE(read.problems[std::size_t(r)].layer,
                     model->rows()[std::size_t(r)].problem.layer);
        }
        QVERIFY(page.setModel()->keys().contains(key)); // the registry finds it now
    }

    void user_dir_is_in_the_registry_search_path() {
        const auto dirs = ProblemRegistry::default_search_dirs();
        const QString user = ProblemsPage::userProblemsDir();
        QVERIFY(std::find(dirs.begin(), dirs.end(), std::filesystem::path(user.toStdString())) !=
                dirs.end());
    }

    // With GCONV_SCREENSHOT_DIR set, saves a picture of the page with a marked row.
    void screenshot() {
        const QString dir = qEnvironmentVariable("GCONV_SCREENSHOT_DIR");
        if (dir.isEmpty()) QSKIP("set GCONV_SCREENSHOT_DIR to save a screenshot");
        Fixture f;
        ProblemsPage page(f.dirs);
        page.resize(1600, 900);
        QVERIFY(waitLoaded(page));
        page.setSelectedKeys({k_sets[0]});
        page.problemModel()->setData(page.problemModel()->index(2, Model::ColG), 7, Qt::EditRole);
        page.show();
        QTest::qWait(50);
        QVERIFY(page.grab().save(dir + QStringLiteral("/problems_page.png")));
    }
};

QTEST_MAIN(TestProblemsPage)
#include "tst_problems_page.moc"
