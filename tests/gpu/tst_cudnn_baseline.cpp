// The cuDNN baseline on a real device: random small grouped problems (2D and 3D, stride, pad,
// dilation), all three directions in fp32, against a host reference in double computed from
// gconv's own layouts. The verifier the baseline is given poisons the result tensor, runs the
// candidate and compares on the host, so both paths must produce the right numbers (and a true
// fp32 convolution: TF32's error is far above the tolerance) to be kept. Skips without a GPU
// or without cuDNN.
#include "gpu/buffer.h"
#include "gpu/device.h"
#include "problem/host_convolution.h"
#include "worker/cudnn_baseline.h"

#include <QRandomGenerator>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <span>

using namespace gconv;
using namespace gconv::worker;

namespace {

struct Case {
    Problem problem;
    std::vector<float> in, wei, out; // host tensors in gconv's layouts
};

int64_t pick(QRandomGenerator& rng, int64_t lo, int64_t hi) {
    return lo + int64_t(rng.bounded(quint32(hi - lo + 1)));
}

Problem random_problem(QRandomGenerator& rng, int ndim) {
    Problem p;
    p.ndim_spatial = ndim;
    p.N = pick(rng, 1, 3);
    p.G = pick(rng, 2, 4);
    p.C = p.G * 8 * pick(rng, 1, 2);
    p.K = p.G * 8 * pick(rng, 1, 2);
    p.Hi = pick(rng, 6, 10);
    p.Wi = pick(rng, 6, 10);
    p.Y = p.X = 3;
    p.stride_h = p.stride_w = pick(rng, 1, 2);
    p.pad_h = p.pad_w = pick(rng, 0, 1);
    p.dilation_h = p.dilation_w = pick(rng, 1, 2);
    if (ndim == 3) {
        p.Di = pick(rng, 5, 6);
        p.Z = 3;
        p.pad_d = pick(rng, 0, 1);
    }
    return p;
}

std::vector<float> random_values(QRandomGenerator& rng, int64_t n) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v) x = float(rng.generateDouble() * 2.0 - 1.0);
    return v;
}

// The result tensor of `variant`, recomputed in double over gconv's layouts; `terms` is the
// number of products summed into one element (the error bound grows with it).
std::vector<double> reference(const Case& c, Variant variant, int64_t& terms) {
    const Problem& p = c.problem;
    const int64_t Cg = p.C / p.G, Kg = p.K / p.G;
    terms = variant == Variant::Forward   ? Cg * p.Z * p.Y * p.X
            : variant == Variant::BwdData ? Kg * p.Z * p.Y * p.X
                                          : p.N * p.Do() * p.Ho() * p.Wo();
    return host_convolution(p, variant, c.in, c.wei, c.out).value;
}

const char* direction(Variant v) {
    return v == Variant::Forward ? "forward" : v == Variant::BwdData ? "bwd_data" : "bwd_weight";
}

} // namespace

class TestCudnnBaseline : public QObject {
    Q_OBJECT

    std::unique_ptr<CudnnBaseline> cudnn_;

private slots:
    void initTestCase() {
        if (gpu::device_count() == 0) QSKIP("no GPU device visible");
        std::string why;
        cudnn_ = CudnnBaseline::load(why);
        if (!cudnn_) QSKIP(("no cuDNN: " + why).c_str());
    }

    void bothPathsVerifyAgainstTheHostReference_data() {
        QTest::addColumn<int>("variant");
        QTest::addColumn<int>("ndim");
        QTest::addColumn<quint32>("seed");
        const quint32 base = QRandomGenerator::global()->generate();
        quint32 i = 0;
        for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight})
            for (int ndim : {2, 3}) {
                QTest::newRow(qPrintable(QString("%1_%2d").arg(direction(v)).arg(ndim)))
                    << int(v) << ndim << base + i++;
            }
    }

    void bothPathsVerifyAgainstTheHostReference() {
        QFETCH(int, variant);
        QFETCH(int, ndim);
        QFETCH(quint32, seed);
        const Variant v = Variant(variant);
        QRandomGenerator rng(seed);
        Case c;
        c.problem = random_problem(rng, ndim);
        c.in = random_values(rng, c.problem.input_elements());
        c.wei = random_values(rng, c.problem.weight_elements());
        c.out = random_values(rng, c.problem.output_elements());
        int64_t terms = 0;
        const std::vector<double> expected = reference(c, v, terms);
        const std::string what = "seed " + std::to_string(seed) + ", " + c.problem.key();

        gpu::DeviceBuffer in(c.in.size() * 4), wei(c.wei.size() * 4), out(c.out.size() * 4);
        in.upload(std::span<const float>(c.in));
        wei.upload(std::span<const float>(c.wei));
        out.upload(std::span<const float>(c.out));
        gpu::DeviceBuffer& result = v == Variant::Forward ? out : v == Variant::BwdData ? in : wei;

        int checks = 0, passes = 0;
        const BaselineVerifier verify = [&](const std::function<void()>& launch_once) {
            ++checks;
            result.fill_bytes(0xff); // NaN: an element cuDNN does not write fails
            launch_once();
            std::vector<float> got(expected.size());
            result.download(std::span<float>(got));
            double scale = 0, worst = 0;
            for (double e : expected) scale = std::max(scale, std::fabs(e));
            for (std::size_t i = 0; i < got.size(); ++i)
                worst = std::isfinite(got[i]) ? std::max(worst, std::fabs(got[i] - expected[i]))
                                              : INFINITY;
            // fp32 accumulation: a few ulps per product; TF32 inputs (2^-11) land far above.
            const double limit = 4e-7 * double(terms) + 1e-6 * scale;
            BaselineCheck check{worst <= limit, scale > 0 ? worst / scale : worst, {}};
            if (!check.passed)
                check.detail =
                    "max abs error " + std::to_string(worst) + " over " + std::to_string(limit);
            passes += check.passed;
            return check;
        };
        const BaselineResult r =
            cudnn_->run(v, DataType::FP32, c.problem, {in.data(), wei.data(), out.data()}, nullptr,
                        2, 3, verify);
        std::string log;
        for (const auto& line : r.log) log += line + "\n";
        QVERIFY2(r.ok, (what + ": " + r.error + "\n" + log).c_str());
        QCOMPARE(int(r.launch_ms.size()), 3);
        for (float ms : r.launch_ms) QVERIFY(ms > 0);
        QVERIFY2(!r.algorithm.empty(), what.c_str());
        // Both paths settle on a verified candidate, and the kept one is one of them.
        auto has_line = [&](const std::string& prefix) {
            return std::any_of(r.log.begin(), r.log.end(), [&](const std::string& l) {
                return l.rfind(prefix, 0) == 0 && l.find(" ms (search") != std::string::npos;
            });
        };
        QVERIFY2(has_line("legacy: "), (what + "\n" + log).c_str());
        if (cudnn_->has_graph()) QVERIFY2(has_line("graph: "), (what + "\n" + log).c_str());
        QVERIFY2(r.algorithm.find(" graph ") != std::string::npos ||
                     r.algorithm.find(" legacy ") != std::string::npos,
                 r.algorithm.c_str());
        QVERIFY(passes >= (cudnn_->has_graph() ? 2 : 1));
        QVERIFY(checks >= passes);
    }

    void candidatesThatDoNotVerifyAreNotKept() {
        QRandomGenerator rng(QRandomGenerator::global()->generate());
        Case c;
        c.problem = random_problem(rng, 2);
        gpu::DeviceBuffer in(std::size_t(c.problem.input_elements()) * 4),
            wei(std::size_t(c.problem.weight_elements()) * 4),
            out(std::size_t(c.problem.output_elements()) * 4);
        in.fill_bytes(0x3c);
        wei.fill_bytes(0x3c);
        int checks = 0;
        const BaselineVerifier reject = [&](const std::function<void()>& launch_once) {
            ++checks;
            launch_once();
            return BaselineCheck{false, 1.0, "rejected by the test"};
        };
        const BaselineResult r =
            cudnn_->run(Variant::Forward, DataType::FP32, c.problem,
                        {in.data(), wei.data(), out.data()}, nullptr, 2, 3, reject);
        QVERIFY(!r.ok);
        QVERIFY(r.launch_ms.empty());
        QVERIFY(checks >= 1);
        QVERIFY(std::any_of(r.log.begin(), r.log.end(), [](const std::string& l) {
            return l.find("not eligible: output did not verify: rejected by the test") !=
                   std::string::npos;
        }));
    }
};

QTEST_APPLESS_MAIN(TestCudnnBaseline)
#include "tst_cudnn_baseline.moc"
