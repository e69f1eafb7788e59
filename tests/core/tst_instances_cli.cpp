// gconv-instances as a user runs it: output formats, exit codes and messages.
#include "test_paths.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

class TestInstancesCli : public QObject {
    Q_OBJECT

    struct Result {
        int code;
        QString out;
        QString err;
    };

    Result run(const QStringList& args) {
        QProcess p;
        p.start(gconv::test::tool_path("gconv-instances"), args);
        if (!p.waitForFinished(60000)) return {-1, {}, "did not finish"};
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }
    QString config(const char* name) {
        return gconv::test::source_path(QString("configs/") + name);
    }

private slots:
    void count_list_and_export_agree() {
        const auto count = run({config("forward_bf16.json"), "--arch", "sm_90", "--count-only"});
        QCOMPARE(count.code, 0);
        const int n = count.out.trimmed().toInt();
        QVERIFY(n > 100);

        const auto list = run({config("forward_bf16.json"), "--arch", "sm_90", "--list"});
        QCOMPARE(list.code, 0);
        const QStringList lines = list.out.trimmed().split('\n');
        QCOMPARE(lines.size(), n);
        QRegularExpression line_re("^\\[(\\d+)\\] (grouped_conv_forward_bf16_2d_\\S+)$");
        for (int i = 0; i < lines.size(); ++i) {
            auto m = line_re.match(lines[i]);
            QVERIFY2(m.hasMatch(), qPrintable(lines[i]));
            QCOMPARE(m.captured(1).toInt(), i);
        }

        QTemporaryDir dir;
        const QString path = dir.filePath("k.json");
        QCOMPARE(run({config("forward_bf16.json"), "--arch", "sm_90", "--export-json", path}).code,
                 0);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto doc = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(doc["metadata"].toObject()["arch"].toString(), QString("sm_90"));
        const auto kernels = doc["kernels"].toArray();
        QCOMPARE(kernels.size(), n);
        const auto first = kernels[0].toObject();
        for (const char* key :
             {"name", "tile_m", "wave_m", "warp_tile_k", "pipeline", "scheduler",
              "double_smem_buffer", "split_image", "runtime_filter", "channel_pad",
              "num_groups_to_merge", "vector_size_a", "split_k", "epilogue"})
            QVERIFY2(first.contains(key), key);
        QCOMPARE(first["name"].toString(), lines[0].section(' ', 1));
    }

    void filter_narrows_the_pool() {
        const auto all =
            run({config("forward_bf16.json"), "--arch", "sm_90", "--count-only"}).out.toInt();
        const auto some = run({config("forward_bf16.json"), "--arch", "sm_90", "--count-only",
                               "--filter", "c.tile_n >= 128 and c.pipeline == 'compv5'"});
        QCOMPARE(some.code, 0);
        QVERIFY(some.out.toInt() > 0 && some.out.toInt() < all);
        const auto listed = run({config("forward_bf16.json"), "--arch", "sm_90", "--list",
                                 "--filter", "c.tile_n >= 128 and c.pipeline == 'compv5'"});
        for (const auto& line : listed.out.trimmed().split('\n'))
            QVERIFY2(line.contains("_compv5_"), qPrintable(line));
    }

    void explain_gives_a_reason_per_culled_config() {
        const auto r = run({config("forward_bf16.json"), "--arch", "gfx942", "--explain"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("scheduler_pipeline: interwave scheduling pairs only with basic_v1, "
                               "mem and the wgmma pipeline"));
        QVERIFY(r.out.contains(" culled of "));
    }

    void bad_input_gives_a_clear_message_and_nonzero_exit() {
        auto r = run({config("forward_bf16.json"), "--arch", "sm_90", "--filter", "c.tile_n >= "});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains('^'), qPrintable(r.err));
        r = run({config("forward_bf16.json"), "--arch", "sm_99"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("unknown architecture 'sm_99'") && r.err.contains("gfx950"),
                 qPrintable(r.err));
        r = run({config("forward_bf16.json"), "--arch", "sm_90", "--bogus"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("unknown option --bogus"), qPrintable(r.err));
        r = run({"/nonexistent/config.json", "--arch", "sm_90"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("/nonexistent/config.json"), qPrintable(r.err));
        r = run({config("forward_bf16.json")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("--arch is required"), qPrintable(r.err));
        QTemporaryDir dir;
        QFile bad(dir.filePath("bad.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"variant\": \"forward\",\n \"trait_config\": {\"pipeline\": {\"values\": "
                  "[\"compv7\"]}}}");
        bad.close();
        r = run({bad.fileName(), "--arch", "sm_90"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("bad.json") && r.err.contains("trait_config.pipeline.values[0]") &&
                     r.err.contains("compv7"),
                 qPrintable(r.err));
    }

    void help_documents_every_option() {
        const auto r = run({"--help"});
        QCOMPARE(r.code, 0);
        for (const char* opt : {"--arch", "--count-only", "--list", "--export-json", "--filter",
                                "--filter-file", "--explain"})
            QVERIFY2(r.out.contains(opt), opt);
    }
};

QTEST_APPLESS_MAIN(TestInstancesCli)
#include "tst_instances_cli.moc"
