// The descriptor geometry handed to cuDNN: for random 2D and 3D grouped problems, every random
// element's offset through (dims, strides) must equal its offset in gconv's own layouts,
// written out here index by index, and the tensors must be dense.
#include "problem/conv_descriptor_geometry.h"

#include <QRandomGenerator>
#include <QtTest>

using namespace gconv;

namespace {

int64_t pick(QRandomGenerator& rng, int64_t lo, int64_t hi) {
    return lo + int64_t(rng.bounded(quint32(hi - lo + 1)));
}

Problem random_problem(QRandomGenerator& rng, int ndim) {
    Problem p;
    p.ndim_spatial = ndim;
    p.G = pick(rng, 1, 6);
    p.C = p.G * pick(rng, 1, 9);
    p.K = p.G * pick(rng, 1, 9);
    p.N = pick(rng, 1, 4);
    p.Hi = pick(rng, 5, 12); // >= the widest dilated filter (5): Ho >= 1
    p.Wi = pick(rng, 5, 12);
    p.Y = pick(rng, 1, 3);
    p.X = pick(rng, 1, 3);
    p.stride_h = pick(rng, 1, 2);
    p.stride_w = pick(rng, 1, 2);
    p.pad_h = pick(rng, 0, 2);
    p.pad_w = pick(rng, 0, 1);
    p.dilation_h = pick(rng, 1, 2);
    p.dilation_w = pick(rng, 1, 2);
    if (ndim == 3) {
        p.Di = pick(rng, 5, 8);
        p.Z = pick(rng, 1, 3);
        p.stride_d = pick(rng, 1, 2);
        p.pad_d = pick(rng, 0, 1);
        p.dilation_d = pick(rng, 1, 2);
    }
    return p;
}

int64_t through_descriptor(const TensorGeometry& t, const std::vector<int64_t>& index) {
    int64_t offset = 0;
    for (std::size_t i = 0; i < index.size(); ++i) offset += index[i] * t.strides[i];
    return offset;
}

int64_t dense_extent(const TensorGeometry& t) {
    int64_t last = 0;
    for (std::size_t i = 0; i < t.dims.size(); ++i) last += (t.dims[i] - 1) * t.strides[i];
    return last + 1;
}

} // namespace

class TestConvDescriptorGeometry : public QObject {
    Q_OBJECT

private slots:
    void offsets_match_gconv_layouts_data() {
        QTest::addColumn<int>("ndim");
        QTest::addColumn<quint32>("seed");
        const quint32 base = QRandomGenerator::global()->generate();
        for (int i = 0; i < 8; ++i) {
            QTest::newRow(qPrintable(QString("2d_%1").arg(i))) << 2 << base + quint32(i);
            QTest::newRow(qPrintable(QString("3d_%1").arg(i))) << 3 << base + quint32(100 + i);
        }
    }

    void offsets_match_gconv_layouts() {
        QFETCH(int, ndim);
        QFETCH(quint32, seed);
        QRandomGenerator rng(seed);
        const Problem p = random_problem(rng, ndim);
        const ConvDescriptorGeometry g = conv_descriptor_geometry(p);
        const std::string what = "seed " + std::to_string(seed) + ", problem " + p.key();
        const int rank = ndim + 2;
        QCOMPARE(g.spatial_dims, ndim);
        QCOMPARE(int(g.input.dims.size()), rank);
        QCOMPARE(int(g.weight.strides.size()), rank);
        QCOMPARE(int(g.output.dims.size()), rank);
        QCOMPARE(g.input.dims[1], p.C);
        QCOMPARE(g.weight.dims[0], p.K);
        QCOMPARE(g.weight.dims[1], p.C / p.G);
        QCOMPARE(g.output.dims[1], p.K);
        QCOMPARE(g.pad.back(), p.pad_w);
        QCOMPARE(g.stride.front(), ndim == 3 ? p.stride_d : p.stride_h);
        QCOMPARE(g.dilation.back(), p.dilation_w);
        QCOMPARE(g.output.dims.back(), p.Wo());
        QCOMPARE(dense_extent(g.input), p.input_elements());
        QCOMPARE(dense_extent(g.weight), p.weight_elements());
        QCOMPARE(dense_extent(g.output), p.output_elements());

        const int64_t Cg = p.C / p.G, Kg = p.K / p.G;
        const int64_t Di = ndim == 3 ? p.Di : 1, Z = ndim == 3 ? p.Z : 1,
                      Do = ndim == 3 ? p.Do() : 1;
        for (int trial = 0; trial < 200; ++trial) {
            const int64_t n = pick(rng, 0, p.N - 1), grp = pick(rng, 0, p.G - 1);
            const int64_t c = pick(rng, 0, Cg - 1), k = pick(rng, 0, Kg - 1);
            const int64_t d = pick(rng, 0, Di - 1), h = pick(rng, 0, p.Hi - 1),
                          w = pick(rng, 0, p.Wi - 1);
            const int64_t z = pick(rng, 0, Z - 1), y = pick(rng, 0, p.Y - 1),
                          x = pick(rng, 0, p.X - 1);
            const int64_t od = pick(rng, 0, Do - 1), oh = pick(rng, 0, p.Ho() - 1),
                          ow = pick(rng, 0, p.Wo() - 1);
            auto index = [&](int64_t outer, int64_t channel, int64_t a, int64_t b, int64_t e) {
                std::vector<int64_t> i{outer, channel};
                if (ndim == 3) i.push_back(a);
                i.insert(i.end(), {b, e});
                return i;
            };
            // gconv: input N,D,H,W,G,C/G; weight G,K/G,Z,Y,X,C/G; output N,D,H,W,G,K/G.
            const int64_t in = ((((n * Di + d) * p.Hi + h) * p.Wi + w) * p.G + grp) * Cg + c;
            const int64_t wei = ((((grp * Kg + k) * Z + z) * p.Y + y) * p.X + x) * Cg + c;
            const int64_t out =
                ((((n * Do + od) * p.Ho() + oh) * p.Wo() + ow) * p.G + grp) * Kg + k;
            QVERIFY2(through_descriptor(g.input, index(n, grp * Cg + c, d, h, w)) == in,
                     what.c_str());
            QVERIFY2(through_descriptor(g.weight, index(grp * Kg + k, c, z, y, x)) == wei,
                     what.c_str());
            QVERIFY2(through_descriptor(g.output, index(n, grp * Kg + k, od, oh, ow)) == out,
                     what.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestConvDescriptorGeometry)
#include "tst_conv_descriptor_geometry.moc"
