// Whether a wgmma operand may start a few K-major rows into a staged tile: the premise of feeding
// every filter tap of a small-C layer from one staged input band (docs/notes/wgmma-kernels.md,
// "taps from one staged halo"), where tap dx reads the band's pixel rows from row dx on; and the
// design end to end on one output row of a 3x3 convolution. One
// warpgroup stages A (64 rows) and B (24 rows) in a layout, multiplies A by the 8 rows of B from
// row `shift` on with wgmma.m64n8k16 and the test compares with the exact product of small
// integers. Layouts: no swizzle (8-row x 16-byte core matrices; rows 16 bytes apart inside a
// K chunk, so any row is a valid start; both readings of the two byte offsets are tried), and
// the 128- and 64-byte swizzles (rows 128 / 64 bytes apart; a start off the pattern's period
// needs the descriptor's base offset, whose candidates the table lists). Needs an sm_90a device;
// the compile case needs only NVRTC.
#include "gpu/buffer.h"
#include "gpu/context.h"
#include "gpu/device.h"
#include "gpu/module.h"
#include "gpu/stream.h"
#include "jit/compiler.h"
#include "probe_compile.h"

#include <QRandomGenerator>
#include <QtTest>

#include <cstdint>
#include <cstring>
#include <vector>

using namespace gconv;

namespace {

// layout 0: no swizzle (variant 0: leading offset = K-chunk stride, stride offset = 8-row group
// stride; variant 1: the two swapped); layout 1: 128-byte swizzle, layout 2: 64-byte swizzle
// (variant v: base offset candidate v, see base_offset()).
const char* k_source = R"(
typedef unsigned long long u64;
__device__ unsigned smem_u32(const void* p) {
    unsigned a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}
// Byte offset of element k of row r in a tile of `rows` rows (layout as above; tile base aligned
// to 1024 bytes, so the swizzle's address bits are the offset's).
__device__ unsigned place(int layout, int rows, int r, int k) {
    if (layout == 0) return (k / 8) * rows * 16 + r * 16 + (k % 8) * 2;
    const unsigned row_bytes = layout == 1 ? 128 : 64, mask = layout == 1 ? 7 : 3;
    const unsigned off = r * row_bytes + k * 2;
    return off ^ (((off >> 7) & mask) << 4);
}
__device__ unsigned base_offset(int layout, int variant, unsigned start) {
    if (layout == 0) return 0;
    switch (variant) {
    case 1: return (start >> 7) & 7;
    case 2: return (start >> 7) & 3;
    case 3: return (8 - ((start >> 7) & 7)) & 7;
    default: return 0;
    }
}
__device__ u64 descriptor(int layout, int variant, int rows, unsigned start) {
    u64 lbo, sbo, type;
    if (layout == 0) {
        lbo = variant == 0 ? rows * 16 : 128;
        sbo = variant == 0 ? 128 : rows * 16;
        type = 0;
    } else {
        lbo = 16;
        sbo = layout == 1 ? 1024 : 512;
        type = layout == 1 ? 1 : 2;
    }
    return (u64)((start & 0x3FFFF) >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) |
           ((u64)base_offset(layout, variant, start) << 49) | (type << 62);
}
extern "C" __global__ void __launch_bounds__(128)
gconv_tst_wgmma_shift(const unsigned short* a, const unsigned short* b, float* d, int shift,
                      int layout, int variant, int kelems) {
    extern __shared__ __align__(16) unsigned char raw[];
    const unsigned raw_addr = smem_u32(raw);
    const unsigned base = (raw_addr + 1023) & ~1023u;
    unsigned char* tiles = raw + (base - raw_addr);
    const int t = threadIdx.x;
    const unsigned b_at = 64 * kelems * 2; // B after A (a multiple of 1024 bytes)
    for (int i = t; i < 64 * kelems; i += 128)
        *(unsigned short*)(tiles + place(layout, 64, i / kelems, i % kelems)) = a[i];
    for (int i = t; i < 24 * kelems; i += 128)
        *(unsigned short*)(tiles + b_at + place(layout, 24, i / kelems, i % kelems)) = b[i];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f;
    const unsigned row_bytes = layout == 0 ? 16 : (layout == 1 ? 128 : 64);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int kk = 0; kk < kelems / 16; ++kk) {
        // A k16 step is 2 K chunks (no swizzle) or 32 bytes along a swizzled row.
        const unsigned step = layout == 0 ? 2 * 64 * 16 : 32;
        const unsigned step_b = layout == 0 ? 2 * 24 * 16 : 32;
        const u64 da = descriptor(layout, variant, 64, base + kk * step);
        const u64 db = descriptor(layout, variant, 24, base + b_at + shift * row_bytes + kk * step_b);
        asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %6, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0,%1,%2,%3}, %4, %5, "
                     "p, 1, 1, 0, 0;\n}\n"
                     : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
                     : "l"(da), "l"(db), "r"(kk));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    const int w = t / 32, l = t % 32, row = w * 16 + l / 4, col = (l % 4) * 2;
    d[row * 8 + col] = c0;
    d[row * 8 + col + 1] = c1;
    d[(row + 8) * 8 + col] = c2;
    d[(row + 8) * 8 + col + 1] = c3;
}
// One output row of a 3x3 convolution (C 32 -> K 64, 64 output pixels, no pad) from one staged
// band of 3 input rows, unswizzled: the filter as A (tap t: [chunk][k][8 channels]), the band as
// B ([row][chunk][column][8 channels]); tap (dy, dx) reads the band's row dy from column dx on,
// 16 * dx bytes in. `swap` picks which descriptor offset is the K-chunk stride (as variant above).
extern "C" __global__ void __launch_bounds__(128)
gconv_tst_wgmma_band(const unsigned short* w, const unsigned short* in, float* out, int swap) {
    extern __shared__ __align__(16) unsigned char raw[];
    const unsigned raw_addr = smem_u32(raw);
    const unsigned base = (raw_addr + 127) & ~127u;
    unsigned char* tiles = raw + (base - raw_addr);
    const int t = threadIdx.x;
    const int C = 32, K = 64, COLS = 66, TAPS = 9;
    const unsigned w_bytes = TAPS * K * C * 2;
    // w[k][tap][c], in[row][col][c] (NHWC of one image)
    for (int i = t; i < K * TAPS * C; i += 128) {
        const int k = i / (TAPS * C), tap = (i / C) % TAPS, c = i % C;
        *(unsigned short*)(tiles + ((tap * (C / 8) + c / 8) * K + k) * 16 + (c % 8) * 2) = w[i];
    }
    for (int i = t; i < 3 * COLS * C; i += 128) {
        const int row = i / (COLS * C), col = (i / C) % COLS, c = i % C;
        *(unsigned short*)(tiles + w_bytes + ((row * (C / 8) + c / 8) * COLS + col) * 16 +
                           (c % 8) * 2) = in[i];
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float d[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) d[i] = 0.f;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int tap = 0; tap < TAPS; ++tap) {
        const int dy = tap / 3, dx = tap % 3;
        for (int kk = 0; kk < C / 16; ++kk) {
            const unsigned a = base + (tap * (C / 8) + kk * 2) * K * 16;
            const unsigned b = base + w_bytes + ((dy * (C / 8) + kk * 2) * COLS + dx) * 16;
            const u64 a_chunk = K * 16, b_chunk = COLS * 16, group = 128;
            const u64 da = (u64)((a & 0x3FFFF) >> 4) |
                           (((swap ? group : a_chunk) >> 4) << 16) |
                           (((swap ? a_chunk : group) >> 4) << 32);
            const u64 db = (u64)((b & 0x3FFFF) >> 4) |
                           (((swap ? group : b_chunk) >> 4) << 16) |
                           (((swap ? b_chunk : group) >> 4) << 32);
            const int accumulate = tap > 0 || kk > 0;
            asm volatile(
                "{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,"
                "%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,"
                "%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                  "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                  "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                  "+f"(d[30]), "+f"(d[31])
                : "l"(da), "l"(db), "r"(accumulate));
        }
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    // Accumulator i: output channel (row) w * 16 + l / 4 (+ 8), pixel (column) 8 * (i / 4) +
    // 2 * (l % 4) (+ 1).
    const int wq = t / 32, l = t % 32;
#pragma unroll
    for (int i = 0; i < 32; ++i) {
        const int k = wq * 16 + l / 4 + 8 * ((i >> 1) & 1);
        const int x = 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
        out[k * 64 + x] = d[i];
    }
}
)";

std::uint16_t bf16_of(int v) {
    const float f = static_cast<float>(v);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<std::uint16_t>(bits >> 16); // small integers: exact
}

// Both probe kernels for sm_90a.
jit::CompileResult compile_probe() {
    return test::compile_probe_source("tst_wgmma_shift.hip", k_source, "sm_90a");
}

struct Probe {
    gpu::Kernel kernel;
    std::vector<int> a, b; // 64 x kelems, 24 x kelems (the largest kelems: 64)
};

// Cells of the 64 x 8 product the probe got wrong. A wrong encoding must show as wrong cells, not
// as a fault that ends the context, so the block gets shared memory past every read an encoding
// can make: the swapped no-swizzle offsets stride A's eight 8-row groups 1024 bytes apart and its
// k16 steps 2048, up to 13.6 KB from the tile base (12 KB are staged: that reading faulted).
constexpr unsigned k_probe_shared_bytes = 32 * 1024;
int wrong_cells(Probe& probe, int layout, int variant, int shift) {
    const int kelems = layout == 2 ? 32 : 64;
    std::vector<std::uint16_t> a(64 * kelems), b(24 * kelems);
    for (int r = 0; r < 64; ++r)
        for (int k = 0; k < kelems; ++k) a[r * kelems + k] = bf16_of(probe.a[r * 64 + k]);
    for (int r = 0; r < 24; ++r)
        for (int k = 0; k < kelems; ++k) b[r * kelems + k] = bf16_of(probe.b[r * 64 + k]);
    gpu::DeviceBuffer da(a.size() * 2), db(b.size() * 2), dd(64 * 8 * sizeof(float));
    da.upload(std::span<const std::uint16_t>(a));
    db.upload(std::span<const std::uint16_t>(b));
    dd.fill_bytes(0xFF);
    gpu::Stream stream;
    gpu::LaunchConfig config;
    config.block = {128, 1, 1};
    config.grid = {1, 1, 1};
    config.dynamic_shared_bytes = k_probe_shared_bytes;
    config.stream = stream.get();
    gpu::KernelArgs args;
    args.add(da.as<std::uint16_t>())
        .add(db.as<std::uint16_t>())
        .add(dd.as<float>())
        .add(shift)
        .add(layout)
        .add(variant)
        .add(kelems);
    gpu::launch(probe.kernel, config, args);
    stream.synchronize();
    std::vector<float> d(64 * 8);
    dd.download(std::span<float>(d));
    int wrong = 0;
    for (int m = 0; m < 64; ++m)
        for (int n = 0; n < 8; ++n) {
            long long want = 0;
            for (int k = 0; k < kelems; ++k)
                want += probe.a[m * 64 + k] * probe.b[(shift + n) * 64 + k];
            if (d[m * 8 + n] != static_cast<float>(want)) ++wrong;
        }
    return wrong;
}

} // namespace

class TestWgmmaShift : public QObject {
    Q_OBJECT

private slots:
    void init();
    void probeCompilesForSm90a();
    void shiftedStartsMatchTheProduct();
    void threeByThreeRowFromOneStagedBand();
};

// Every case but the compile one runs on an sm_90a device.
void TestWgmmaShift::init() {
    if (QByteArray(QTest::currentTestFunction()) == "probeCompilesForSm90a") return;
    if (gpu::device_count() == 0) QSKIP("no GPU visible");
    if (gpu::query(0).arch != "sm_90a") QSKIP("wgmma needs sm_90a");
    gpu::make_context_current(0);
}

void TestWgmmaShift::probeCompilesForSm90a() {
    if (jit::native_platform() != jit::Platform::nvidia) QSKIP("wgmma is NVIDIA's");
    const jit::CompileResult compiled = compile_probe();
    QVERIFY2(compiled.ok, compiled.log.c_str());
    QCOMPARE(compiled.kind, jit::CodeKind::cubin);
}

void TestWgmmaShift::shiftedStartsMatchTheProduct() {
    const jit::CompileResult compiled = compile_probe();
    QVERIFY2(compiled.ok, compiled.log.c_str());
    gpu::Module module(compiled.code);
    Probe probe{module.function("gconv_tst_wgmma_shift"), {}, {}};
    auto* random = QRandomGenerator::global();
    for (int i = 0; i < 64 * 64; ++i) probe.a.push_back(random->bounded(9) - 4);
    for (int i = 0; i < 24 * 64; ++i) probe.b.push_back(random->bounded(9) - 4);

    const char* names[] = {"no swizzle", "128-byte swizzle", "64-byte swizzle"};
    for (int layout = 0; layout < 3; ++layout) {
        const int variants = layout == 0 ? 2 : 4;
        int aligned_variant = -1; // the encoding that reads an aligned start right
        std::vector<std::vector<int>> wrong(variants); // [variant][shift]
        for (int v = 0; v < variants; ++v) {
            QString line =
                QString("%1, variant %2: wrong cells per shift 0..15:").arg(names[layout]).arg(v);
            int wrong_total = 0;
            for (int shift = 0; shift < 16; ++shift) {
                wrong[v].push_back(wrong_cells(probe, layout, v, shift));
                line += QString(" %1").arg(wrong[v].back());
                wrong_total += wrong[v].back();
            }
            if (wrong[v][0] == 0 && aligned_variant < 0) aligned_variant = v;
            qInfo().noquote() << line << (wrong_total == 0 ? "(every shift right)" : "");
        }
        // The harness itself: some encoding of each layout reads an aligned tile right.
        QVERIFY2(aligned_variant >= 0, names[layout]);
        // The halo design's premise: without a swizzle, rows are 16 bytes apart inside a K
        // chunk, so a start any number of rows in reads the rows from there on.
        if (layout == 0) {
            for (int shift = 0; shift < 16; ++shift)
                QVERIFY2(wrong[aligned_variant][shift] == 0,
                         qPrintable(QString("no swizzle, shift %1").arg(shift)));
        }
    }
}

// The design end to end on one output row: every tap of a 3x3 filter as a wgmma whose B starts
// dx pixels into one staged band, accumulated in one m64n64 tile, against the convolution.
void TestWgmmaShift::threeByThreeRowFromOneStagedBand() {
    const jit::CompileResult compiled = compile_probe();
    QVERIFY2(compiled.ok, compiled.log.c_str());
    gpu::Module module(compiled.code);
    gpu::Kernel kernel = module.function("gconv_tst_wgmma_band");

    constexpr int C = 32, K = 64, COLS = 66, TAPS = 9, PIXELS = 64;
    auto* random = QRandomGenerator::global();
    std::vector<int> w(K * TAPS * C), in(3 * COLS * C);
    for (int& v : w) v = random->bounded(5) - 2;
    for (int& v : in) v = random->bounded(5) - 2;
    std::vector<std::uint16_t> wb(w.size()), inb(in.size());
    for (std::size_t i = 0; i < w.size(); ++i) wb[i] = bf16_of(w[i]);
    for (std::size_t i = 0; i < in.size(); ++i) inb[i] = bf16_of(in[i]);
    gpu::DeviceBuffer dw(wb.size() * 2), din(inb.size() * 2), dout(K * PIXELS * sizeof(float));
    dw.upload(std::span<const std::uint16_t>(wb));
    din.upload(std::span<const std::uint16_t>(inb));

    int right = 0; // encodings (which offset is the K-chunk stride) that give the convolution
    for (int swap = 0; swap < 2; ++swap) {
        dout.fill_bytes(0xFF);
        gpu::Stream stream;
        gpu::LaunchConfig config;
        config.block = {128, 1, 1};
        config.grid = {1, 1, 1};
        // The swapped reading strides the band's 8-pixel groups a chunk (1056 bytes) apart: up
        // to 55 KB from the base, past the 49.5 KB staged (see k_probe_shared_bytes).
        config.dynamic_shared_bytes = 64 * 1024;
        config.stream = stream.get();
        gpu::KernelArgs args;
        args.add(dw.as<std::uint16_t>())
            .add(din.as<std::uint16_t>())
            .add(dout.as<float>())
            .add(swap);
        gpu::launch(kernel, config, args);
        stream.synchronize();
        std::vector<float> out(K * PIXELS);
        dout.download(std::span<float>(out));
        int wrong = 0;
        for (int k = 0; k < K; ++k)
            for (int x = 0; x < PIXELS; ++x) {
                long long want = 0;
                for (int tap = 0; tap < TAPS; ++tap)
                    for (int c = 0; c < C; ++c)
                        want += w[(k * TAPS + tap) * C + c] *
                                in[((tap / 3) * COLS + x + tap % 3) * C + c];
                if (out[k * PIXELS + x] != static_cast<float>(want)) ++wrong;
            }
        qInfo().noquote() << QString("band convolution, swap %1: %2 of %3 outputs wrong")
                                 .arg(swap)
                                 .arg(wrong)
                                 .arg(K * PIXELS);
        if (wrong == 0) ++right;
    }
    QCOMPARE(right, 1);
}

QTEST_APPLESS_MAIN(TestWgmmaShift)
#include "tst_wgmma_shift.moc"
