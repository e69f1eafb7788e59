// The MIOpen baseline without ROCm: loading says why it cannot run here and what failed to load
// or bind; against a fake libMIOpen (tests/support/fake_miopen) that records its calls, the
// search builds gconv's descriptors (channels-last through the strides, the groups as a count),
// asks for the direction's workspace first, searches on the right buffers in MIOpen's argument
// order, keeps the results fastest first but the ones that need more workspace than there is,
// and each candidate launches its own algorithm on the same buffers with alpha 1 and beta 0.
#include "problem/conv_descriptor_geometry.h"
#include "worker/baseline.h"
#include "worker/miopen_baseline.h"

#include "fake_miopen/fake_miopen_state.h"
#include "random_problem.h"

#include <dlfcn.h>

#include <QRandomGenerator>
#include <QtTest>

#include <random>

using namespace gconv;
using namespace gconv::worker;
using gconv::test::random_problem;

namespace {

// The tensors' ids in the fake: created x (0), y (1), w (2).
enum { X = 0, Y = 1, W = 2 };

} // namespace

class TestMiopenBaseline : public QObject {
    Q_OBJECT

    std::unique_ptr<MiopenApi> open_fake() {
        std::string why;
        std::unique_ptr<MiopenApi> api = MiopenApi::open({GCONV_FAKE_MIOPEN}, why);
        if (!api) return nullptr;
        if (api->create(&api->handle) != miopen::k_success) return nullptr;
        return api;
    }
    static FakeMiopenState& state_of(const MiopenApi& api) {
        using StateFn = FakeMiopenState* (*)();
        auto fn = reinterpret_cast<StateFn>(dlsym(api.library, "fake_miopen_state"));
        return *fn();
    }

private slots:
    void loadingSaysWhyItCannotRun() {
        std::string why;
#if !defined(GCONV_HIP_PLATFORM_AMD)
        QVERIFY(!MiopenBaseline::load(why));
        QVERIFY2(why.find("ROCm") != std::string::npos, why.c_str());
#endif
        why.clear();
        QVERIFY(!load_baseline("rocblas", why));
        QVERIFY2(why.find("\"rocblas\"") != std::string::npos, why.c_str());

        const std::string missing = "/nonexistent/gconv-" +
                                    std::to_string(QRandomGenerator::global()->generate()) +
                                    "/libMIOpen.so.1";
        why.clear();
        QVERIFY(!MiopenApi::open({missing}, why));
        QVERIFY2(why.find(missing) != std::string::npos, why.c_str());
        QVERIFY2(why.find("GCONV_MIOPEN_LIBRARY") != std::string::npos, why.c_str());
        // A library that loads but is not MIOpen: every entry point it lacks is named.
        why.clear();
        QVERIFY(!MiopenApi::open({"libc.so.6"}, why));
        QVERIFY2(why.rfind("MIOpen lacks miopenCreate, ", 0) == 0, why.c_str());
        QVERIFY2(why.find("miopenConvolutionBackwardWeights") != std::string::npos, why.c_str());
        QVERIFY2(why.find("miopenSetConvolutionGroupCount") != std::string::npos, why.c_str());
    }

    void theEnvironmentNamesTheLibraryFirst() {
        const QByteArray path = "/opt/elsewhere/libMIOpen.so.1";
        qputenv("GCONV_MIOPEN_LIBRARY", path);
        const std::vector<std::string> c = miopen_library_candidates();
        qunsetenv("GCONV_MIOPEN_LIBRARY");
        QVERIFY(!c.empty());
        QCOMPARE(c.front(), path.toStdString());
        QCOMPARE(miopen_library_candidates().front(), std::string("libMIOpen.so.1"));
        QCOMPARE(miopen_data_type(DataType::BF16), 5);
        QCOMPARE(miopen_data_type(DataType::FP16), 0);
        QCOMPARE(miopen_data_type(DataType::FP32), 1);
    }

    void searchPassesGconvsTensorsInMiopensOrder_data() {
        QTest::addColumn<int>("variant");
        QTest::addColumn<int>("ndim");
        QTest::addColumn<quint32>("seed");
        const quint32 base = QRandomGenerator::global()->generate();
        quint32 i = 0;
        for (Variant v : {Variant::Forward, Variant::BwdData, Variant::BwdWeight})
            for (int ndim : {2, 3})
                QTest::newRow(qPrintable(QString("%1_%2d").arg(int(v)).arg(ndim)))
                    << int(v) << ndim << base + i++;
    }
    void searchPassesGconvsTensorsInMiopensOrder() {
        QFETCH(int, variant);
        QFETCH(int, ndim);
        QFETCH(quint32, seed);
        std::mt19937 rng(seed);
        const Variant v = Variant(variant);
        Problem p = random_problem(rng, ndim);
        p.dilation_h = 1 + int64_t(rng() % 2), p.dilation_w = 1 + int64_t(rng() % 3);
        const DataType dtype = rng() % 2 ? DataType::BF16 : DataType::FP16;
        std::unique_ptr<MiopenApi> api = open_fake();
        QVERIFY(api);
        FakeMiopenState& st = state_of(*api);
        st = FakeMiopenState{};
        // Three results, fastest first; the second needs more workspace than there is.
        const size_t ws_bytes = size_t(64) << 20;
        st.result[0] = {5, 0.1f, 0};
        st.result[1] = {1, 0.2f, ws_bytes + 1};
        st.result[2] = {0, 0.3f, size_t(1) << 20};
        st.results = 3;
        st.workspace_needed = ws_bytes * 2;
        int in = 0, wei = 0, out = 0, scratch = 0; // addresses the fake never dereferences
        const BaselineTensors t{&in, &wei, &out};
        const BaselineWorkspace ws{&scratch, ws_bytes};
        const bool exhaustive = rng() % 2;

        BaselineSearch search = miopen_search(*api, v, dtype, p, t, ws, exhaustive);
        QVERIFY2(search.error.empty(), search.error.c_str());
        QCOMPARE(int(search.candidates.size()), 2);
        QCOMPARE(int(search.log.size()), 2); // the workspace note and the left-out algorithm

        // Descriptors: gconv's geometry, its data type, the groups as a count.
        const ConvDescriptorGeometry g = conv_descriptor_geometry(p);
        QCOMPARE(st.tensor_count, 3);
        const TensorGeometry* geometry[3] = {&g.input, &g.output, &g.weight};
        for (int id : {X, Y, W}) {
            const FakeTensor& ft = st.tensors[id];
            QCOMPARE(ft.type, miopen_data_type(dtype));
            QCOMPARE(ft.dims, ndim + 2);
            for (int i = 0; i < ft.dims; ++i) {
                QCOMPARE(int64_t(ft.lens[i]), geometry[id]->dims[size_t(i)]);
                QCOMPARE(int64_t(ft.strides[i]), geometry[id]->strides[size_t(i)]);
            }
        }
        QCOMPARE(st.conv.spatial, ndim);
        QCOMPARE(st.conv.mode, 0);
        QCOMPARE(int64_t(st.conv.groups), p.G);
        for (int i = 0; i < ndim; ++i) {
            QCOMPARE(int64_t(st.conv.pad[i]), g.pad[size_t(i)]);
            QCOMPARE(int64_t(st.conv.stride[i]), g.stride[size_t(i)]);
            QCOMPARE(int64_t(st.conv.dilation[i]), g.dilation[size_t(i)]);
        }

        // The search: MIOpen's order per direction, on gconv's buffers.
        const int dir = v == Variant::Forward ? 0 : v == Variant::BwdData ? 1 : 2;
        const int ids[3][3] = {{X, W, Y}, {Y, W, X}, {Y, X, W}};
        const void* data[3][3] = {{&in, &wei, &out}, {&out, &wei, &in}, {&out, &in, &wei}};
        QCOMPARE(st.workspace_query, dir);
        QCOMPARE(st.find.direction, dir);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(st.find.tensors[i], ids[dir][i]);
            QCOMPARE(st.find.data[i], data[dir][i]);
        }
        QCOMPARE(st.find.exhaustive, exhaustive);
        QCOMPARE(st.find.workspace, static_cast<void*>(&scratch));
        QCOMPARE(st.find.workspace_bytes, ws_bytes);

        // Each candidate runs its own algorithm, overwriting the result (alpha 1, beta 0).
        const int algos[2] = {5, 0};
        const size_t bytes[2] = {0, size_t(1) << 20};
        for (int c = 0; c < 2; ++c) {
            QVERIFY(search.candidates[size_t(c)].name.find("miopen 3.1.4") != std::string::npos);
            QCOMPARE(search.candidates[size_t(c)].launch(), 0);
            const FakeRun& r = st.runs[c];
            QCOMPARE(r.direction, dir);
            QCOMPARE(r.algo, algos[c]);
            QCOMPARE(r.alpha, 1.0f);
            QCOMPARE(r.beta, 0.0f);
            QCOMPARE(r.workspace_bytes, bytes[c]);
            QCOMPARE(r.workspace, static_cast<void*>(&scratch));
            for (int i = 0; i < 3; ++i) {
                QCOMPARE(r.tensors[i], ids[dir][i]);
                QCOMPARE(r.data[i], data[dir][i]);
            }
        }
        // The descriptors live as long as a candidate may launch through them.
        QVERIFY(!st.tensors[X].destroyed && !st.conv.destroyed);
        search.candidates.clear();
        QVERIFY(st.tensors[X].destroyed && st.tensors[Y].destroyed && st.tensors[W].destroyed);
        QVERIFY(st.conv.destroyed);
    }

    void aFailedOrEmptySearchSaysWhy() {
        std::unique_ptr<MiopenApi> api = open_fake();
        QVERIFY(api);
        FakeMiopenState& st = state_of(*api);
        st = FakeMiopenState{};
        std::mt19937 rng(QRandomGenerator::global()->generate());
        const Problem p = random_problem(rng, 2);
        int buffer = 0;
        const BaselineTensors t{&buffer, &buffer, &buffer};
        const BaselineWorkspace ws{&buffer, size_t(1) << 20};
        st.find_status = 3;
        BaselineSearch failed =
            miopen_search(*api, Variant::BwdWeight, DataType::BF16, p, t, ws, false);
        QVERIFY(failed.candidates.empty());
        QVERIFY2(failed.error.find("miopenFindConvolutionBackwardWeightsAlgorithm failed: fake "
                                   "error (status 3)") != std::string::npos,
                 failed.error.c_str());
        st = FakeMiopenState{};
        BaselineSearch empty =
            miopen_search(*api, Variant::Forward, DataType::BF16, p, t, ws, false);
        QVERIFY(empty.candidates.empty());
        QVERIFY2(empty.error.find("found no algorithm") != std::string::npos, empty.error.c_str());
    }
};

QTEST_APPLESS_MAIN(TestMiopenBaseline)
#include "tst_miopen_baseline.moc"
