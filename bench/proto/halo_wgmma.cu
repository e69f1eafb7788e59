// A standalone prototype of the wgmma convolution fed from one staged input band (docs/notes/
// wgmma-kernels.md, "taps from one staged halo"): C 32 -> K 64 under a 3x3 filter, stride 1, NHWC
// bf16, output rows of up to 168 pixels. Every tap of an output row is a wgmma.m64n168k16 pair
// whose B operand starts dx pixel rows into the band's input row r + dy (unswizzled K-major
// layout, verified by tests/gpu/tst_wgmma_shift.cpp), so each input byte crosses L2 -> SM about
// (R + 2) / R times instead of once per tap as in the im2col tile kernels.
// It answers one question before the design goes into the pool: how fast is it on
// xception.conv2.b48 (48 x 165 x 165, C 32 -> 64, pad 0) beside the pool's best and cuDNN?
// Verified against a plain fp32 reference kernel on random inputs; every CUDA call checked.
// build: nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a bench/proto/halo_wgmma.cu \
//          -o halo_wgmma   (scripts/device/check_all.sh part proto builds and runs it)
// usage: halo_wgmma [N H W PAD REPEAT]   (default 48 165 165 0 20); runs every Variant below;
// exit status 0 when every output of every variant verified, 2 when one did not, 1 bad input or
// a failed CUDA call.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_), __FILE__,  \
                         __LINE__);                                                                \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

typedef unsigned long long u64;
typedef unsigned u32;
typedef __nv_bfloat16 bf16;

constexpr int C = 32, K = 64, TAPS = 9, CHUNKS = C / 8;
constexpr int NPIX = 168;      // the instruction's N: output pixels of a row
constexpr int COLS = NPIX + 2; // band columns: the row and the taps' 2 extra
constexpr int W_BYTES = TAPS * CHUNKS * K * 16;
constexpr int STAGE_LD = K + 8; // elements per staged output pixel (8 of padding: fewer conflicts)
constexpr int STAGE_BYTES = NPIX * STAGE_LD * 2;
// A variant: ROWS output rows per band, WGS consumer warpgroups, PIPE: each warpgroup issues its
// second row's wgmmas before storing its first (two accumulator sets, ROWS = 2 x WGS).
template <int ROWS_, int WGS_, bool PIPE_> struct Variant {
    static constexpr int ROWS = ROWS_, WGS = WGS_, THREADS = WGS_ * 128;
    static constexpr bool PIPE = PIPE_;
    static constexpr int BAND_ROWS = ROWS + 2;
    static constexpr int BAND_BYTES = BAND_ROWS * CHUNKS * COLS * 16;
    static constexpr int SMEM = W_BYTES + 2 * BAND_BYTES + WGS * STAGE_BYTES + 128;
    static_assert(!PIPE || ROWS == 2 * WGS, "PIPE: two rows per warpgroup");
};

struct Problem {
    int n, h, w, pad, ho, wo;
};

__device__ u32 smem_u32(const void* p) {
    return static_cast<u32>(__cvta_generic_to_shared(p));
}
__device__ void cp_async16(u32 dst, const void* src, bool ok) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(ok ? 16 : 0)
                 : "memory");
}
// Unswizzled K-major descriptor: lbo = bytes between 8-element K chunks, sbo = between 8-row
// groups.
__device__ __forceinline__ u64 desc(u32 addr, u32 lbo, u32 sbo) {
    return static_cast<u64>((addr & 0x3FFFF) >> 4) | (static_cast<u64>(lbo >> 4) << 16) |
           (static_cast<u64>(sbo >> 4) << 32);
}
__device__ __forceinline__ void wgmma168(float* d, u64 a, u64 b, int accumulate) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %86, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n168k16.f32.bf16.bf16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%"
        "24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%"
        "46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%"
        "68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83}, %84, %85, p, 1, 1, 0, "
        "0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
          "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
          "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
          "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
          "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
          "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
          "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83])
        : "l"(a), "l"(b), "r"(accumulate));
}

// The band of output rows r0 ... r0 + ROWS - 1 of image n: input rows r0 - pad ... + BAND_ROWS,
// columns -pad ... + COLS, as [row][chunk][column][8 channels]; zeros outside the image.
template <class V>
__device__ void load_band(const bf16* in, const Problem& p, u32 band, int n, int r0) {
    for (int v = threadIdx.x; v < V::BAND_ROWS * COLS * CHUNKS; v += V::THREADS) {
        const int ch = v % CHUNKS, col = (v / CHUNKS) % COLS, row = v / (CHUNKS * COLS);
        const int ih = r0 + row - p.pad, iw = col - p.pad;
        const bool ok = ih >= 0 && ih < p.h && iw >= 0 && iw < p.w;
        const bf16* src =
            ok ? in + ((static_cast<size_t>(n) * p.h + ih) * p.w + iw) * C + ch * 8 : in;
        cp_async16(band + ((row * CHUNKS + ch) * COLS + col) * 16, src, ok);
    }
}

// The nine taps of output row rr of the band, C / 16 wgmmas each, into d (not waited for).
__device__ __forceinline__ void issue_row(float* d, u32 ws, u32 band, int rr) {
#pragma unroll
    for (int tap = 0; tap < TAPS; ++tap) {
        const int dy = tap / 3, dx = tap % 3;
#pragma unroll
        for (int kk = 0; kk < CHUNKS / 2; ++kk) { // k16 steps: two 8-channel chunks each
            const u64 da = desc(ws + (tap * CHUNKS + kk * 2) * K * 16, K * 16, 128);
            const u64 db =
                desc(band + (((rr + dy) * CHUNKS + kk * 2) * COLS + dx) * 16, COLS * 16, 128);
            wgmma168(d, da, db, tap | kk);
        }
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// Stages a finished row as [pixel][k] in the warpgroup's buffer, then stores whole 16-byte
// vectors of each pixel's 64 channels.
__device__ __forceinline__ void store_row(const float* d, bf16* stage, bf16* orow, int wo, int wg) {
    const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + wg) : "memory");
#pragma unroll
    for (int e = 0; e < NPIX / 2; ++e) {
        const int k = warp * 16 + lane / 4 + 8 * ((e >> 1) & 1);
        const int x = 8 * (e >> 2) + 2 * (lane % 4) + (e & 1);
        stage[x * STAGE_LD + k] = __float2bfloat16(d[e]);
    }
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + wg) : "memory");
    for (int v = t; v < wo * (K / 8); v += 128) {
        const int x = v / (K / 8), kv = v % (K / 8);
        *reinterpret_cast<uint4*>(orow + x * K + kv * 8) =
            *reinterpret_cast<const uint4*>(stage + x * STAGE_LD + kv * 8);
    }
}

template <class V>
__global__ void __launch_bounds__(V::THREADS, 1)
    halo_conv(const bf16* __restrict__ in, const bf16* __restrict__ wei, bf16* __restrict__ out,
              Problem p) {
    extern __shared__ __align__(128) unsigned char raw[];
    unsigned char* base = raw + ((128 - (smem_u32(raw) & 127)) & 127);
    const u32 ws = smem_u32(base);
    bf16* stage = reinterpret_cast<bf16*>(base + W_BYTES + 2 * V::BAND_BYTES);
    const int tid = threadIdx.x, wg = tid / 128;
    bf16* my_stage = stage + wg * (STAGE_BYTES / 2);

    // The filter (KYXC) as A: [tap][chunk][k][8 channels].
    for (int v = tid; v < K * TAPS * CHUNKS; v += V::THREADS) {
        const int ch = v % CHUNKS, tap = (v / CHUNKS) % TAPS, k = v / (CHUNKS * TAPS);
        cp_async16(ws + ((tap * CHUNKS + ch) * K + k) * 16, wei + (k * TAPS + tap) * C + ch * 8,
                   true);
    }
    const int per_image = (p.ho + V::ROWS - 1) / V::ROWS, total = p.n * per_image;
    int b = blockIdx.x;
    if (b < total) load_band<V>(in, p, ws + W_BYTES, b / per_image, (b % per_image) * V::ROWS);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    for (int i = 0; b < total; b += gridDim.x, ++i) {
        const int nb = b + gridDim.x;
        if (nb < total)
            load_band<V>(in, p, ws + W_BYTES + ((i + 1) & 1) * V::BAND_BYTES, nb / per_image,
                         (nb % per_image) * V::ROWS);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        asm volatile("cp.async.wait_group 1;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        const int n = b / per_image, r0 = (b % per_image) * V::ROWS;
        const int rows = p.ho - r0 < V::ROWS ? p.ho - r0 : V::ROWS;
        const u32 band = ws + W_BYTES + (i & 1) * V::BAND_BYTES;
        bf16* oband = out + (static_cast<size_t>(n) * p.ho + r0) * p.wo * K;
        if constexpr (V::PIPE) {
            // Both rows are always multiplied (a row past the band's last reads zero-filled
            // band rows) so no wgmma sits on a divergent path; only their stores are guarded.
            const int ra = wg, rb = wg + V::WGS;
            float da[NPIX / 2], db[NPIX / 2];
#pragma unroll
            for (int e = 0; e < NPIX / 2; ++e) da[e] = db[e] = 0.f;
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
            issue_row(da, ws, band, ra);
            issue_row(db, ws, band, rb);
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
            if (ra < rows) store_row(da, my_stage, oband + ra * p.wo * K, p.wo, wg);
            asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
            if (rb < rows) store_row(db, my_stage, oband + rb * p.wo * K, p.wo, wg);
        } else {
            for (int rr = wg; rr < rows; rr += V::WGS) {
                float d[NPIX / 2];
#pragma unroll
                for (int e = 0; e < NPIX / 2; ++e) d[e] = 0.f; // the first wgmma ignores them
                asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
                issue_row(d, ws, band, rr);
                asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
                store_row(d, my_stage, oband + rr * p.wo * K, p.wo, wg);
            }
        }
        __syncthreads(); // every warpgroup is done with this band before it is refilled
    }
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

__global__ void reference(const bf16* in, const bf16* wei, float* out, Problem p) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    const size_t count = static_cast<size_t>(p.n) * p.ho * p.wo * K;
    if (i >= count) return;
    const int k = i % K, x = (i / K) % p.wo, y = (i / K / p.wo) % p.ho, n = i / K / p.wo / p.ho;
    float s = 0.f;
    for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) {
            const int ih = y + dy - p.pad, iw = x + dx - p.pad;
            if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
            const bf16* a = in + ((static_cast<size_t>(n) * p.h + ih) * p.w + iw) * C;
            const bf16* w = wei + (k * TAPS + dy * 3 + dx) * C;
            for (int c = 0; c < C; ++c) s += __bfloat162float(a[c]) * __bfloat162float(w[c]);
        }
    out[i] = s;
}

__global__ void fill_random(bf16* x, size_t count, u32 seed) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        u32 h = static_cast<u32>(i) * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        x[i] = __float2bfloat16(static_cast<float>(h & 0xFFFF) / 32768.f - 1.f);
    }
}

struct Buffers {
    bf16 *in, *wei, *out;
    std::vector<float> want; // the reference's outputs
    size_t in_n, w_n, out_n;
};

// One variant: launched once and compared with the reference (the output is first filled with
// NaNs, so an unwritten output counts as wrong), then timed; prints one line, returns the
// number of wrong outputs.
template <class V> size_t run_variant(const char* name, const Problem& p, Buffers& b, int repeat) {
    int sms = 0, optin = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    if (V::SMEM > optin) {
        std::printf("%s: %d B of shared memory, over the device's %d: not run\n", name, V::SMEM,
                    optin);
        return 0;
    }
    CHECK(cudaFuncSetAttribute(halo_conv<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, V::SMEM));
    const int total = p.n * ((p.ho + V::ROWS - 1) / V::ROWS);
    const int grid = total < sms ? total : sms;
    CHECK(cudaMemset(b.out, 0xFF, b.out_n * 2));
    halo_conv<V><<<grid, V::THREADS, V::SMEM>>>(b.in, b.wei, b.out, p);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<bf16> got(b.out_n);
    CHECK(cudaMemcpy(got.data(), b.out, b.out_n * 2, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    double max_rel = 0;
    for (size_t i = 0; i < b.out_n; ++i) {
        const double g = __bfloat162float(got[i]), w = b.want[i];
        const double rel = std::fabs(g - w) / std::fmax(std::fabs(w), 1.0);
        if (!(rel <= 1e-2)) ++bad; // NaN (an unwritten output) counts as wrong
        if (rel > max_rel || rel != rel) max_rel = rel != rel ? INFINITY : rel;
    }
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int i = 0; i < 3; ++i) halo_conv<V><<<grid, V::THREADS, V::SMEM>>>(b.in, b.wei, b.out, p);
    CHECK(cudaEventRecord(e0));
    for (int i = 0; i < repeat; ++i)
        halo_conv<V><<<grid, V::THREADS, V::SMEM>>>(b.in, b.wei, b.out, p);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    ms /= repeat;
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    const double bytes = (b.in_n + b.w_n + b.out_n) * 2.0, flops = 2.0 * b.out_n * C * TAPS;
    std::printf("%-22s N %d %dx%d pad %d -> %dx%d: grid %d x %d threads, %d B shared; %zu of %zu "
                "outputs wrong, max_rel_err %.3g; %.4f ms, %.0f GB/s minimal, %.1f TFLOP/s\n",
                name, p.n, p.h, p.w, p.pad, p.ho, p.wo, grid, V::THREADS, V::SMEM, bad, b.out_n,
                max_rel, ms, bytes / ms / 1e6, flops / ms / 1e9);
    return bad;
}

int main(int argc, char** argv) {
    Problem p{48, 165, 165, 0, 0, 0};
    int repeat = 20;
    if (argc > 1) p.n = std::atoi(argv[1]);
    if (argc > 2) p.h = std::atoi(argv[2]);
    if (argc > 3) p.w = std::atoi(argv[3]);
    if (argc > 4) p.pad = std::atoi(argv[4]);
    if (argc > 5) repeat = std::atoi(argv[5]);
    p.ho = p.h + 2 * p.pad - 2, p.wo = p.w + 2 * p.pad - 2;
    if (p.wo > NPIX || p.wo < 1 || p.ho < 1 || p.n < 1 || repeat < 1) {
        std::fprintf(stderr, "halo_wgmma: output width %d outside 1..%d (or N, H, repeat < 1)\n",
                     p.wo, NPIX);
        return 1;
    }
    Buffers b;
    b.in_n = static_cast<size_t>(p.n) * p.h * p.w * C, b.w_n = K * TAPS * C;
    b.out_n = static_cast<size_t>(p.n) * p.ho * p.wo * K;
    float* ref;
    CHECK(cudaMalloc(&b.in, b.in_n * 2));
    CHECK(cudaMalloc(&b.wei, b.w_n * 2));
    CHECK(cudaMalloc(&b.out, b.out_n * 2));
    CHECK(cudaMalloc(&ref, b.out_n * 4));
    fill_random<<<1024, 256>>>(b.in, b.in_n, 0x1234u);
    fill_random<<<64, 256>>>(b.wei, b.w_n, 0x9876u);
    CHECK(cudaGetLastError());
    reference<<<static_cast<unsigned>((b.out_n + 255) / 256), 256>>>(b.in, b.wei, ref, p);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    b.want.resize(b.out_n);
    CHECK(cudaMemcpy(b.want.data(), ref, b.out_n * 4, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    bad += run_variant<Variant<4, 2, false>>("rows 4, 2 wg", p, b, repeat);
    bad += run_variant<Variant<4, 2, true>>("rows 4, 2 wg, pipe", p, b, repeat);
    bad += run_variant<Variant<3, 3, false>>("rows 3, 3 wg", p, b, repeat);
    CHECK(cudaFree(ref));
    CHECK(cudaFree(b.in));
    CHECK(cudaFree(b.wei));
    CHECK(cudaFree(b.out));
    return bad == 0 ? 0 : 2;
}
