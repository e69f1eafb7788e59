// The pool of every shipped config on every architecture: hundreds of kernels on sm_90 and
// gfx950 (at most about a hundred for the direct pipeline's *_direct.json and
// *_direct_staged.json and for *_narrow.json and *_narrow_n.json; the NVIDIA-only
// *_direct_mma.json (2D and 3D) and *_direct_tc.json none on AMD), and exactly the counts the
// README's table states.
#include "config/arch_spec.h"
#include "config/enumerate.h"
#include "config/trait_config.h"
#include "shipped_pools.h"
#include "test_paths.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QtTest>

using namespace gconv;

class TestPoolCounts : public QObject {
    Q_OBJECT

    struct Row {
        QString config;
        QMap<QString, int> counts;
    };

    static QList<Row> readme_table() {
        QFile f(test::source_path("README.md"));
        if (!f.open(QIODevice::ReadOnly)) return {};
        const QString text = QString::fromUtf8(f.readAll());
        const int begin = text.indexOf("<!-- pool-counts:begin -->");
        const int end = text.indexOf("<!-- pool-counts:end -->");
        if (begin < 0 || end < begin) return {};
        const QStringList lines = text.mid(begin, end - begin).split('\n');
        QStringList archs;
        QList<Row> rows;
        for (const QString& line : lines) {
            if (!line.startsWith('|')) continue;
            QStringList cells = line.split('|');
            for (auto& c : cells) c = c.trimmed();
            cells = cells.mid(1, cells.size() - 2);
            if (cells.value(0) == "config") {
                archs = cells.mid(1);
                continue;
            }
            if (cells.value(0).startsWith("---")) continue;
            Row row{cells.value(0), {}};
            for (int i = 1; i < cells.size(); ++i)
                row.counts[archs.value(i - 1)] = cells[i].toInt();
            rows.append(row);
        }
        return rows;
    }

private slots:
    void every_shipped_config_has_hundreds_of_kernels_on_sm90_and_gfx950() {
        const auto& specs = default_arch_specs();
        QDir dir(test::source_path("configs"));
        int configs = 0;
        for (const auto& f : dir.entryList({"*.json"}, QDir::Files)) {
            if (f == "arch_specs.json") continue;
            ++configs;
            const auto traits = load_trait_config(dir.filePath(f).toStdString());
            // The direct pipeline's pools are small on purpose: few knobs, one loop; so is the
            // narrow-vector pool, which exists for the channel counts the others refuse, and the
            // narrow-tile pool, its few winners on memory-bound layers of few output channels.
            const bool direct = f.endsWith("_direct.json") || f.endsWith("_direct_staged.json") ||
                                f.endsWith("_narrow.json") || f.endsWith("_narrow_n.json");
            // The tensor-core direct pools are NVIDIA-only: direct_mma a few per C/G
            // (bwd_weight's times its five split_k values), the depthwise entries (*_direct_tc)
            // their few winning tiles.
            const bool tensor_core_direct = f.endsWith("_direct_tc.json");
            if (test::nvidia_only_pool(f)) {
                const auto n = enumerate_pool(traits, specs.get("sm_90"), specs).kernels.size();
                const std::size_t most = tensor_core_direct           ? 40
                                         : f.startsWith("bwd_weight") ? 700
                                                                      : 300;
                // An exploration's winners named by a `where` may be any few (the stride-2 tiles).
                const std::size_t least = tensor_core_direct || !traits.where.empty() ? 1 : 20;
                QVERIFY2(n >= least && n <= most,
                         qPrintable(QString("%1 on sm_90: %2").arg(f).arg(n)));
                QVERIFY2(enumerate_pool(traits, specs.get("gfx950"), specs).kernels.empty(),
                         qPrintable(QString("%1 has kernels on gfx950").arg(f)));
                continue;
            }
            // The wgmma pools exist on sm_90a only (compv5 there is the wgmma pipeline); the
            // smallest are an exploration's winners named by a `where` (odd_k: one kernel).
            if (f.endsWith("_wgmma.json")) {
                const auto n = enumerate_pool(traits, specs.get("sm_90a"), specs).kernels.size();
                QVERIFY2(n >= 1 && n <= 200, qPrintable(QString("%1 on sm_90a: %2").arg(f).arg(n)));
                for (const char* arch : {"sm_90", "gfx950"})
                    QVERIFY2(enumerate_pool(traits, specs.get(arch), specs).kernels.empty(),
                             qPrintable(QString("%1 has kernels on %2").arg(f, arch)));
                continue;
            }
            for (const char* arch : {"sm_90", "gfx950"}) {
                const auto n = enumerate_pool(traits, specs.get(arch), specs).kernels.size();
                QVERIFY2(direct ? n >= 1 && n <= 120 : n >= 100 && n < 5000,
                         qPrintable(QString("%1 on %2: %3 kernels").arg(f, arch).arg(n)));
            }
        }
        QVERIFY(configs >= 12);
    }

    void readme_table_matches_the_code() {
        const auto rows = readme_table();
        QVERIFY2(!rows.isEmpty(), "README.md has no pool-count table between its markers");
        const auto& specs = default_arch_specs();
        QDir dir(test::source_path("configs"));
        QStringList shipped = dir.entryList({"*.json"}, QDir::Files);
        shipped.removeAll("arch_specs.json");
        QCOMPARE(rows.size(), shipped.size());
        for (const auto& row : rows) {
            QVERIFY2(shipped.contains(row.config), qPrintable(row.config));
            const auto traits = load_trait_config(dir.filePath(row.config).toStdString());
            for (auto it = row.counts.begin(); it != row.counts.end(); ++it) {
                const auto n = int(enumerate_pool(traits, specs.get(it.key().toStdString()), specs)
                                       .kernels.size());
                QVERIFY2(n == it.value(),
                         qPrintable(QString("%1 on %2: README says %3, the code gives %4 "
                                            "(run scripts/pool_counts.sh)")
                                        .arg(row.config, it.key())
                                        .arg(it.value())
                                        .arg(n)));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestPoolCounts)
#include "tst_pool_counts.moc"
