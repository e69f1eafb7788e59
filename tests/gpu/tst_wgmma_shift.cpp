// Whether a wgmma operand may start a few K-major rows into a staged tile: the premise of feeding
// every filter tap of a small-C layer from one staged input band (docs/notes/wgmma-kernels.md,
// "taps from one staged halo"), where tap dx reads the band's pixel rows from row dx on. One
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
#include "jit/cache.h"
#include "jit/compiler.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
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
)";

std::uint16_t bf16_of(int v) {
    const float f = static_cast<float>(v);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<std::uint16_t>(bits >> 16); // small integers: exact
}

jit::CompileResult compile_probe(const jit::KernelCache& cache) {
    jit::CompileRequest request;
    request.name = "tst_wgmma_shift.hip";
    request.source = k_source;
    request.arch = "sm_90a";
    return jit::compile_cached(cache, jit::native_toolchain(), request);
}

struct Probe {
    gpu::Kernel kernel;
    std::vector<int> a, b; // 64 x kelems, 24 x kelems (the largest kelems: 64)
};

// Cells of the 64 x 8 product the probe got wrong. Every encoding tried keeps its reads inside
// the staged tiles (wrong offsets read other staged rows, never past the allocation), so a wrong
// guess shows as wrong cells, not as a fault that would end the context.
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
    config.dynamic_shared_bytes = 64 * 64 * 2 + 24 * 64 * 2 + 1024;
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
    void probeCompilesForSm90a();
    void shiftedStartsMatchTheProduct();
};

void TestWgmmaShift::probeCompilesForSm90a() {
    if (jit::native_platform() != jit::Platform::nvidia) QSKIP("wgmma is NVIDIA's");
    QTemporaryDir dir;
    const jit::KernelCache cache(dir.path().toStdString());
    const jit::CompileResult compiled = compile_probe(cache);
    QVERIFY2(compiled.ok, compiled.log.c_str());
    QCOMPARE(compiled.kind, jit::CodeKind::cubin);
}

void TestWgmmaShift::shiftedStartsMatchTheProduct() {
    if (gpu::device_count() == 0) QSKIP("no GPU visible");
    const gpu::DeviceInfo info = gpu::query(0);
    if (info.arch != "sm_90a") QSKIP("wgmma needs sm_90a");
    gpu::make_context_current(0);
    QTemporaryDir dir;
    const jit::KernelCache cache(dir.path().toStdString());
    const jit::CompileResult compiled = compile_probe(cache);
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
        for (int v = 0; v < variants; ++v) {
            QString line =
                QString("%1, variant %2: wrong cells per shift 0..15:").arg(names[layout]).arg(v);
            int wrong_total = 0;
            for (int shift = 0; shift < 16; ++shift) {
                const int wrong = wrong_cells(probe, layout, v, shift);
                line += QString(" %1").arg(wrong);
                wrong_total += wrong;
                if (shift == 0 && wrong == 0 && aligned_variant < 0) aligned_variant = v;
            }
            qInfo().noquote() << line << (wrong_total == 0 ? "(every shift right)" : "");
        }
        // The harness itself: some encoding of each layout reads an aligned tile right.
        QVERIFY2(aligned_variant >= 0, names[layout]);
        // The halo design's premise: without a swizzle, rows are 16 bytes apart inside a K
        // chunk, so a start any number of rows in reads the rows from there on.
        if (layout == 0) {
            for (int shift = 0; shift < 16; ++shift)
                QVERIFY2(wrong_cells(probe, 0, aligned_variant, shift) == 0,
                         qPrintable(QString("no swizzle, shift %1").arg(shift)));
        }
    }
}

QTEST_APPLESS_MAIN(TestWgmmaShift)
#include "tst_wgmma_shift.moc"
