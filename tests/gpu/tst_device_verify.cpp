// The worker's on-device verification (gconv_verify / gconv_abs_max of the reference module)
// against the host check of core/sweep/measurement on the same data: random outputs near a
// random reference, with planted errors, NaN and unwritten (poisoned) elements. Skips without
// a device.
#include "codegen/kernel_source.h"
#include "gpu/buffer.h"
#include "gpu/context.h"
#include "gpu/device.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "jit/cache.h"
#include "jit/compiler.h"
#include "sweep/measurement.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <random>
#include <span>

using namespace gconv;

namespace {

std::vector<uint16_t> to_half_bits(const std::vector<float>& v, DataType dtype) {
    std::vector<uint16_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i)
        out[i] = dtype == DataType::BF16 ? float_to_bf16(v[i]) : float_to_fp16(v[i]);
    return out;
}

float bits_as_float(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

} // namespace

class TestDeviceVerify : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        if (gpu::device_count() == 0) QSKIP("no GPU device visible");
        gpu::make_context_current(0);
        info_ = gpu::query(0);
        QVERIFY(cache_dir_.isValid());
    }

    void deviceTallyMatchesHostCheck_data() {
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("planted"); // 0 clean, 1 large errors, 2 NaN, 3 poison
        for (DataType d : {DataType::BF16, DataType::FP16, DataType::FP32})
            for (int planted = 0; planted < 4; ++planted)
                QTest::addRow("%s/%d", std::string(to_string(d)).c_str(), planted)
                    << int(d) << planted;
    }

    void deviceTallyMatchesHostCheck() {
        QFETCH(int, dtype);
        QFETCH(int, planted);
        const DataType type = DataType(dtype);
        jit::KernelCache cache(cache_dir_.path().toStdString());
        jit::CompileRequest request;
        request.name = "gconv_reference.hip";
        request.source = generate_reference_source(type);
        request.headers = jit::embedded_headers();
        request.arch = info_.arch;
        const auto compiled = jit::compile_cached(cache, jit::native_toolchain(), request);
        QVERIFY2(compiled.ok, compiled.log.c_str());
        gpu::Module module(compiled.code);
        gpu::Kernel verify = module.function(std::string(reference_entry::verify));
        gpu::Kernel abs_max = module.function(std::string(reference_entry::abs_max));

        std::mt19937 rng(1000 + dtype * 10 + planted);
        const size_t n = 300000 + rng() % 100000; // not a multiple of the block
        std::uniform_real_distribution<float> u(-4.f, 4.f);
        std::vector<float> reference(n), output(n);
        for (size_t i = 0; i < n; ++i) {
            reference[i] = u(rng);
            output[i] = reference[i] * (1.f + 1e-4f * u(rng) / 4.f);
        }
        const size_t where = rng() % n;
        if (planted == 1)
            for (int k = 0; k < 5; ++k) output[(where + k * 997) % n] += 1.5f;
        if (planted == 2) output[where] = std::nanf("");

        const size_t elem = type == DataType::FP32 ? 4 : 2;
        std::vector<char> bytes(n * elem);
        if (type == DataType::FP32) {
            std::memcpy(bytes.data(), output.data(), bytes.size());
        } else {
            const auto bits16 = to_half_bits(output, type);
            std::memcpy(bytes.data(), bits16.data(), bytes.size());
        }
        gpu::DeviceBuffer out_d(bytes.size()), ref_d(n * 4), tally_d(16);
        out_d.upload(std::span<const char>(bytes));
        ref_d.upload(std::span<const float>(reference));
        gpu::Stream stream;
        if (planted == 3) { // the kernel under test never wrote a stretch: poison stays
            gpu::Kernel poison = module.function(std::string(reference_entry::fill_poison));
            gpu::KernelArgs args;
            args.add(static_cast<char*>(out_d.data()) + where / 2 * elem).add((long long)17);
            gpu::LaunchConfig one;
            one.grid = {1, 1, 1};
            one.block = {64, 1, 1};
            one.stream = stream.get();
            gpu::launch(poison, one, args);
            stream.synchronize();
            out_d.download(std::span<char>(bytes));
        }

        gpu::LaunchConfig grid;
        grid.grid = {unsigned(info_.sm_count * 4), 1, 1};
        grid.block = {256, 1, 1};
        grid.stream = stream.get();
        auto run_tally = [&](gpu::Kernel& k, auto&& add) {
            tally_d.fill_bytes(0);
            gpu::KernelArgs args;
            add(args);
            args.add(tally_d.as<unsigned>());
            gpu::launch(k, grid, args);
            stream.synchronize();
            std::array<uint32_t, 4> t{};
            tally_d.download(std::span<uint32_t>(t));
            return t;
        };
        const auto scale_bits = run_tally(abs_max, [&](gpu::KernelArgs& a) {
            a.add(static_cast<const float*>(ref_d.as<float>())).add((long long)n);
        });
        const double scale = bits_as_float(scale_bits[0]);
        QCOMPARE(scale, reference_scale(reference.data(), n));

        const float limit = float(verification_limit(type, scale));
        const auto t = run_tally(verify, [&](gpu::KernelArgs& a) {
            a.add(static_cast<const void*>(out_d.data()))
                .add(static_cast<const float*>(ref_d.as<float>()))
                .add((long long)n)
                .add(limit);
        });
        VerificationTally counted{bits_as_float(t[0]), t[1], t[2], t[3]};
        const Verification device = verification_from_tally(counted, n, scale);
        const Verification host = verify_output(bytes.data(), reference.data(), n, type, scale);

        QCOMPARE(device.passed, host.passed);
        QCOMPARE(device.nan_count, host.nan_count);
        QCOMPARE(device.mismatches, host.mismatches);
        QCOMPARE(device.non_zero, host.non_zero);
        if (host.nan_count == 0)
            QVERIFY(std::abs(device.max_abs_err - host.max_abs_err) <= 1e-6 * scale);
        QCOMPARE(device.passed, planted == 0);
        if (planted == 3) QCOMPARE(device.nan_count, size_t(17));
    }

private:
    gpu::DeviceInfo info_;
    QTemporaryDir cache_dir_;
};

QTEST_APPLESS_MAIN(TestDeviceVerify)
#include "tst_device_verify.moc"
