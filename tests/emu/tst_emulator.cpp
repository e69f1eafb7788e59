// The CPU emulator of the device code (core/emu/), on small hand-written kernels: the
// warp-collective instructions against the layouts of the PTX ISA (an m16n8k16 product of
// ldmatrix-loaded fragments equals the host's matrix product), fp16 / bf16 rounding against the
// host's conversions, named barriers pairing warps, and the faults the emulator must report instead
// of computing something: a missing barrier (stale shared memory in one thread order), a cp.async
// read before its wait, lanes split between a barrier and a collective, a collective with lanes
// exited, a shared address outside the launch's shared memory, a trap.
#include "emu/device/gconv_emu_pages.h"
#include "emu/emulated_module.h"
#include "sweep/measurement.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace gconv;
using emu::EmulatedLaunch;
using emu::EmulatedModule;
using emu::ThreadOrder;
using u32 = std::uint32_t;

namespace {

// A translation unit the way generated ones start; entries take ConvParams (in, wei, out are
// the test's buffers).
std::string unit(const std::string& body) {
    return "#include \"gconv_mma_sync.h\"\n#include \"gconv_params.h\"\nusing namespace gconv;\n" +
           body;
}

EmulatedLaunch launch_of(const std::string& entry, unsigned threads, std::size_t shared,
                         const void* in, void* out, ThreadOrder order = ThreadOrder::Ascending) {
    EmulatedLaunch l;
    l.entry = entry;
    l.params.in = in;
    l.params.out = out;
    l.threads = threads;
    l.shared_bytes = shared;
    l.order = order;
    return l;
}

// Runs `l` and returns the message it was stopped with (empty when it ran to its end).
QString stop_message(const EmulatedModule& m, const EmulatedLaunch& l) {
    try {
        m.launch(l);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// One warp: A (16 x 16, row-major) and B (16 x 8) go to shared memory, ldmatrix loads the
// fragments as tensor-core kernels address them, one mma.sync multiplies, each lane writes its
// four fp32 results at their (row, column). B is stored as 8 rows of 16 k (column-major, read
// by ldmatrix x2) or, TRANS, as 16 k-rows of 8 columns (read by ldmatrix x2 .trans).
const char* k_mma_source = R"(
template <bool HALF, bool TRANS> GCONV_DEVICE void product(const ConvParams& p) {
    const u16* a = static_cast<const u16*>(p.in);
    const u16* b = static_cast<const u16*>(p.wei);
    float* d = static_cast<float*>(p.out);
    u16* sa = reinterpret_cast<u16*>(gconv_dynamic_smem);
    u16* sb = sa + 256;
    const int l = threadIdx.x;
    for (int i = l; i < 256; i += 32) sa[i] = a[i];
    for (int i = l; i < 128; i += 32) sb[i] = b[i];
    arch::barrier();
    u32 fa[4], fb[2];
    mma::ldsm_x4(fa, arch::shared_address(sa + (l % 16) * 16 + (l / 16) * 8));
    if (TRANS)
        mma::ldsm_x2_trans(fb, arch::shared_address(sb + (l % 16) * 8));
    else
        mma::ldsm_x2(fb, arch::shared_address(sb + (l % 8) * 16 + ((l / 8) % 2) * 8));
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    arch::mma_16816<HALF>(acc, fa, fb);
    const int g = l / 4, t = l % 4;
    for (int i = 0; i < 4; ++i) d[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = acc[i];
}
extern "C" __global__ void mma_bf16(ConvParams p) { product<false, false>(p); }
extern "C" __global__ void mma_fp16(ConvParams p) { product<true, false>(p); }
extern "C" __global__ void mma_trans(ConvParams p) { product<false, true>(p); }
)";

// Conversions: out[i] = bf16 / fp16 bits of in[i] (one thread per value, 64 threads).
const char* k_convert_source = R"(
extern "C" __global__ void to_half(ConvParams p) {
    const float* in = static_cast<const float*>(p.in);
    u16* out = static_cast<u16*>(p.out);
    for (int i = threadIdx.x; i < p.N; i += blockDim.x) {
        out[2 * i] = arch::float_to_half_bits(in[i]);
        const u32 both = mma::pack2<false>(in[i], 0.f);
        out[2 * i + 1] = static_cast<u16>(both & 0xffffu);
    }
}
)";

// Faults. Every thread writes its index to shared memory; thread t reads thread t^1's slot,
// with or without the barrier in between; 64 threads (two warps).
const char* k_fault_source = R"(
extern "C" __global__ void neighbour_synced(ConvParams p) {
    int* s = reinterpret_cast<int*>(gconv_dynamic_smem);
    const int t = threadIdx.x;
    s[t] = t + 1;
    arch::barrier();
    static_cast<int*>(p.out)[t] = s[(t + 32) % 64];
}
extern "C" __global__ void neighbour_unsynced(ConvParams p) {
    int* s = reinterpret_cast<int*>(gconv_dynamic_smem);
    const int t = threadIdx.x;
    s[t] = t + 1;
    static_cast<int*>(p.out)[t] = s[(t + 32) % 64];
}
// cp.async: the copy lands at the wait; reading before it sees what was there.
extern "C" __global__ void async_early(ConvParams p) {
    int* s = reinterpret_cast<int*>(gconv_dynamic_smem);
    const int t = threadIdx.x;
    s[4 * t] = -1;
    arch::copy_async<16>(s + 4 * t, static_cast<const int*>(p.in) + 4 * t, true);
    arch::async_commit();
    static_cast<int*>(p.out)[t] = s[4 * t];
    arch::async_wait<0>();
    static_cast<int*>(p.out)[64 + t] = s[4 * t];
}
// A store into a cp.async destination before its wait: a race (the copy may land before or after).
extern "C" __global__ void async_overwritten(ConvParams p) {
    int* s = reinterpret_cast<int*>(gconv_dynamic_smem);
    const int t = threadIdx.x;
    arch::copy_async<16>(s + 4 * t, static_cast<const int*>(p.in) + 4 * t, true);
    arch::async_commit();
    s[4 * t] = 7;
    arch::async_wait<0>();
}
// ldmatrix reads its rows when the warp executes it: stores a lane makes afterwards (here every
// lane zeroes the rows) do not reach any lane's registers.
extern "C" __global__ void ldmatrix_then_store(ConvParams p) {
    u16* s = reinterpret_cast<u16*>(gconv_dynamic_smem);
    const int l = threadIdx.x;
    for (int i = l; i < 128; i += 32) s[i] = static_cast<u16>(i + 1);
    arch::barrier();
    u32 r[2];
    mma::ldsm_x2(r, arch::shared_address(s + (l % 16) * 8));
    for (int i = l; i < 128; i += 32) s[i] = 0;
    static_cast<u32*>(p.out)[2 * l] = r[0];
    static_cast<u32*>(p.out)[2 * l + 1] = r[1];
}
// Reads the shared byte at p.N (past the launch's bytes but inside its 16-byte rounding).
extern "C" __global__ void shared_slack(ConvParams p) {
    if (threadIdx.x == 0) static_cast<unsigned char*>(p.out)[0] = gconv_dynamic_smem[p.N];
}
extern "C" __global__ void divergent_barrier(ConvParams p) {
    if (threadIdx.x % 2) {
        arch::barrier();
    } else {
        u32 r[2];
        mma::ldsm_x2(r, 0u);
    }
    (void)p;
}
extern "C" __global__ void collective_after_exit(ConvParams p) {
    if (threadIdx.x == 3) return;
    u32 r[2];
    mma::ldsm_x2(r, 0u);
    (void)p;
}
extern "C" __global__ void shared_overrun(ConvParams p) {
    u32 r[4];
    mma::ldsm_x4(r, arch::shared_address(gconv_dynamic_smem) + 256u);
    (void)p;
}
extern "C" __global__ void misaligned_row(ConvParams p) {
    u32 r[2];
    mma::ldsm_x2(r, 8u);
    (void)p;
}
// Named barriers: warps 0 and 2 meet at barrier 1, warps 1 and 3 at barrier 2 (128 threads);
// each thread reads the slot of its partner warp's thread.
extern "C" __global__ void named_pairs(ConvParams p) {
    int* s = reinterpret_cast<int*>(gconv_dynamic_smem);
    const int t = threadIdx.x;
    s[t] = t + 1;
    arch::named_barrier<64>(1 + (t / 32) % 2);
    static_cast<int*>(p.out)[t] = s[(t + 64) % 128];
}
extern "C" __global__ void named_alone(ConvParams p) {
    if (threadIdx.x < 32) arch::named_barrier<64>(1);
    (void)p;
}
extern "C" __global__ void traps(ConvParams p) {
    if (threadIdx.x == 5) arch::trap();
    (void)p;
}
)";

std::vector<uint16_t> random_bits(std::size_t n, bool half, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    std::vector<uint16_t> v(n);
    for (auto& x : v) x = half ? float_to_fp16(u(rng)) : float_to_bf16(u(rng));
    return v;
}

float value(uint16_t bits, bool half) {
    return half ? fp16_to_float(bits) : bf16_to_float(bits);
}

} // namespace

class TestEmulator : public QObject {
    Q_OBJECT

    QTemporaryDir work_;

    std::filesystem::path work_dir() const { return work_.path().toStdString(); }

    // D = A x B through ldmatrix + mma.sync against the host product (exact products of 16-bit
    // values, fp32 sums of 16 terms: within 1e-5 relative of the double sum).
    void check_product(const EmulatedModule& m, const char* entry, bool half, bool b_row_major) {
        std::mt19937_64 rng(7);
        const std::vector<uint16_t> a = random_bits(256, half, rng),
                                    b = random_bits(128, half, rng);
        std::vector<float> d(128, -1.f);
        for (const ThreadOrder order : {ThreadOrder::Ascending, ThreadOrder::Descending}) {
            EmulatedLaunch l = launch_of(entry, 32, 768, a.data(), d.data(), order);
            l.params.wei = b.data();
            m.launch(l);
            for (int r = 0; r < 16; ++r)
                for (int c = 0; c < 8; ++c) {
                    double sum = 0;
                    for (int k = 0; k < 16; ++k)
                        sum += double(value(a[r * 16 + k], half)) *
                               value(b_row_major ? b[k * 8 + c] : b[c * 16 + k], half);
                    QVERIFY2(std::abs(d[r * 8 + c] - sum) <= 1e-5 * (1 + std::abs(sum)),
                             qPrintable(QStringLiteral("%1 D[%2][%3] = %4, host %5")
                                            .arg(entry)
                                            .arg(r)
                                            .arg(c)
                                            .arg(d[r * 8 + c])
                                            .arg(sum)));
                }
        }
    }

private slots:
    void initTestCase() { QVERIFY(work_.isValid()); }

    void mma_of_ldmatrix_fragments_is_the_matrix_product() {
        const EmulatedModule m(unit(k_mma_source), work_dir());
        check_product(m, "mma_bf16", false, false);
        check_product(m, "mma_fp16", true, false);
        check_product(m, "mma_trans", false, true);
    }

    void conversions_round_to_nearest_even_as_the_host() {
        const EmulatedModule m(unit(k_convert_source), work_dir());
        std::mt19937_64 rng(3);
        std::vector<float> in;
        // Ties, subnormal halves, overflow to infinity, NaN, signed zero, and random values.
        for (float f : {0.f, -0.f, 1.f, 65504.f, 65519.f, 65520.f, 1e6f, -1e6f, 6.0e-8f, 2.9e-8f,
                        3.0e-8f, 6.1e-5f, 1.00048828125f, 1.00146484375f, 1.001953125f})
            in.push_back(f);
        in.push_back(std::numeric_limits<float>::quiet_NaN());
        std::uniform_real_distribution<float> u(-70000.f, 70000.f), s(-1e-4f, 1e-4f);
        for (int i = 0; i < 200; ++i) in.push_back(i % 2 ? u(rng) : s(rng));
        std::vector<uint16_t> out(2 * in.size());
        EmulatedLaunch l = launch_of("to_half", 64, 0, in.data(), out.data());
        l.params.N = static_cast<int>(in.size());
        m.launch(l);
        for (std::size_t i = 0; i < in.size(); ++i) {
            if (std::isnan(in[i])) {
                QVERIFY(std::isnan(fp16_to_float(out[2 * i])));
                QVERIFY(std::isnan(bf16_to_float(out[2 * i + 1])));
                continue;
            }
            QCOMPARE(out[2 * i], float_to_fp16(in[i]));
            QCOMPARE(out[2 * i + 1], float_to_bf16(in[i]));
        }
    }

    void a_missing_barrier_reads_stale_shared_memory_in_one_order() {
        const EmulatedModule m(unit(k_fault_source), work_dir());
        std::vector<int> out(64);
        auto expected_everywhere = [&](const char* entry, ThreadOrder order) {
            std::fill(out.begin(), out.end(), 0);
            m.launch(launch_of(entry, 64, 256, nullptr, out.data(), order));
            for (int t = 0; t < 64; ++t)
                if (out[t] != (t + 32) % 64 + 1) return false;
            return true;
        };
        QVERIFY(expected_everywhere("neighbour_synced", ThreadOrder::Ascending));
        QVERIFY(expected_everywhere("neighbour_synced", ThreadOrder::Descending));
        const bool ascending = expected_everywhere("neighbour_unsynced", ThreadOrder::Ascending);
        const bool descending = expected_everywhere("neighbour_unsynced", ThreadOrder::Descending);
        QVERIFY2(!ascending || !descending, "the race went unseen in both orders");
    }

    void cp_async_lands_at_its_wait() {
        const EmulatedModule m(unit(k_fault_source), work_dir());
        std::vector<int> in(256), out(128);
        for (int i = 0; i < 256; ++i) in[i] = 1000 + i;
        m.launch(launch_of("async_early", 64, 1024, in.data(), out.data()));
        for (int t = 0; t < 64; ++t) {
            QCOMPARE(out[t], -1);
            QCOMPARE(out[64 + t], 1000 + 4 * t);
        }
    }

    void cp_async_lands_at_issue_in_the_descending_order() {
        const EmulatedModule m(unit(k_fault_source), work_dir());
        std::vector<int> in(256), out(128);
        for (int i = 0; i < 256; ++i) in[i] = 1000 + i;
        m.launch(
            launch_of("async_early", 64, 1024, in.data(), out.data(), ThreadOrder::Descending));
        for (int t = 0; t < 64; ++t) {
            QCOMPARE(out[t], 1000 + 4 * t);
            QCOMPARE(out[64 + t], 1000 + 4 * t);
        }
        const QString why =
            stop_message(m, launch_of("async_overwritten", 64, 1024, in.data(), out.data()));
        QVERIFY2(why.contains("written while a cp.async into them was in flight"), qPrintable(why));
    }

    void ldmatrix_reads_its_rows_once_for_the_warp() {
        const EmulatedModule m(unit(k_fault_source), work_dir());
        std::vector<u32> out(64);
        for (const ThreadOrder order : {ThreadOrder::Ascending, ThreadOrder::Descending}) {
            m.launch(launch_of("ldmatrix_then_store", 32, 256, nullptr, out.data(), order));
            for (int l = 0; l < 32; ++l)
                for (int i = 0; i < 2; ++i) {
                    const int e = (8 * i + l / 4) * 8 + 2 * (l % 4); // row-major 16 x 8
                    QCOMPARE(out[2 * l + i], u32(e + 1) | u32(e + 2) << 16);
                }
        }
    }

    void memory_just_outside_reads_as_poison_and_writes_there_show() {
        const EmulatedModule m(unit(k_fault_source), work_dir());
        unsigned char byte = 0;
        EmulatedLaunch l = launch_of("shared_slack", 32, 20, nullptr, &byte);
        l.params.N = 24;
        m.launch(l);
        QCOMPARE(int(byte), 0xff);
        gconv_emu::GuardedPages g(20, true);
        QVERIFY(g.ok());
        g.fill_all(0xff);
        std::memset(g.data(), 0, 20);
        QVERIFY(g.outside_holds(0xff, 20));
        g.data()[22] = 1;
        QVERIFY(!g.outside_holds(0xff, 20));
        g.data()[22] = 0xff;
        g.data()[-1] = 1;
        QVERIFY(!g.outside_holds(0xff, 20));
    }

    void named_barriers_pair_warps() {
        const EmulatedModule m(unit(k_fault_source), work_dir());
        std::vector<int> out(128);
        for (const ThreadOrder order : {ThreadOrder::Ascending, ThreadOrder::Descending}) {
            std::fill(out.begin(), out.end(), 0);
            m.launch(launch_of("named_pairs", 128, 512, nullptr, out.data(), order));
            for (int t = 0; t < 128; ++t) QCOMPARE(out[t], (t + 64) % 128 + 1);
        }
    }

    void faults_stop_the_launch_with_a_reason_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<unsigned>("threads");
        QTest::addColumn<QString>("reason");
        QTest::newRow("barrier") << "divergent_barrier" << 32u << "can never finish";
        QTest::newRow("named alone") << "named_alone" << 64u << "can never finish";
        QTest::newRow("exited lane") << "collective_after_exit" << 32u << "lanes exited";
        QTest::newRow("overrun") << "shared_overrun" << 32u << "past the 256 bytes";
        QTest::newRow("misaligned") << "misaligned_row" << 32u << "not aligned to 16";
        QTest::newRow("trap") << "traps" << 32u << "__trap";
        QTest::newRow("no entry") << "missing_entry" << 32u << "no entry missing_entry";
    }
    void faults_stop_the_launch_with_a_reason() {
        QFETCH(QString, entry);
        QFETCH(unsigned, threads);
        QFETCH(QString, reason);
        const EmulatedModule m(unit(k_fault_source), work_dir());
        const QString why =
            stop_message(m, launch_of(entry.toStdString(), threads, 256, nullptr, nullptr));
        QVERIFY2(why.contains(reason), qPrintable(why));
        QVERIFY2(why.contains(entry), qPrintable(why));
    }

    void a_module_that_does_not_compile_says_why() {
        try {
            const EmulatedModule m(unit("extern \"C\" __global__ void k(ConvParams p) { nope; }"),
                                   work_dir());
            QFAIL("compiled");
        } catch (const std::exception& e) {
            const QString why = QString::fromStdString(e.what());
            QVERIFY2(why.contains("did not compile") && why.contains("nope"), qPrintable(why));
        }
    }

    void a_second_build_of_the_same_source_is_reused() {
        const EmulatedModule first(unit(k_convert_source), work_dir());
        const EmulatedModule second(unit(k_convert_source), work_dir());
        QVERIFY(second.from_cache());
        QVERIFY(second.has_entry("to_half"));
        QVERIFY(!second.has_entry("to_float"));
    }
};

QTEST_APPLESS_MAIN(TestEmulator)
#include "tst_emulator.moc"
