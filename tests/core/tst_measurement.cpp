// What the worker derives from raw timings and outputs: statistics, the storage-type
// conversions, and the verification verdict (poisoned or wrong outputs must fail).
#include "sweep/measurement.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <random>

using namespace gconv;

class TestMeasurement : public QObject {
    Q_OBJECT

private slots:
    void timing_statistics() {
        const auto s = summarize_timings({1.0f, 2.0f, 3.0f, 10.0f});
        QCOMPARE(s.mean_ms, 4.0);
        QCOMPARE(s.median_ms, 2.5);
        QCOMPARE(s.min_ms, 1.0);
        // deviations -3, -2, -1, 6: sample variance 50 / 3
        QVERIFY(std::fabs(s.cv - std::sqrt(50.0 / 3.0) / 4.0) < 1e-9);
        QCOMPARE(summarize_timings({5.0f}).cv, 0.0);
    }

    void bf16_and_fp16_round_trip_and_round_to_nearest_even() {
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> u(-1000.0f, 1000.0f);
        for (int i = 0; i < 10000; ++i) {
            const float x = u(rng);
            QVERIFY(std::fabs(bf16_to_float(float_to_bf16(x)) - x) <= std::fabs(x) * (1.0f / 256));
            QVERIFY(std::fabs(fp16_to_float(float_to_fp16(x)) - x) <=
                    std::fabs(x) * (1.0f / 2048) + 1e-7f);
        }
        // 1 + 2^-8 lies halfway between two bf16 values: ties go to the even mantissa (1.0).
        QCOMPARE(bf16_to_float(float_to_bf16(1.0f + 1.0f / 256)), 1.0f);
        QCOMPARE(fp16_to_float(float_to_fp16(65504.0f)), 65504.0f);
        QVERIFY(std::isinf(fp16_to_float(float_to_fp16(1e6f))));
        QCOMPARE(fp16_to_float(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
        QVERIFY(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
    }

    void verification_passes_rounded_outputs_and_fails_wrong_ones() {
        std::mt19937 rng(5);
        std::normal_distribution<float> n(0.0f, 3.0f);
        std::vector<float> ref(4096);
        for (auto& r : ref) r = n(rng);
        std::vector<uint16_t> bf(ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i) bf[i] = float_to_bf16(ref[i]);
        auto v = verify_output(bf.data(), ref.data(), ref.size(), DataType::BF16);
        QVERIFY(v.passed);
        QVERIFY(v.non_zero);
        QVERIFY(v.max_rel_err < verification_tolerance(DataType::BF16));

        auto wrong = bf;
        wrong[1234] = float_to_bf16(ref[1234] + 1.0f);
        v = verify_output(wrong.data(), ref.data(), ref.size(), DataType::BF16);
        QVERIFY(!v.passed);
        QCOMPARE(v.mismatches, std::size_t(1));

        auto unwritten = bf;
        unwritten[7] = 0x7fc1; // the poison pattern is a NaN
        v = verify_output(unwritten.data(), ref.data(), ref.size(), DataType::BF16);
        QVERIFY(!v.passed);
        QCOMPARE(v.nan_count, std::size_t(1));
        QVERIFY(std::isnan(v.max_rel_err));

        std::vector<float> f32(ref);
        QVERIFY(verify_output(f32.data(), ref.data(), ref.size(), DataType::FP32).passed);
        f32[0] += 1e-2f;
        QVERIFY(!verify_output(f32.data(), ref.data(), ref.size(), DataType::FP32).passed);

        std::vector<uint16_t> h(ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i) h[i] = float_to_fp16(ref[i]);
        QVERIFY(verify_output(h.data(), ref.data(), ref.size(), DataType::FP16).passed);
    }

    void large_outputs_are_checked_in_parallel_with_the_same_verdict() {
        std::mt19937 rng(9);
        std::normal_distribution<float> n(0.0f, 1.0f);
        std::vector<float> ref(std::size_t(5) << 20);
        for (auto& r : ref) r = n(rng);
        std::vector<uint16_t> out(ref.size());
        for (std::size_t i = 0; i < ref.size(); ++i) out[i] = float_to_bf16(ref[i]);
        const double scale = reference_scale(ref.data(), ref.size());
        auto v = verify_output(out.data(), ref.data(), ref.size(), DataType::BF16, scale);
        QVERIFY(v.passed);
        QCOMPARE(v.ref_max_abs, scale);
        // One wrong element in each of the last and first chunks, and one NaN in the middle.
        out.back() = float_to_bf16(ref.back() + 2.0f);
        out.front() = float_to_bf16(ref.front() - 2.0f);
        out[ref.size() / 2] = 0x7fc1;
        v = verify_output(out.data(), ref.data(), ref.size(), DataType::BF16, scale);
        QVERIFY(!v.passed);
        QCOMPARE(v.mismatches, std::size_t(2));
        QCOMPARE(v.nan_count, std::size_t(1));
    }

    void an_all_zero_reference_cannot_pass() {
        std::vector<float> ref(64, 0.0f), out(64, 0.0f);
        QVERIFY(!verify_output(out.data(), ref.data(), ref.size(), DataType::FP32).passed);
    }

    // The worker verifies on the GPU and hands the host only a tally: the verdict from the
    // tally must follow the same rules as the host check.
    void a_tally_gives_the_verdict_of_the_host_check() {
        std::mt19937 rng(4242);
        std::uniform_real_distribution<float> u(-3.f, 3.f);
        const double scale = 2.5 + u(rng) * 0.1;
        gconv::VerificationTally t;
        t.max_abs_err = float(gconv::verification_limit(gconv::DataType::BF16, scale) * 0.5);
        t.non_zero = 7;
        auto v = gconv::verification_from_tally(t, 100, scale);
        QVERIFY(v.passed);
        QVERIFY(v.non_zero);
        QCOMPARE(v.max_rel_err, double(t.max_abs_err) / scale);
        QVERIFY(v.max_rel_err < gconv::verification_tolerance(gconv::DataType::BF16));

        gconv::VerificationTally off = t;
        off.off = 1;
        QVERIFY(!gconv::verification_from_tally(off, 100, scale).passed);

        gconv::VerificationTally unwritten = t;
        unwritten.non_finite = 3;
        v = gconv::verification_from_tally(unwritten, 100, scale);
        QVERIFY(!v.passed);
        QVERIFY(std::isnan(v.max_rel_err));
        QCOMPARE(v.nan_count, std::size_t(3));

        QVERIFY(!gconv::verification_from_tally(t, 100, 0.0).passed);
        QVERIFY(!gconv::verification_from_tally(t, 0, scale).passed);
        QCOMPARE(gconv::verification_limit(gconv::DataType::FP16, 0.0),
                 gconv::verification_tolerance(gconv::DataType::FP16));
    }
};

QTEST_APPLESS_MAIN(TestMeasurement)
#include "tst_measurement.moc"
