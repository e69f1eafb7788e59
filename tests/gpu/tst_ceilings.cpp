// gconv-worker --ceilings' measurement on a real device, small sizes so that it runs in a
// moment: both copies are checked against their source inside measure_ceilings, so a figure
// present means a copy that moved the right bytes. Skips where no device is visible.
#include "gpu/device.h"
#include "worker/ceilings.h"

#include <QRandomGenerator>
#include <QtTest>

using namespace gconv;

class TestCeilings : public QObject {
    Q_OBJECT

private slots:
    void measuresBothCopiesAndKeepsTheHigher() {
        if (gpu::device_count() == 0) QSKIP("no GPU device visible");
        worker::CeilingOptions o;
        // Sizes drawn per run (whole 4 KiB pages, 16 to 80 MiB): no size the code could
        // special-case.
        o.copy_bytes =
            (std::size_t(16) << 20) + QRandomGenerator::global()->bounded(1 << 14) * 4096;
        o.matmul_size = 512 + 128 * QRandomGenerator::global()->bounded(5);
        o.copy_repeat = 3;
        o.matmul_repeat = 3;
        const worker::Ceilings c = worker::measure_ceilings(o);
        QVERIFY2(c.memcpy_gbps && *c.memcpy_gbps > 0, c.notes.c_str());
        QVERIFY2(c.copy_kernel_gbps && *c.copy_kernel_gbps > 0, c.notes.c_str());
        QCOMPARE(*c.copy_gbps, std::max(*c.memcpy_gbps, *c.copy_kernel_gbps));
        QVERIFY(c.copy_bytes > 0 && c.copy_bytes <= o.copy_bytes && c.copy_bytes % 4096 == 0);
        // The launch floor: a tiny launch takes some time, and less than moving the whole copy
        // buffer at the measured rate would.
        QVERIFY2(c.launch_floor_ms && *c.launch_floor_ms > 0, c.notes.c_str());
        QVERIFY(*c.launch_floor_ms < 2.0 * double(c.copy_bytes) / (*c.copy_gbps * 1e6));
        // No BLAS is allowed (the figure is then null), but then the notes must say why.
        if (c.matmul_bf16_tflops)
            QVERIFY(*c.matmul_bf16_tflops > 0);
        else
            QVERIFY(!c.notes.empty());

        const nlohmann::json j = worker::ceilings_to_json(c);
        QCOMPARE(j.at("copy_gbps").get<double>(), *c.copy_gbps);
        QCOMPARE(j.at("launch_floor_ms").get<double>(), *c.launch_floor_ms);
        QCOMPARE(j.at("matmul_bf16_tflops").is_null(), !c.matmul_bf16_tflops.has_value());
        QVERIFY(j.at("how").get<std::string>().find(std::to_string(o.matmul_size)) !=
                std::string::npos);
    }

    void missingFiguresAreNullInTheJson() {
        worker::Ceilings c;
        c.copy_gbps = 1000.0 + QRandomGenerator::global()->bounded(4000);
        c.notes = "no cuBLAS";
        const nlohmann::json j = worker::ceilings_to_json(c);
        QVERIFY(j.at("matmul_bf16_tflops").is_null());
        QVERIFY(j.at("memcpy_gbps").is_null());
        QCOMPARE(j.at("copy_gbps").get<double>(), *c.copy_gbps);
        QVERIFY(j.at("launch_floor_ms").is_null());
        QCOMPARE(j.at("notes").get<std::string>(), c.notes);
    }
};

QTEST_APPLESS_MAIN(TestCeilings)
#include "tst_ceilings.moc"
