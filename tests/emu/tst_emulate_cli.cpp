// gconv-emulate's command line: a kernel by name verified on a problem file, the summary and
// exit status, and the refusals (no kernel, a kernel of another direction, an unknown set).
#include "test_paths.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run {
    int code = -1;
    QString out, err;
};

Run emulate(const QStringList& args, const QString& work) {
    QProcess p;
    p.start(gconv::test::tool_path("gconv-emulate"), QStringList(args) << "--work-dir" << work);
    if (!p.waitForFinished(600000)) return {};
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

// Two small depthwise problems, a 3x3 and a 5x5 with stride 2.
const char* k_problems = R"({"key": "cli_dw", "direction": "forward", "problems": [
 {"N": 1, "C": 16, "K": 16, "G": 16, "Hi": 9, "Wi": 12, "Y": 3, "X": 3, "pad_h": 1, "pad_w": 1},
 {"N": 1, "C": 8, "K": 8, "G": 8, "Hi": 11, "Wi": 11, "Y": 5, "X": 5, "pad_h": 2, "pad_w": 2,
  "stride_h": 2, "stride_w": 2}]})";

const char* k_kernel =
    "grouped_conv_forward_bf16_2d_512x8x1_direct_intrawave_w4x1x1_wt16x8x16_v8x8x8";

} // namespace

class TestEmulateCli : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString problems_;

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        problems_ = dir_.filePath("cli_dw.json");
        QFile f(problems_);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(k_problems);
    }

    void a_kernel_passes_on_every_problem() {
        const Run r = emulate({"--kernel", k_kernel, "--problems-file", problems_}, dir_.path());
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out.count(QStringLiteral("PASS  ")), 2);
        QVERIFY2(r.out.contains("gconv_direct_k3  ") && r.out.contains("gconv_direct_k5_s2  "),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("2 passed, 0 failed"), qPrintable(r.out));
    }

    // The same tile reading the filter size at run time (runtime_filter): one entry per stride
    // serves the 3x3 and the strided 5x5.
    void a_runtime_filter_kernel_passes_through_its_two_entries() {
        const Run r = emulate({"--kernel", QString(k_kernel) + "_kx", "--problems-file", problems_},
                              dir_.path());
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out.count(QStringLiteral("PASS  ")), 2);
        QVERIFY2(r.out.contains("gconv_direct_kx  ") && r.out.contains("gconv_direct_kx_s2  "),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("2 passed, 0 failed"), qPrintable(r.out));
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        QTest::newRow("no kernel") << QStringList{"--problems", "forward_2d_test_validation"} << 2
                                   << "give one CONFIG or --kernel";
        QTest::newRow("no problems")
            << QStringList{"--kernel", k_kernel} << 2 << "--problems and --problems-file";
        QTest::newRow("direction")
            << QStringList{"--kernel", QString(k_kernel).replace("forward", "bwd_data"),
                           "--problems", "forward_2d_test_validation"}
            << 1 << "is not a forward kernel";
        QTest::newRow("unknown set")
            << QStringList{"--kernel", k_kernel, "--problems", "nope_set"} << 1 << "nope_set";
    }
    void refusals() {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        const Run r = emulate(args, dir_.path());
        QCOMPARE(r.code, code);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }
};

QTEST_APPLESS_MAIN(TestEmulateCli)
#include "tst_emulate_cli.moc"
