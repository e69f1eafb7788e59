// The worker's GPU reference kernels (gconv_ref_forward / bwd_data / bwd_weight, fp32
// accumulation) against a CPU direct convolution accumulating in double, for every direction
// and data type, on small random 2D and 3D shapes with stride, padding, dilation and groups.
// The tolerance is the worst-case rounding bound of an fp32 sum of n products,
// (n + 2) * 2^-24 * sum |a * b| per element: any indexing mistake is far outside it.
// Skips without a device.
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"
#include "gpu/buffer.h"
#include "gpu/context.h"
#include "gpu/device.h"
#include "gpu/module.h"
#include "jit/cache.h"
#include "jit/compiler.h"
#include "problem/host_convolution.h"
#include "problem/problem.h"
#include "sweep/measurement.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <span>

using namespace gconv;

namespace {

int pick(std::mt19937_64& rng, int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
}

Problem random_problem(int ndim, std::mt19937_64& rng) {
    for (;;) {
        Problem p;
        p.ndim_spatial = ndim;
        p.G = pick(rng, 1, 4);
        p.C = p.G * pick(rng, 1, 6);
        p.K = p.G * pick(rng, 1, 6);
        p.N = pick(rng, 1, 3);
        p.Hi = pick(rng, 3, 10), p.Wi = pick(rng, 3, 10);
        p.Y = pick(rng, 1, 3), p.X = pick(rng, 1, 3);
        p.stride_h = pick(rng, 1, 3), p.stride_w = pick(rng, 1, 3);
        p.pad_h = pick(rng, 0, 2), p.pad_w = pick(rng, 0, 2);
        p.dilation_h = pick(rng, 1, 2), p.dilation_w = pick(rng, 1, 2);
        if (ndim == 3) {
            p.Di = pick(rng, 2, 6), p.Z = pick(rng, 1, 3);
            p.stride_d = pick(rng, 1, 2), p.pad_d = pick(rng, 0, 1), p.dilation_d = pick(rng, 1, 2);
        }
        if (validate(p).empty() && p.Do() > 0 && p.Ho() > 0 && p.Wo() > 0) return p;
    }
}

std::string_view entry_for(Variant v) {
    return v == Variant::Forward   ? reference_entry::forward
           : v == Variant::BwdData ? reference_entry::bwd_data
                                   : reference_entry::bwd_weight;
}

QString describe(const Problem& p) {
    return QString::fromStdString(p.key());
}

} // namespace

class TestReference : public QObject {
    Q_OBJECT

    QTemporaryDir cache_dir_;
    gpu::DeviceInfo info_;
    std::map<DataType, std::unique_ptr<gpu::Module>> modules_;
    quint64 seed_ = 0;

    gpu::Module& module(DataType dtype) {
        auto& slot = modules_[dtype];
        if (!slot) {
            const jit::KernelCache cache(cache_dir_.path().toStdString());
            jit::CompileRequest request;
            request.name = "gconv_reference.hip";
            request.source = generate_reference_source(dtype);
            request.headers = jit::embedded_headers();
            request.arch = info_.arch;
            const auto compiled = jit::compile_cached(cache, jit::native_toolchain(), request);
            if (!compiled.ok) qFatal("reference kernels do not compile: %s", compiled.log.c_str());
            slot = std::make_unique<gpu::Module>(compiled.code);
        }
        return *slot;
    }

private slots:
    void initTestCase() {
        if (gpu::device_count() == 0) QSKIP("no GPU device visible");
        QVERIFY(cache_dir_.isValid());
        gpu::make_context_current(0);
        info_ = gpu::query(0);
        seed_ = QRandomGenerator::global()->generate64();
        qInfo("seed %llu", static_cast<unsigned long long>(seed_));
    }

    void matchesCpuConvolution_data() {
        QTest::addColumn<int>("variant");
        QTest::addColumn<int>("dtype");
        QTest::addColumn<int>("ndim");
        QTest::addColumn<int>("shape");
        for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight})
            for (DataType d : {DataType::BF16, DataType::FP16, DataType::FP32})
                for (int ndim : {2, 3})
                    for (int shape = 0; shape < 3; ++shape)
                        QTest::addRow("%s/%s/%dd/%d", std::string(to_string(v)).c_str(),
                                      std::string(to_string(d)).c_str(), ndim, shape)
                            << int(v) << int(d) << ndim << shape;
    }

    void matchesCpuConvolution() {
        QFETCH(int, variant);
        QFETCH(int, dtype);
        QFETCH(int, ndim);
        QFETCH(int, shape);
        const Variant dir = Variant(variant);
        const DataType type = DataType(dtype);
        std::mt19937_64 rng(seed_ + quint64(variant * 1000 + dtype * 100 + ndim * 10 + shape));
        const Problem p = random_problem(ndim, rng);

        const HostTensor in = random_tensor(std::size_t(p.input_elements()), type, rng);
        const HostTensor wei = random_tensor(std::size_t(p.weight_elements()), type, rng);
        const HostTensor out = random_tensor(std::size_t(p.output_elements()), type, rng);
        const HostResult expected = host_convolution(p, dir, in.values, wei.values, out.values);
        const std::size_t n = expected.value.size();

        gpu::DeviceBuffer in_d(in.bytes.size()), wei_d(wei.bytes.size()), out_d(out.bytes.size());
        in_d.upload(std::span<const char>(in.bytes));
        wei_d.upload(std::span<const char>(wei.bytes));
        out_d.upload(std::span<const char>(out.bytes));
        gpu::DeviceBuffer result_d(n * sizeof(float));
        result_d.fill_bytes(0xFF); // NaN: an element the kernel skips fails below

        gpu::Kernel kernel = module(type).function(std::string(entry_for(dir)));
        gpu::KernelArgs args;
        args.add(make_params(p, in_d.data(), wei_d.data(), out_d.data())).add(result_d.as<float>());
        // The kernels loop grid-stride: a few small blocks cover any size.
        gpu::LaunchConfig launch;
        launch.grid = {unsigned(pick(rng, 1, 8)), 1, 1};
        launch.block = {unsigned(64 * pick(rng, 1, 4)), 1, 1};
        gpu::launch(kernel, launch, args);
        GCONV_HIP_CHECK(hipDeviceSynchronize());
        std::vector<float> result(n);
        result_d.download(std::span<float>(result));

        std::size_t wrong = 0, non_zero = 0, first_wrong = n;
        double worst = 0.0; // largest error as a share of its bound
        for (std::size_t i = 0; i < n; ++i) {
            const double bound =
                (expected.terms[i] + 2) * std::ldexp(1.0, -24) * expected.abs_sum[i];
            const double err = std::abs(double(result[i]) - expected.value[i]);
            if (!(err <= bound)) {
                if (first_wrong == n) first_wrong = i;
                ++wrong;
            } else if (bound > 0) {
                worst = std::max(worst, err / bound);
            }
            non_zero += expected.value[i] != 0.0;
        }
        qInfo("%s: %zu elements, worst error %.3f of its bound", qPrintable(describe(p)), n, worst);
        QVERIFY2(non_zero > 0, qPrintable(describe(p) + ": every expected element is zero"));
        QVERIFY2(wrong == 0,
                 qPrintable(QString("%1: %2 of %3 elements off; first at %4: GPU %5, CPU %6")
                                .arg(describe(p))
                                .arg(wrong)
                                .arg(n)
                                .arg(first_wrong)
                                .arg(double(result[std::min(first_wrong, n - 1)]), 0, 'g', 9)
                                .arg(expected.value[std::min(first_wrong, n - 1)], 0, 'g', 9)));
    }
};

QTEST_APPLESS_MAIN(TestReference)
#include "tst_reference.moc"
