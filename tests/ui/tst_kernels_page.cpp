// The Kernels page against core: its counts equal enumerate_pool() on the same JSON for every
// shipped config (sm_90 and gfx942), form <-> JSON stays in sync both ways, errors show where
// they are, the models pass QAbstractItemModelTester, save / reopen and maybeSave.
#include "config/arch_spec.h"
#include "config/config_filter.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "filter/filter_error.h"
#include "filter/filter_expression.h"
#include "ui/kernels/filter_box.h"
#include "ui/kernels/kernels_page.h"
#include "ui/kernels/pool_models.h"
#include "ui/kernels/trait_form.h"
#include "ui/kernels/trait_json_format.h"
#include "util/error.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <random>

using namespace gconv;
using namespace gconv::ui;

namespace {

QStringList shippedConfigs() {
    QDir dir(QStringLiteral(GCONV_TEST_SOURCE_DIR "/configs"));
    QStringList out;
    for (const auto& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name))
        if (name != QStringLiteral("arch_specs.json")) out << dir.filePath(name);
    return out;
}

QString readFile(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

bool waitIdle(KernelsPage& page) {
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 20000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (!page.isBusy()) return true;
        QTest::qWait(5);
    }
    return false;
}

KernelPool corePool(const QString& text, const QString& arch) {
    const TraitConfig traits = parse_trait_config(text.toStdString(), "test");
    const ArchSpecs& specs = default_arch_specs();
    return enumerate_pool(traits, specs.get(arch.toStdString()), specs);
}

std::mt19937& rng() {
    static std::mt19937 engine(std::random_device{}());
    return engine;
}

CheckableValueList* checkable(KernelsPage& page, const char* key) {
    return qobject_cast<CheckableValueList*>(page.form()->editor(QString::fromLatin1(key)));
}

nlohmann::json asJson(const QString& text) {
    return nlohmann::json::parse(text.toStdString());
}

} // namespace

class TestKernelsPage : public QObject {
    Q_OBJECT

private slots:
    void every_schema_key_has_an_editor() {
        KernelsPage page;
        for (const auto& raw : trait_keys()) {
            const QString key = QString::fromStdString(raw).section(QLatin1Char(' '), 0, 0);
            QVERIFY2(page.form()->editor(key), qPrintable(key));
        }
    }

    void shipped_configs_count_like_core() {
        const QStringList configs = shippedConfigs();
        QVERIFY(configs.size() >= 5);
        KernelsPage page;
        for (const QString& arch : {QStringLiteral("sm_90"), QStringLiteral("gfx942")}) {
            page.setArch(arch);
            for (const auto& path : configs) {
                QVERIFY2(page.openConfig(path), qPrintable(page.jsonError()));
                QVERIFY(waitIdle(page));
                const KernelPool pool = corePool(readFile(path), arch);
                QCOMPARE(page.legalCount(), int(pool.kernels.size()));
                QCOMPARE(page.culledCount(), int(pool.culled.size()));
                QCOMPARE(page.candidateCount(), int(pool.candidates));
                QCOMPARE(page.kernelModel()->rowCount(), int(pool.kernels.size()));
                QCOMPARE(page.culledModel()->rowCount(), int(pool.culled.size()));
                QVERIFY(page.statusText().contains(arch));
                QVERIFY(!page.isModified());
                // Same order and names as the CLI's --list.
                if (!pool.kernels.empty()) {
                    const std::size_t i = rng()() % pool.kernels.size();
                    QCOMPARE(page.kernelModel()->index(int(i), 0).data().toString().toStdString(),
                             kernel_name(pool.kernels[i]));
                }
            }
        }
    }

    void toggling_a_pipeline_changes_json_and_count_like_core() {
        KernelsPage page;
        page.setArch(QStringLiteral("sm_90"));
        QVERIFY(
            page.openConfig(QStringLiteral(GCONV_TEST_SOURCE_DIR "/configs/forward_bf16.json")));
        QVERIFY(waitIdle(page));
        QSignalSpy modified(&page, &KernelsPage::modifiedChanged);
        const auto pipelines = enum_names<Pipeline>();
        for (int round = 0; round < 6; ++round) {
            const std::string pipeline = pipelines[rng()() % pipelines.size()];
            auto* editor = checkable(page, "pipeline");
            QVERIFY(editor);
            const bool on = !editor->isChecked(pipeline);
            QVERIFY(editor->setChecked(pipeline, on));
            const auto doc = asJson(page.jsonText());
            const auto& traits = doc.at("trait_config");
            const bool listed =
                traits.contains("pipeline") &&
                std::find(traits["pipeline"]["values"].begin(), traits["pipeline"]["values"].end(),
                          pipeline) != traits["pipeline"]["values"].end();
            QCOMPARE(listed, on);
            QVERIFY(waitIdle(page));
            const KernelPool pool = corePool(page.jsonText(), QStringLiteral("sm_90"));
            QCOMPARE(page.legalCount(), int(pool.kernels.size()));
            QCOMPARE(page.culledCount(), int(pool.culled.size()));
            QVERIFY(page.jsonError().isEmpty());
        }
        QVERIFY(page.isModified() || page.jsonText() == readFile(page.configPath()));
        QVERIFY(modified.count() >= 1);
    }

    void json_to_form_to_json_is_the_same_document() {
        for (const auto& path : shippedConfigs()) {
            KernelsPage page;
            QVERIFY(page.openConfig(path));
            const auto original = asJson(readFile(path));
            QCOMPARE(nlohmann::json(page.form()->document()), original);
            // Form -> JSON -> form: the text the form writes reads back to the same form.
            auto* dsb = checkable(page, "split_image");
            QVERIFY(dsb);
            const bool was = dsb->isChecked(true);
            dsb->setChecked(true, !was);
            dsb->setChecked(true, was);
            QCOMPARE(asJson(page.jsonText()), original); // reformatted, same document
            TraitForm other;
            other.setDocument(Json::parse(page.jsonText().toStdString()));
            QCOMPARE(other.document(), page.form()->document());
            QCOMPARE(QString::fromStdString(formatTraitJson(other.document())), page.jsonText());
        }
    }

    // The form's where field is the document's "where": typing one culls like core, with the
    // "where" reason; clearing it brings the whole product back (more than the file's own where
    // keeps).
    void where_field_reaches_json_and_counts() {
        KernelsPage page;
        page.setArch(QStringLiteral("sm_90"));
        QVERIFY(page.openConfig(
            QStringLiteral(GCONV_TEST_SOURCE_DIR "/bench/configs/forward_narrow_explore.json")));
        QVERIFY(waitIdle(page));
        const int before = page.legalCount();
        auto* where = page.form()->whereEdit();
        where->clear();
        QTest::keyClicks(where, QStringLiteral("c.tile_m == 64 and c.vector_size_c == 8"));
        QCOMPARE(QString::fromStdString(asJson(page.jsonText()).value("where", std::string())),
                 QStringLiteral("c.tile_m == 64 and c.vector_size_c == 8"));
        QVERIFY(waitIdle(page));
        const KernelPool pool = corePool(page.jsonText(), QStringLiteral("sm_90"));
        QCOMPARE(page.legalCount(), int(pool.kernels.size()));
        QVERIFY(page.legalCount() > 0 && page.legalCount() < before);
        for (const auto& c : pool.kernels) QVERIFY(c.tile_m == 64 && c.vector_size_c == 8);
        QVERIFY(std::any_of(pool.culled.begin(), pool.culled.end(), [](const CulledConfig& c) {
            return std::any_of(c.reasons.begin(), c.reasons.end(),
                               [](const CullReason& r) { return r.rule == Rule::Where; });
        }));
        // A where that does not parse: the error names the field and the place, and the
        // counts stay those of the last good document.
        const int good = page.legalCount();
        QTest::keyClicks(where, QStringLiteral(" and"));
        QVERIFY(waitIdle(page));
        QVERIFY2(page.jsonError().contains(QStringLiteral(": where: filter")),
                 qPrintable(page.jsonError()));
        QCOMPARE(page.legalCount(), good);
        where->clear();
        QTest::keyClick(where, Qt::Key_Space);
        QTest::keyClick(where, Qt::Key_Backspace);
        QVERIFY(!asJson(page.jsonText()).contains("where"));
        QVERIFY(waitIdle(page));
        QCOMPARE(page.legalCount(),
                 int(corePool(page.jsonText(), QStringLiteral("sm_90")).kernels.size()));
        QVERIFY(page.legalCount() > before);
    }

    void editing_json_updates_the_form() {
        KernelsPage page;
        QVERIFY(page.openConfig(QStringLiteral(GCONV_TEST_SOURCE_DIR "/configs/bwd_weight.json")));
        for (int round = 0; round < 4; ++round) {
            auto doc = Json::parse(page.jsonText().toStdString());
            // A random non-empty ordered subset of pipelines and random split_k values.
            auto names = enum_names<Pipeline>();
            std::shuffle(names.begin(), names.end(), rng());
            names.resize(1 + rng()() % names.size());
            doc["trait_config"]["pipeline"]["values"] = names;
            Json splits = Json::array();
            for (int i = 0, n = 1 + int(rng()() % 3); i < n; ++i)
                splits.push_back(1 + int(rng()() % 64));
            doc["trait_config"]["split_k"]["values"] = splits;
            const QString text = QString::fromStdString(doc.dump(2));
            page.setJsonText(text);
            QVERIFY(page.isBusy()); // debounced, not applied on the keystroke
            QVERIFY(waitIdle(page));
            QVERIFY2(page.jsonError().isEmpty(), qPrintable(page.jsonError()));
            QCOMPARE(page.jsonText(), text); // the user's text is left alone
            QCOMPARE(page.form()->editor("pipeline")->values(), Json(names));
            QCOMPARE(page.form()->editor("split_k")->values(), splits);
            QCOMPARE(page.form()->document(), doc);
            const KernelPool pool = corePool(text, page.arch());
            QCOMPARE(page.legalCount(), int(pool.kernels.size()));
        }
    }

    void malformed_json_shows_line_and_column_and_keeps_the_last_good_state() {
        KernelsPage page;
        QVERIFY(
            page.openConfig(QStringLiteral(GCONV_TEST_SOURCE_DIR "/configs/forward_fp16.json")));
        QVERIFY(waitIdle(page));
        const int legal = page.legalCount();
        const Json form = page.form()->document();
        QStringList lines = page.jsonText().split(QLatin1Char('\n'));
        const int line = 2 + int(rng()() % std::max(1, int(lines.size()) - 4));
        lines[line - 1].prepend(QStringLiteral("@"));
        const QString broken = lines.join(QLatin1Char('\n'));
        page.setJsonText(broken);
        QVERIFY(waitIdle(page));
        QString expected;
        try {
            parse_trait_config(broken.toStdString(), page.documentName().toStdString());
        } catch (const Error& e) {
            expected = QString::fromStdString(e.what());
        }
        QVERIFY(!expected.isEmpty());
        QCOMPARE(page.jsonError(), expected);
        QVERIFY2(page.jsonError().contains(QStringLiteral("forward_fp16.json:%1:").arg(line)),
                 qPrintable(page.jsonError()));
        QCOMPARE(page.jsonErrorLine(), line);
        QCOMPARE(page.legalCount(), legal);
        QCOMPARE(page.form()->document(), form);
        QVERIFY(page.saveTo(QDir::tempPath() + QStringLiteral("/gconv_never_written.json")) ==
                false);

        // A value the schema rejects names the JSON path and the allowed values.
        auto doc = Json::parse(readFile(page.configPath()).toStdString());
        doc["trait_config"]["pipeline"]["values"].push_back("compv9");
        const QString bad = QString::fromStdString(formatTraitJson(doc));
        page.setJsonText(bad);
        QVERIFY(waitIdle(page));
        QVERIFY2(page.jsonError().contains(QStringLiteral("trait_config.pipeline.values[")),
                 qPrintable(page.jsonError()));
        QVERIFY(page.jsonError().contains(QStringLiteral("allowed:")));
        const int pipelineLine =
            int(bad.left(bad.indexOf(QStringLiteral("\"pipeline\""))).count(QLatin1Char('\n'))) + 1;
        QCOMPARE(page.jsonErrorLine(), pipelineLine);
        QCOMPARE(page.legalCount(), legal);

        // Fixing it clears the error.
        page.setJsonText(readFile(page.configPath()));
        QVERIFY(waitIdle(page));
        QVERIFY(page.jsonError().isEmpty());
    }

    void filter_counts_and_caret() {
        KernelsPage page;
        QAbstractItemModelTester kernels(page.kernelModel());
        QAbstractItemModelTester culled(page.culledModel());
        QAbstractItemModelTester proxy(page.kernelProxy());
        QVERIFY(
            page.openConfig(QStringLiteral(GCONV_TEST_SOURCE_DIR "/configs/forward_bf16.json")));
        QVERIFY(waitIdle(page));
        const int tileN = 32 << (rng()() % 3);
        const QString filter =
            QStringLiteral("c.tile_n >= %1 and c.pipeline != 'compv5'").arg(tileN);
        page.filterBox()->setText(filter);
        QVERIFY(!page.filterBox()->hasError());
        QVERIFY(waitIdle(page));
        FilterSet filters;
        filters.add(filter.toStdString());
        const KernelPool pool = corePool(readFile(page.configPath()), page.arch());
        const auto kept = apply_config_filter(pool.kernels, filters);
        QCOMPARE(page.filteredCount(), int(kept.size()));
        QCOMPARE(page.kernelModel()->rowCount(), int(kept.size()));
        QCOMPARE(page.legalCount(), int(pool.kernels.size()));
        QVERIFY(page.filteredCount() < page.legalCount());

        // An unknown field after a random valid prefix: the caret is under it.
        QString prefix;
        for (int i = 0, n = 1 + int(rng()() % 3); i < n; ++i)
            prefix += QStringLiteral("c.tile_m > %1 and ").arg(rng()() % 100);
        const QString bad = prefix + QStringLiteral("c.tile_q < 3");
        page.filterBox()->setText(bad);
        QVERIFY(page.filterBox()->hasError());
        QCOMPARE(page.filterBox()->errorColumn(), int(prefix.size()));
        QVERIFY(page.filterBox()->errorText().contains(QStringLiteral("tile_q")));
        QVERIFY(waitIdle(page));
        QCOMPARE(page.filteredCount(), int(kept.size())); // the last valid filter stays

        // Sorting through the proxy by a numeric column uses numbers.
        page.filterBox()->setText(QString());
        QVERIFY(waitIdle(page));
        const int tileColumn = 3;
        QCOMPARE(page.kernelModel()->headerData(tileColumn, Qt::Horizontal).toString(),
                 QStringLiteral("tile"));
        page.kernelProxy()->sort(tileColumn, Qt::DescendingOrder);
        for (int r = 1; r < page.kernelProxy()->rowCount(); ++r)
            QVERIFY(
                page.kernelProxy()
                    ->index(r - 1, tileColumn)
                    .data(PoolTableModel::SortRole)
                    .toDouble() >=
                page.kernelProxy()->index(r, tileColumn).data(PoolTableModel::SortRole).toDouble());
        // Every culled row lists its reasons.
        for (int r = 0; r < std::min(50, page.culledModel()->rowCount()); ++r)
            QVERIFY(!page.culledModel()->index(r, 2).data().toString().isEmpty());
    }

    void save_and_reopen_round_trip() {
        QTemporaryDir dir;
        KernelsPage page;
        QVERIFY(page.openConfig(QStringLiteral(GCONV_TEST_SOURCE_DIR "/configs/bwd_data.json")));
        auto* gm = checkable(page, "num_groups_to_merge");
        const int value = 1 << (1 + rng()() % 3);
        gm->setChecked(value, !gm->isChecked(value));
        QVERIFY(page.isModified());
        const QString path = dir.filePath(QStringLiteral("saved.json"));
        QSignalSpy changed(&page, &KernelsPage::configChanged);
        QVERIFY(page.saveTo(path));
        QVERIFY(!page.isModified());
        QCOMPARE(changed.count(), 1);
        QCOMPARE(page.configPath(), QFileInfo(path).absoluteFilePath());
        QCOMPARE(readFile(path), page.jsonText());
        QVERIFY(waitIdle(page));

        KernelsPage reopened;
        reopened.setArch(page.arch());
        QVERIFY(reopened.openConfig(path));
        QVERIFY(waitIdle(reopened));
        QCOMPARE(reopened.form()->document(), page.form()->document());
        QCOMPARE(reopened.legalCount(), page.legalCount());
        QCOMPARE(reopened.jsonText(), page.jsonText());
    }

    void maybe_save_asks_only_when_modified() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("cfg.json"));
        QVERIFY(
            QFile::copy(QStringLiteral(GCONV_TEST_SOURCE_DIR "/configs/forward_fp32.json"), path));
        KernelsPage page;
        int asked = 0;
        QMessageBox::StandardButton answer = QMessageBox::Cancel;
        page.setSavePrompt([&](const QString& name) {
            ++asked;
            [&] { QCOMPARE(name, QStringLiteral("cfg.json")); }();
            return answer;
        });
        QVERIFY(page.openConfig(path));
        QVERIFY(page.maybeSave());
        QCOMPARE(asked, 0);

        checkable(page, "scheduler")
            ->setChecked(std::string("interwave"),
                         !checkable(page, "scheduler")->isChecked(std::string("interwave")));
        QVERIFY(page.isModified());
        answer = QMessageBox::Cancel;
        QVERIFY(!page.maybeSave());
        QCOMPARE(asked, 1);
        QVERIFY(page.isModified());
        answer = QMessageBox::Discard;
        QVERIFY(page.maybeSave());
        QCOMPARE(asked, 2);
        QVERIFY(page.isModified()); // discarding is the caller's business (it closes / opens)
        answer = QMessageBox::Save;
        QVERIFY(page.maybeSave());
        QCOMPARE(asked, 3);
        QVERIFY(!page.isModified());
        QCOMPARE(readFile(path), page.jsonText());

        // Typing in the JSON marks it modified; typing it back clears it.
        const QString saved = page.jsonText();
        page.setJsonText(saved + QStringLiteral(" "));
        QVERIFY(page.isModified());
        page.setJsonText(saved);
        QVERIFY(!page.isModified());
        QVERIFY(waitIdle(page));
    }

    void tile_table_edits_reach_the_json() {
        KernelsPage page;
        QVERIFY(
            page.openConfig(QStringLiteral(GCONV_TEST_SOURCE_DIR "/configs/forward_bf16.json")));
        auto* tiles = qobject_cast<TileTableEditor*>(page.form()->editor("tile"));
        QVERIFY(tiles);
        const int before = int(asJson(page.jsonText())["trait_config"]["tile"]["values"].size());
        const int m = 16 << (rng()() % 4), n = 16 << (rng()() % 4), k = 16 << (rng()() % 3);
        tiles->addTile(m, n, k);
        auto values = asJson(page.jsonText())["trait_config"]["tile"]["values"];
        QCOMPARE(int(values.size()), before + 1);
        QCOMPARE(values.back(), (nlohmann::json{{"m", m}, {"n", n}, {"k", k}}));
        tiles->removeRows({0});
        values = asJson(page.jsonText())["trait_config"]["tile"]["values"];
        QCOMPARE(int(values.size()), before);
        QVERIFY(waitIdle(page));
        QCOMPARE(page.legalCount(), int(corePool(page.jsonText(), page.arch()).kernels.size()));
    }

    // With GCONV_SCREENSHOT_DIR set, saves a picture of the page on a shipped config.
    void screenshot() {
        const QString dir = qEnvironmentVariable("GCONV_SCREENSHOT_DIR");
        if (dir.isEmpty()) QSKIP("set GCONV_SCREENSHOT_DIR to save a screenshot");
        KernelsPage page;
        page.resize(1600, 900);
        QVERIFY(
            page.openConfig(QStringLiteral(GCONV_TEST_SOURCE_DIR "/configs/forward_bf16.json")));
        page.filterBox()->setText(QStringLiteral("c.tile_n >= 128 and c.tile_q > 1"));
        page.show();
        QVERIFY(waitIdle(page));
        QVERIFY(page.grab().save(dir + QStringLiteral("/kernels_page.png")));
    }
};

QTEST_MAIN(TestKernelsPage)
#include "tst_kernels_page.moc"
