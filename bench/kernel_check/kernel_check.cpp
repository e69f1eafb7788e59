// gconv kernel check: generates kernel sources (forward, bwd_data, bwd_weight) with
// core/codegen, compiles them with NVRTC exactly as the JIT does (named headers from
// core/kernels), then on the GPU runs each (config, problem) pair's launch sequence
// (codegen/launch_sequence.h) and verifies it against the reference kernel (itself checked
// against a CPU convolution on tiny shapes), and times baseline shapes with events.
//   kernel_check <core/kernels dir> [--compile-only] [--configs N] [--seed S] [--time]
//                [--variant forward|bwd_data|bwd_weight|all]
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"
#include "codegen/launch_sequence.h"

#include <cuda.h>
#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace gconv;

namespace {

#define CU(call)                                                                                   \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char* s_ = nullptr;                                                              \
            cuGetErrorString(r_, &s_);                                                             \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?");      \
            std::exit(2);                                                                          \
        }                                                                                          \
    } while (0)

std::vector<std::pair<std::string, std::string>> g_headers;

void load_headers(const std::string& dir) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".h") continue;
        const std::string name = entry.path().filename().string();
        std::ifstream f(entry.path());
        if (!f) {
            std::fprintf(stderr, "cannot read %s/%s\n", dir.c_str(), name.c_str());
            std::exit(2);
        }
        std::stringstream ss;
        ss << f.rdbuf();
        g_headers.emplace_back(name, ss.str());
    }
}

struct Compiled {
    bool ok = false;
    std::string log;
    std::vector<char> cubin;
    double seconds = 0;
};

Compiled compile(const std::string& source, const std::string& arch) {
    Compiled out;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<const char*> hs, hn;
    for (auto& [n, s] : g_headers) {
        hn.push_back(n.c_str());
        hs.push_back(s.c_str());
    }
    nvrtcProgram prog;
    nvrtcCreateProgram(&prog, source.c_str(), "gconv_kernel.cu", static_cast<int>(hs.size()),
                       hs.data(), hn.data());
    const std::string a = "--gpu-architecture=" + arch;
    const char* opts[] = {a.c_str(), "-std=c++17", "--ptxas-options=-v"};
    const nvrtcResult r = nvrtcCompileProgram(prog, 3, opts);
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    out.log.resize(n);
    nvrtcGetProgramLog(prog, out.log.data());
    if (r == NVRTC_SUCCESS) {
        nvrtcGetCUBINSize(prog, &n);
        out.cubin.resize(n);
        nvrtcGetCUBIN(prog, out.cubin.data());
        out.ok = true;
    }
    nvrtcDestroyProgram(&prog);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

// "ptxas info    : Used 128 registers, ..." -> "128 regs, 0 spill"
std::string resource_summary(const std::string& log) {
    std::string regs = "?", spill = "0";
    auto p = log.find("Used ");
    if (p != std::string::npos) regs = log.substr(p + 5, log.find(' ', p + 5) - p - 5);
    auto q = log.find("bytes spill stores");
    if (q != std::string::npos) {
        auto b = log.rfind(',', q);
        spill = log.substr(b + 2, q - b - 3);
    }
    return regs + " regs, " + spill + " B spill";
}

// ---------------- config space sampling ----------------
std::string describe(const KernelConfig& c) {
    std::ostringstream s;
    s << to_string(c.variant) << ' ' << to_string(c.dtype) << ' ' << c.ndim_spatial << "d "
      << c.tile_m << 'x' << c.tile_n << 'x' << c.tile_k << " w" << c.wave_m << 'x' << c.wave_n
      << " wt" << c.warp_tile_m << 'x' << c.warp_tile_n << 'x' << c.warp_tile_k << ' '
      << to_string(c.pipeline) << ' ' << to_string(c.scheduler) << ' ' << to_string(c.epilogue)
      << " v" << c.vector_size_a << c.vector_size_b << c.vector_size_c << " gm"
      << c.num_groups_to_merge << (c.double_smem_buffer ? " dsb" : "")
      << (c.split_image ? " si" : "") << (c.pad_m && c.pad_n && c.pad_k ? "" : " nopad") << " bpc"
      << c.block_per_cu;
    if (c.variant == Variant::BwdWeight)
        s << " sk" << c.split_k << ' ' << to_string(c.split_k_mode);
    return s.str();
}

template <typename T> T pick(std::mt19937& rng, std::initializer_list<T> v) {
    return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng));
}

// A random legal config (by is_supported's config-only rules on a permissive problem).
KernelConfig random_config(std::mt19937& rng, DataType dtype, int ndim,
                           Variant variant = Variant::Forward) {
    Problem loose;
    loose.ndim_spatial = ndim;
    loose.N = 2, loose.C = 64, loose.K = 64, loose.G = 1, loose.Hi = 8, loose.Wi = 8;
    if (ndim == 3) loose.Di = 4;
    for (;;) {
        KernelConfig c;
        c.variant = variant;
        c.dtype = dtype;
        c.ndim_spatial = ndim;
        c.tile_m = pick(rng, {16, 32, 64, 128, 256});
        c.tile_n = pick(rng, {16, 32, 64, 128, 256});
        c.tile_k = pick(rng, {16, 32, 64, 128});
        c.wave_m = pick(rng, {1, 2, 4, 8});
        c.wave_n = pick(rng, {1, 2, 4, 8});
        if (dtype == DataType::FP32) {
            c.warp_tile_m = pick(rng, {8, 16, 32, 64});
            c.warp_tile_n = pick(rng, {8, 16, 32, 64});
            c.warp_tile_k = pick(rng, {1, 2, 4, 8});
        } else {
            c.warp_tile_m = pick(rng, {16, 32, 64});
            c.warp_tile_n = pick(rng, {8, 16, 32, 64});
            c.warp_tile_k = pick(rng, {16, 32});
        }
        c.pipeline =
            pick(rng, {Pipeline::BasicV1, Pipeline::Mem, Pipeline::CompV3, Pipeline::CompV4,
                       Pipeline::CompV5, Pipeline::CompV6, Pipeline::CompAsync});
        c.scheduler = pick(rng, {Scheduler::Intrawave, Scheduler::Interwave});
        c.epilogue = pick(rng, {Epilogue::CShuffle, Epilogue::Direct});
        c.double_smem_buffer = c.pipeline == Pipeline::CompV4 || c.pipeline == Pipeline::CompV5 ||
                               (c.pipeline == Pipeline::BasicV1 && pick(rng, {false, true}));
        c.num_wave_groups = c.pipeline == Pipeline::CompV5 ? 2 : 1;
        const int vmax = dtype == DataType::FP32 ? 4 : 8;
        c.vector_size_a = std::min(vmax, pick(rng, {1, 2, 4, 8}));
        c.vector_size_b = std::min(vmax, pick(rng, {1, 2, 4, 8}));
        c.vector_size_c = std::min(vmax, pick(rng, {1, 2, 4, 8}));
        c.num_groups_to_merge = pick(rng, {1, 1, 2, 4, 8});
        c.split_image = pick(rng, {false, true});
        c.block_per_cu = pick(rng, {1, 1, 2});
        c.pad_m = pick(rng, {true, true, true, false});
        c.pad_n = pick(rng, {true, true, true, false});
        c.pad_k = pick(rng, {true, true, true, false});
        if (variant != Variant::Forward) {
            // The backward pipelines the rules keep (variant_pipeline).
            c.pipeline = pick(rng, {Pipeline::BasicV1, Pipeline::Mem, Pipeline::CompV3});
            c.double_smem_buffer = c.pipeline == Pipeline::BasicV1 && pick(rng, {false, true});
            c.num_wave_groups = 1;
        }
        if (variant != Variant::Forward && pick(rng, {false, true})) {
            // Narrow vectors: most small problems have C/G, K/G that wide ones do not divide.
            c.vector_size_a = std::min(c.vector_size_a, 2);
            c.vector_size_b = std::min(c.vector_size_b, 2);
            c.vector_size_c = std::min(c.vector_size_c, 2);
        }
        if (variant == Variant::BwdWeight) {
            c.num_groups_to_merge = 1;
            c.split_k = pick(rng, {1, 1, 2, 4, 7});
            c.split_k_mode = c.split_k == 1 ? pick(rng, {SplitKMode::None, SplitKMode::TwoStage})
                                            : pick(rng, {SplitKMode::Atomic, SplitKMode::TwoStage});
        }
        loose.G = c.num_groups_to_merge;
        loose.C = loose.K = 8 * loose.G;
        // Judge config-only rules on a problem that no pad_* rule rejects.
        KernelConfig padded = c;
        padded.pad_m = padded.pad_n = padded.pad_k = true;
        const SupportCheck s = is_supported(padded, loose);
        if (s.ok && shared_bytes(c) <= 227 * 1024) return c;
    }
}

// ---------------- problems ----------------
Problem make_problem(int n, int c, int k, int g, int h, int w, int y, int x, int s, int pd,
                     int dil = 1, int d = 1, int z = 1) {
    Problem p;
    p.N = n, p.C = c, p.K = k, p.G = g, p.Hi = h, p.Wi = w, p.Y = y, p.X = x;
    p.stride_h = p.stride_w = s;
    p.pad_h = p.pad_w = pd;
    p.dilation_h = p.dilation_w = dil;
    if (d > 1 || z > 1) {
        p.ndim_spatial = 3;
        p.Di = d, p.Z = z, p.stride_d = s, p.pad_d = pd, p.dilation_d = dil;
    }
    return p;
}

std::vector<Problem> small_problems(int ndim) {
    std::vector<Problem> v;
    if (ndim == 2) {
        v.push_back(make_problem(2, 64, 64, 1, 9, 11, 3, 3, 1, 1));     // G=1, M tail
        v.push_back(make_problem(3, 96, 80, 4, 7, 9, 3, 3, 2, 1));      // stride 2, tails
        v.push_back(make_problem(2, 48, 48, 48, 10, 10, 3, 3, 1, 1));   // depthwise
        v.push_back(make_problem(1, 120, 72, 6, 13, 9, 3, 3, 1, 2, 2)); // dilation 2, Cpg 20
        v.push_back(make_problem(2, 72, 40, 8, 6, 7, 1, 1, 1, 0));      // 1x1, Cpg 9, Kpg 5
        v.push_back(make_problem(2, 256, 256, 2, 6, 6, 3, 3, 1, 1));    // big K: many k tiles
        v.push_back(make_problem(4, 24, 24, 3, 5, 5, 5, 5, 1, 2));      // 5x5, G=3 (gm tail)
        v.push_back(make_problem(1, 32, 32, 32, 8, 8, 7, 7, 1, 3));     // 7x7 depthwise
        v.push_back(make_problem(2, 128, 128, 2, 16, 16, 1, 1, 1, 0));  // exact tiles (no-pad)
        v.push_back(make_problem(2, 128, 128, 2, 16, 16, 3, 3, 1, 1));  // exact, 3x3
        v.push_back(make_problem(4, 256, 256, 1, 8, 8, 3, 3, 1, 1));    // exact, wide N
        v.push_back(make_problem(2, 32, 48, 2, 11, 10, 3, 3, 3, 1));    // stride 3, tails
        v.push_back(make_problem(2, 16, 32, 1, 9, 9, 1, 1, 2, 0));      // 1x1 s2: untouched dIn
        v.push_back(make_problem(1, 64, 64, 4, 12, 12, 5, 5, 2, 2, 2)); // 5x5 s2 dilation 2
    } else {
        v.push_back(make_problem(2, 32, 32, 4, 6, 7, 3, 3, 1, 1, 1, 5, 3));   // 3D grouped
        v.push_back(make_problem(1, 24, 24, 24, 5, 5, 3, 3, 2, 1, 1, 6, 3));  // 3D depthwise s2
        v.push_back(make_problem(2, 64, 32, 2, 4, 5, 1, 1, 1, 0, 1, 3, 1));   // 3D 1x1x1
        v.push_back(make_problem(1, 40, 40, 5, 6, 6, 3, 3, 1, 2, 2, 5, 3));   // 3D dilation
        v.push_back(make_problem(2, 128, 128, 2, 4, 8, 3, 3, 1, 1, 1, 4, 3)); // 3D exact tiles
        v.push_back(make_problem(1, 16, 16, 1, 7, 8, 3, 3, 3, 1, 1, 7, 3));   // 3D stride 3
    }
    return v;
}

// ---------------- device helpers ----------------
struct RefModule {
    CUmodule mod;
    CUfunction fwd, bwd_data, bwd_weight, fill, poison, poison_f32;
};
std::map<DataType, RefModule> g_ref;

void launch1d(CUfunction f, void** args, long long n) {
    const unsigned blocks = static_cast<unsigned>(std::min<long long>((n + 255) / 256, 65535));
    CU(cuLaunchKernel(f, std::max(1u, blocks), 1, 1, 256, 1, 1, 0, 0, args, nullptr));
}
void fill_random(DataType dt, CUdeviceptr p, long long n, unsigned long long seed, float scale) {
    void* ptr = reinterpret_cast<void*>(p);
    void* args[] = {&ptr, &n, &seed, &scale};
    launch1d(g_ref[dt].fill, args, n);
}
void fill_poison(CUfunction f, CUdeviceptr p, long long n) {
    void* ptr = reinterpret_cast<void*>(p);
    void* args[] = {&ptr, &n};
    launch1d(f, args, n);
}

float to_f(DataType dt, const unsigned char* base, size_t i) {
    if (dt == DataType::FP32) {
        float f;
        std::memcpy(&f, base + 4 * i, 4);
        return f;
    }
    uint16_t h;
    std::memcpy(&h, base + 2 * i, 2);
    if (dt == DataType::BF16) {
        uint32_t u = uint32_t(h) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    const uint32_t sign = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 0)
        v = std::ldexp(float(m), -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = std::ldexp(float(m | 1024), int(e) - 25);
    return sign ? -v : v;
}

double tolerance(DataType dt) {
    return dt == DataType::BF16 ? 1e-2 : dt == DataType::FP16 ? 2e-3 : 1e-5;
}

struct Buffers {
    CUdeviceptr in = 0, wei = 0, out = 0, ref = 0, ws = 0;
    size_t cap_in = 0, cap_wei = 0, cap_out = 0, cap_ref = 0, cap_ws = 0;
    void ensure(CUdeviceptr& p, size_t& cap, size_t bytes) {
        if (bytes <= cap) return;
        if (p) cuMemFree(p);
        CU(cuMemAlloc(&p, bytes));
        cap = bytes;
    }
};

// Relative L2 error of the kernel's output against the fp32 reference; NaN if any NaN.
double compare(DataType dt, CUdeviceptr out, CUdeviceptr ref, size_t n, size_t* nan_count) {
    std::vector<unsigned char> o(n * element_bytes(dt));
    std::vector<float> r(n);
    CU(cuMemcpyDtoH(o.data(), out, o.size()));
    CU(cuMemcpyDtoH(r.data(), ref, n * 4));
    double num = 0, den = 0;
    size_t nans = 0;
    for (size_t i = 0; i < n; ++i) {
        const float v = to_f(dt, o.data(), i);
        if (std::isnan(v) || std::isnan(r[i])) {
            ++nans;
            continue;
        }
        num += double(v - r[i]) * double(v - r[i]);
        den += double(r[i]) * double(r[i]);
    }
    *nan_count = nans;
    if (nans) return NAN;
    return std::sqrt(num / std::max(den, 1e-30));
}

// CPU direct convolution, all three directions, double accumulation.
void cpu_reference(const Problem& p, const std::vector<float>& in, const std::vector<float>& wei,
                   const std::vector<float>& dout, std::vector<double>& fwd,
                   std::vector<double>& bwd_d, std::vector<double>& bwd_w) {
    const int64_t cpg = p.c_per_group(), kpg = p.k_per_group();
    const int64_t Do = p.Do(), Ho = p.Ho(), Wo = p.Wo();
    fwd.assign(p.output_elements(), 0);
    bwd_d.assign(p.input_elements(), 0);
    bwd_w.assign(p.weight_elements(), 0);
    auto ii = [&](int64_t n, int64_t d, int64_t h, int64_t w, int64_t g, int64_t c) {
        return ((((n * p.Di + d) * p.Hi + h) * p.Wi + w) * p.G + g) * cpg + c;
    };
    auto wi = [&](int64_t g, int64_t k, int64_t z, int64_t y, int64_t x, int64_t c) {
        return ((((g * kpg + k) * p.Z + z) * p.Y + y) * p.X + x) * cpg + c;
    };
    auto oi = [&](int64_t n, int64_t d, int64_t h, int64_t w, int64_t g, int64_t k) {
        return ((((n * Do + d) * Ho + h) * Wo + w) * p.G + g) * kpg + k;
    };
    for (int64_t n = 0; n < p.N; ++n)
        for (int64_t od = 0; od < Do; ++od)
            for (int64_t oh = 0; oh < Ho; ++oh)
                for (int64_t ow = 0; ow < Wo; ++ow)
                    for (int64_t g = 0; g < p.G; ++g)
                        for (int64_t z = 0; z < p.Z; ++z)
                            for (int64_t y = 0; y < p.Y; ++y)
                                for (int64_t x = 0; x < p.X; ++x) {
                                    const int64_t d = od * p.stride_d - p.pad_d + z * p.dilation_d;
                                    const int64_t h = oh * p.stride_h - p.pad_h + y * p.dilation_h;
                                    const int64_t w = ow * p.stride_w - p.pad_w + x * p.dilation_w;
                                    if (d < 0 || d >= p.Di || h < 0 || h >= p.Hi || w < 0 ||
                                        w >= p.Wi)
                                        continue;
                                    for (int64_t k = 0; k < kpg; ++k)
                                        for (int64_t c = 0; c < cpg; ++c) {
                                            const double a = in[ii(n, d, h, w, g, c)];
                                            const double b = wei[wi(g, k, z, y, x, c)];
                                            const double o = dout[oi(n, od, oh, ow, g, k)];
                                            fwd[oi(n, od, oh, ow, g, k)] += a * b;
                                            bwd_d[ii(n, d, h, w, g, c)] += o * b;
                                            bwd_w[wi(g, k, z, y, x, c)] += o * a;
                                        }
                                }
}

double rel_err(const std::vector<float>& got, const std::vector<double>& want) {
    double num = 0, den = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        if (std::isnan(got[i])) return NAN;
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    return std::sqrt(num / std::max(den, 1e-30));
}

std::vector<float> download(DataType dt, CUdeviceptr p, size_t n) {
    std::vector<unsigned char> raw(n * element_bytes(dt));
    CU(cuMemcpyDtoH(raw.data(), p, raw.size()));
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = to_f(dt, raw.data(), i);
    return v;
}

void run_reference(DataType dt, CUfunction f, const ConvParams& q, CUdeviceptr result,
                   long long n) {
    ConvParams qq = q;
    void* r = reinterpret_cast<void*>(result);
    void* args[] = {&qq, &r};
    launch1d(f, args, n);
}

int failures = 0;
long long verified_pairs = 0; // (config, problem) pairs that ran and were compared

// Reference kernels vs the CPU on tiny shapes, all three directions.
void check_reference(DataType dt, Buffers& b) {
    const std::vector<Problem> tiny = {make_problem(2, 8, 12, 2, 5, 6, 3, 3, 2, 1),
                                       make_problem(1, 6, 6, 6, 7, 5, 3, 3, 1, 2, 2),
                                       make_problem(2, 8, 4, 2, 4, 5, 3, 3, 1, 1, 1, 4, 3)};
    for (const Problem& p : tiny) {
        const size_t ni = p.input_elements(), nw = p.weight_elements(), no = p.output_elements();
        const size_t e = element_bytes(dt);
        b.ensure(b.in, b.cap_in, ni * e);
        b.ensure(b.wei, b.cap_wei, nw * e);
        b.ensure(b.out, b.cap_out, no * e);
        b.ensure(b.ref, b.cap_ref, std::max({ni, nw, no}) * 4);
        fill_random(dt, b.in, ni, 11, 1.f);
        fill_random(dt, b.wei, nw, 12, 1.f);
        fill_random(dt, b.out, no, 13, 1.f);
        std::vector<double> f, bd, bw;
        cpu_reference(p, download(dt, b.in, ni), download(dt, b.wei, nw), download(dt, b.out, no),
                      f, bd, bw);
        const ConvParams q =
            make_params(p, reinterpret_cast<void*>(b.in), reinterpret_cast<void*>(b.wei),
                        reinterpret_cast<void*>(b.out));
        struct {
            const char* name;
            CUfunction fn;
            std::vector<double>* want;
        } dirs[] = {{"forward", g_ref[dt].fwd, &f},
                    {"bwd_data", g_ref[dt].bwd_data, &bd},
                    {"bwd_weight", g_ref[dt].bwd_weight, &bw}};
        for (auto& d : dirs) {
            fill_poison(g_ref[dt].poison_f32, b.ref, d.want->size());
            run_reference(dt, d.fn, q, b.ref, d.want->size());
            CU(cuCtxSynchronize());
            std::vector<float> got(d.want->size());
            CU(cuMemcpyDtoH(got.data(), b.ref, got.size() * 4));
            const double err = rel_err(got, *d.want);
            const bool ok = err < 1e-5;
            if (!ok) ++failures;
            std::printf("REF %s %-10s %-40s rel %.2e %s\n", std::string(to_string(dt)).c_str(),
                        d.name, p.key().c_str(), err, ok ? "ok" : "FAIL");
        }
    }
}

struct Job {
    KernelConfig config;
    std::string source;
    Compiled compiled;
};

void compile_all(std::vector<Job>& jobs, int threads) {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (size_t i; (i = next++) < jobs.size();)
                jobs[i].compiled = compile(jobs[i].source, "sm_90");
        });
    for (auto& t : pool) t.join();
}

CUfunction load(const Compiled& c, const char* name, CUmodule* mod) {
    CU(cuModuleLoadData(mod, c.cubin.data()));
    CUfunction f;
    CU(cuModuleGetFunction(&f, *mod, name));
    return f;
}

// Runs one launch sequence (memsets, kernels) with the given tensors and workspace.
void run_sequence(const LaunchSequence& seq, const std::map<std::string, CUfunction>& fns,
                  ConvParams q, CUdeviceptr ws) {
    void* wsp = reinterpret_cast<void*>(ws);
    for (const LaunchStep& st : seq.steps) {
        if (st.kind == LaunchStep::Kind::Memset) {
            const CUdeviceptr base = st.memset.buffer == LaunchBuffer::Workspace ? ws
                                     : st.memset.buffer == LaunchBuffer::Weight ? CUdeviceptr(q.wei)
                                     : st.memset.buffer == LaunchBuffer::Input  ? CUdeviceptr(q.in)
                                                                               : CUdeviceptr(q.out);
            CU(cuMemsetD8Async(base, 0, st.memset.bytes, 0));
            continue;
        }
        const KernelStep& k = st.kernel;
        void* args[] = {&q, &wsp};
        CU(cuLaunchKernel(fns.at(k.entry), k.grid_x, k.grid_y, k.grid_z, k.block_threads, 1, 1,
                          unsigned(k.shared_bytes), 0, args, nullptr));
    }
}

std::map<std::string, CUfunction> sequence_functions(const Compiled& compiled,
                                                     const LaunchSequence& seq, CUmodule* mod) {
    CU(cuModuleLoadData(mod, compiled.cubin.data()));
    std::map<std::string, CUfunction> fns;
    for (const LaunchStep& st : seq.steps) {
        if (st.kind != LaunchStep::Kind::Kernel || fns.count(st.kernel.entry)) continue;
        CUfunction f;
        CU(cuModuleGetFunction(&f, *mod, st.kernel.entry.c_str()));
        CU(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              int(st.kernel.shared_bytes)));
        fns[st.kernel.entry] = f;
    }
    return fns;
}

// Backward: fill the tensors the direction reads, poison the one it writes, run its launch
// sequence twice (a second run must not accumulate onto the first) and compare.
bool verify_backward(Job& job, Buffers& b, unsigned long long seed) {
    const KernelConfig& c = job.config;
    const bool bwd_data = c.variant == Variant::BwdData;
    bool all_ok = true;
    int tested = 0;
    CUmodule mod = nullptr;
    std::map<std::string, CUfunction> fns;
    for (const Problem& p : small_problems(c.ndim_spatial)) {
        if (!is_supported(c, p).ok) continue;
        const LaunchSequence seq = plan_sequence(c, p);
        if (!mod) fns = sequence_functions(job.compiled, seq, &mod);
        const DataType dt = c.dtype;
        const size_t ni = p.input_elements(), nw = p.weight_elements(), no = p.output_elements();
        const size_t e = element_bytes(dt);
        const size_t nres = bwd_data ? ni : nw;
        b.ensure(b.in, b.cap_in, ni * e);
        b.ensure(b.wei, b.cap_wei, nw * (dt == DataType::FP32 ? 4 : e));
        b.ensure(b.out, b.cap_out, no * e);
        b.ensure(b.ref, b.cap_ref, nres * 4);
        b.ensure(b.ws, b.cap_ws, std::max<size_t>(seq.workspace_bytes, 4));
        fill_random(dt, b.out, no, seed * 3 + 1, 1.f); // dOut
        if (bwd_data) {
            fill_random(dt, b.wei, nw, seed * 3 + 2, 1.f);
            fill_poison(g_ref[dt].poison, b.in, ni);
        } else {
            fill_random(dt, b.in, ni, seed * 3 + 2, 1.f);
            fill_poison(g_ref[dt].poison, b.wei, nw);
        }
        fill_poison(g_ref[dt].poison_f32, b.ws, std::max<size_t>(seq.workspace_bytes, 4) / 4);
        fill_poison(g_ref[dt].poison_f32, b.ref, nres);
        ConvParams q = seq.params;
        q.in = reinterpret_cast<void*>(b.in);
        q.wei = reinterpret_cast<void*>(b.wei);
        q.out = reinterpret_cast<void*>(b.out);
        run_sequence(seq, fns, q, b.ws);
        run_sequence(seq, fns, q, b.ws);
        run_reference(dt, bwd_data ? g_ref[dt].bwd_data : g_ref[dt].bwd_weight,
                      make_params(p, q.in, q.wei, q.out), b.ref, nres);
        CU(cuCtxSynchronize());
        size_t nans = 0;
        const double err = compare(dt, bwd_data ? b.in : b.wei, b.ref, nres, &nans);
        const bool ok = !std::isnan(err) && err < tolerance(dt);
        ++tested;
        ++verified_pairs;
        if (!ok) {
            all_ok = false;
            std::printf("FAIL %s | %s rel %.3e nan %zu\n", describe(c).c_str(), p.key().c_str(),
                        err, nans);
        }
        ++seed;
    }
    if (mod) cuModuleUnload(mod);
    std::printf("%s %-110s %d problems, %s, compile %.2fs\n", all_ok ? "ok  " : "BAD ",
                describe(c).c_str(), tested, resource_summary(job.compiled.log).c_str(),
                job.compiled.seconds);
    return all_ok;
}

// Verify one job on every supported problem; returns false on any failure.
bool verify(Job& job, Buffers& b, unsigned long long seed) {
    const KernelConfig& c = job.config;
    if (c.variant != Variant::Forward) return verify_backward(job, b, seed);
    CUmodule mod;
    CUfunction f = load(job.compiled, std::string(kernel_entry_name()).c_str(), &mod);
    const size_t smem = shared_bytes(c);
    CU(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(smem)));
    bool all_ok = true;
    int tested = 0;
    for (const Problem& p : small_problems(c.ndim_spatial)) {
        // Small piece limit so that split-image kernels really run several pieces.
        const int64_t limit = c.split_image ? std::max<int64_t>(p.Di * p.Hi * p.Wi * p.C,
                                                                p.Do() * p.Ho() * p.Wo() * p.K)
                                            : k_max_piece_elements;
        if (!is_supported(c, p, 32, limit).ok) continue;
        const DataType dt = c.dtype;
        const size_t ni = p.input_elements(), nw = p.weight_elements(), no = p.output_elements();
        const size_t e = element_bytes(dt);
        b.ensure(b.in, b.cap_in, ni * e);
        b.ensure(b.wei, b.cap_wei, nw * e);
        b.ensure(b.out, b.cap_out, no * e);
        b.ensure(b.ref, b.cap_ref, no * 4);
        fill_random(dt, b.in, ni, seed * 3 + 1, 1.f);
        fill_random(dt, b.wei, nw, seed * 3 + 2, 1.f);
        fill_poison(g_ref[dt].poison, b.out, no);
        fill_poison(g_ref[dt].poison_f32, b.ref, no);
        ConvParams q =
            make_params(c, p, reinterpret_cast<void*>(b.in), reinterpret_cast<void*>(b.wei),
                        reinterpret_cast<void*>(b.out), limit);
        const LaunchPlan plan = plan_launch(c, p, 32, limit);
        void* args[] = {&q};
        CU(cuLaunchKernel(f, plan.grid_x, plan.grid_y, plan.grid_z, plan.block_threads, 1, 1,
                          unsigned(plan.shared_bytes), 0, args, nullptr));
        run_reference(dt, g_ref[dt].fwd, make_params(p, q.in, q.wei, q.out), b.ref, no);
        CU(cuCtxSynchronize());
        size_t nans = 0;
        const double err = compare(dt, b.out, b.ref, no, &nans);
        const bool ok = !std::isnan(err) && err < tolerance(dt);
        ++tested;
        ++verified_pairs;
        if (!ok) {
            all_ok = false;
            std::printf("FAIL %s | %s rel %.3e nan %zu (pieces %lld)\n", describe(c).c_str(),
                        p.key().c_str(), err, nans,
                        (long long)((p.N + q.images_per_piece - 1) / q.images_per_piece));
        }
        ++seed;
    }
    cuModuleUnload(mod);
    std::printf("%s %-100s %d problems, %s, compile %.2fs\n", all_ok ? "ok  " : "BAD ",
                describe(c).c_str(), tested, resource_summary(job.compiled.log).c_str(),
                job.compiled.seconds);
    return all_ok;
}

struct BaselineShape {
    const char* name;
    Problem p;
    double cudnn_ms;
};

double time_kernel(Job& job, const Problem& p, Buffers& b, int reps) {
    const KernelConfig& c = job.config;
    CUmodule mod;
    CUfunction f = load(job.compiled, std::string(kernel_entry_name()).c_str(), &mod);
    CU(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                          int(shared_bytes(c))));
    const DataType dt = c.dtype;
    const size_t ni = p.input_elements(), nw = p.weight_elements(), no = p.output_elements();
    const size_t e = element_bytes(dt);
    b.ensure(b.in, b.cap_in, ni * e);
    b.ensure(b.wei, b.cap_wei, nw * e);
    b.ensure(b.out, b.cap_out, no * e);
    b.ensure(b.ref, b.cap_ref, no * 4);
    fill_random(dt, b.in, ni, 77, 1.f);
    fill_random(dt, b.wei, nw, 78, 1.f);
    fill_poison(g_ref[dt].poison, b.out, no);
    ConvParams q = make_params(c, p, reinterpret_cast<void*>(b.in), reinterpret_cast<void*>(b.wei),
                               reinterpret_cast<void*>(b.out));
    const LaunchPlan plan = plan_launch(c, p);
    void* args[] = {&q};
    auto launch = [&] {
        CU(cuLaunchKernel(f, plan.grid_x, plan.grid_y, plan.grid_z, plan.block_threads, 1, 1,
                          unsigned(plan.shared_bytes), 0, args, nullptr));
    };
    for (int i = 0; i < 3; ++i) launch();
    // Verify the timed shape too.
    run_reference(dt, g_ref[dt].fwd, make_params(p, q.in, q.wei, q.out), b.ref, no);
    CU(cuCtxSynchronize());
    size_t nans = 0;
    const double err = compare(dt, b.out, b.ref, no, &nans);
    if (std::isnan(err) || err >= tolerance(dt)) {
        ++failures;
        std::printf("TIMEFAIL %s %s rel %.3e nan %zu\n", describe(c).c_str(), p.key().c_str(), err,
                    nans);
    }
    CUevent e0, e1;
    CU(cuEventCreate(&e0, 0));
    CU(cuEventCreate(&e1, 0));
    std::vector<float> ms;
    for (int i = 0; i < reps; ++i) {
        CU(cuEventRecord(e0, 0));
        launch();
        CU(cuEventRecord(e1, 0));
        CU(cuEventSynchronize(e1));
        float t;
        CU(cuEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
    }
    cuEventDestroy(e0);
    cuEventDestroy(e1);
    cuModuleUnload(mod);
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

KernelConfig perf_config(int tm, int tn, int tk, int wm, int wn, int wtm, int wtn, Pipeline pipe,
                         int gm, int bpc = 1) {
    KernelConfig c;
    c.dtype = DataType::BF16;
    c.tile_m = tm, c.tile_n = tn, c.tile_k = tk, c.wave_m = wm, c.wave_n = wn;
    c.warp_tile_m = wtm, c.warp_tile_n = wtn, c.warp_tile_k = 16;
    c.pipeline = pipe;
    c.double_smem_buffer = pipe == Pipeline::CompV4 || pipe == Pipeline::CompV5;
    c.num_wave_groups = pipe == Pipeline::CompV5 ? 2 : 1;
    c.epilogue = Epilogue::CShuffle;
    c.vector_size_a = c.vector_size_b = c.vector_size_c = 8;
    c.num_groups_to_merge = gm;
    c.block_per_cu = bpc;
    return c;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: kernel_check <core/kernels dir> [--compile-only] [--configs "
                             "N] [--seed S] [--time]\n");
        return 2;
    }
    load_headers(argv[1]);
    bool compile_only = false, do_time = false;
    int n_configs = 40;
    std::string variant_arg = "forward";
    unsigned seed = 1;
    int threads = std::max(1u, std::thread::hardware_concurrency());
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--compile-only")
            compile_only = true;
        else if (a == "--time")
            do_time = true;
        else if (a == "--configs" && i + 1 < argc)
            n_configs = std::atoi(argv[++i]);
        else if (a == "--seed" && i + 1 < argc)
            seed = unsigned(std::atoi(argv[++i]));
        else if (a == "--threads" && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else if (a == "--variant" && i + 1 < argc)
            variant_arg = argv[++i];
    }

    std::mt19937 rng(seed);
    std::vector<Job> jobs;
    if (std::getenv("GCONV_ONE")) { // debug: the default config only
        Job j;
        j.source = generate_kernel_source(j.config);
        jobs.push_back(j);
        n_configs = 0;
    }
    std::vector<Variant> variants;
    if (variant_arg == "all")
        variants = {Variant::Forward, Variant::BwdData, Variant::BwdWeight};
    else if (auto v = enum_from_string<Variant>(variant_arg))
        variants = {*v};
    else {
        std::fprintf(stderr, "--variant: '%s' is not forward, bwd_data, bwd_weight or all\n",
                     variant_arg.c_str());
        return 2;
    }
    // Random sample of the space, split over variants, dtypes and 2D/3D.
    for (int i = 0; i < n_configs; ++i) {
        const DataType dt = i % 5 == 4   ? DataType::FP32
                            : i % 5 >= 2 ? DataType::FP16
                                         : DataType::BF16;
        Job j;
        j.config =
            random_config(rng, dt, i % 4 == 3 ? 3 : 2, variants[size_t(i) % variants.size()]);
        j.source = generate_kernel_source(j.config);
        jobs.push_back(std::move(j));
    }
    // Performance candidates (bf16, cshuffle, 16-byte vectors).
    std::vector<Job> perf;
    if (do_time) {
        for (Pipeline pipe :
             {Pipeline::CompV3, Pipeline::CompV4, Pipeline::CompAsync, Pipeline::Mem})
            for (auto [tm, tn, tk, wm, wn, wtm, wtn, gm, va, vb, vc] :
                 {std::tuple{128, 128, 32, 2, 2, 64, 64, 1, 8, 8, 8},
                  std::tuple{128, 64, 32, 2, 2, 64, 32, 1, 8, 8, 8},
                  std::tuple{128, 256, 32, 2, 4, 64, 64, 1, 8, 8, 8},
                  std::tuple{128, 32, 32, 4, 1, 32, 32, 8, 8, 4, 4},
                  std::tuple{64, 64, 32, 2, 2, 32, 32, 4, 8, 8, 8},
                  std::tuple{64, 32, 64, 2, 1, 32, 32, 2, 8, 8, 8},
                  std::tuple{128, 16, 32, 4, 1, 32, 16, 8, 8, 1, 8},
                  std::tuple{128, 128, 32, 2, 4, 64, 32, 1, 8, 8, 8},
                  std::tuple{128, 128, 64, 2, 4, 64, 32, 1, 8, 8, 8},
                  std::tuple{256, 128, 32, 4, 2, 64, 64, 1, 8, 8, 8},
                  std::tuple{64, 128, 64, 2, 2, 32, 64, 1, 8, 8, 8}}) {
                for (int nd : {2, 3}) {
                    Job j;
                    j.config = perf_config(tm, tn, tk, wm, wn, wtm, wtn, pipe, gm);
                    j.config.vector_size_a = va, j.config.vector_size_b = vb,
                    j.config.vector_size_c = vc;
                    j.config.ndim_spatial = nd;
                    j.source = generate_kernel_source(j.config);
                    perf.push_back(std::move(j));
                }
            }
    }
    if (const char* dir = std::getenv("GCONV_DUMP_DIR")) { // sources for other compilers
        for (size_t i = 0; i < jobs.size(); ++i)
            std::ofstream(std::string(dir) + "/kernel_" + std::to_string(i) + ".hip")
                << jobs[i].source;
        for (DataType dt : {DataType::BF16, DataType::FP16, DataType::FP32})
            std::ofstream(std::string(dir) + "/reference_" + std::string(to_string(dt)) + ".hip")
                << generate_reference_source(dt);
        return 0;
    }
    if (std::getenv("GCONV_LIST_ONLY")) {
        for (auto& j : jobs) std::printf("%s\n", describe(j.config).c_str());
        return 0;
    }
    const auto t0 = std::chrono::steady_clock::now();
    compile_all(jobs, threads);
    compile_all(perf, threads);
    const double compile_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int compile_failures = 0;
    for (auto* list : {&jobs, &perf})
        for (auto& j : *list)
            if (!j.compiled.ok) {
                ++compile_failures;
                std::printf("COMPILE FAIL %s\n%s\n", describe(j.config).c_str(),
                            j.compiled.log.c_str());
            } else if (compile_only) {
                std::printf("compiled %-100s %s %.2fs\n", describe(j.config).c_str(),
                            resource_summary(j.compiled.log).c_str(), j.compiled.seconds);
            }
    std::printf("compiled %zu kernels in %.1fs with %d threads, %d failures\n",
                jobs.size() + perf.size(), compile_s, threads, compile_failures);
    if (compile_only) return compile_failures ? 1 : 0;

    CU(cuInit(0));
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    char name[256];
    cuDeviceGetName(name, sizeof name, dev);
    std::printf("device: %s\n", name);

    for (DataType dt : {DataType::BF16, DataType::FP16, DataType::FP32}) {
        Compiled c = compile(generate_reference_source(dt), "sm_90");
        if (!c.ok) {
            std::printf("reference compile failed:\n%s\n", c.log.c_str());
            return 1;
        }
        RefModule& r = g_ref[dt];
        CU(cuModuleLoadData(&r.mod, c.cubin.data()));
        CU(cuModuleGetFunction(&r.fwd, r.mod, "gconv_ref_forward"));
        CU(cuModuleGetFunction(&r.bwd_data, r.mod, "gconv_ref_bwd_data"));
        CU(cuModuleGetFunction(&r.bwd_weight, r.mod, "gconv_ref_bwd_weight"));
        CU(cuModuleGetFunction(&r.fill, r.mod, "gconv_fill_random"));
        CU(cuModuleGetFunction(&r.poison, r.mod, "gconv_fill_poison"));
        CU(cuModuleGetFunction(&r.poison_f32, r.mod, "gconv_fill_poison_f32"));
    }
    Buffers b;
    for (DataType dt : {DataType::BF16, DataType::FP16, DataType::FP32}) check_reference(dt, b);

    int bad = 0;
    for (auto& j : jobs)
        if (j.compiled.ok && !verify(j, b, seed * 1000 + 7)) ++bad;
    std::printf("verified %zu configs: %d bad; %lld (config, problem) pairs compared\n",
                jobs.size(), bad, verified_pairs);

    if (do_time) {
        const std::vector<BaselineShape> shapes = {
            {"resnext50_s1", make_problem(32, 128, 128, 32, 56, 56, 3, 3, 1, 1), 0.0687},
            {"resnext50_s3", make_problem(32, 512, 512, 32, 14, 14, 3, 3, 1, 1), 0.0306},
            {"g8_512", make_problem(32, 512, 512, 8, 28, 28, 3, 3, 1, 1), 0.0611},
            {"g2_256", make_problem(32, 256, 256, 2, 56, 56, 3, 3, 1, 1), 0.1022},
            {"mbv2_dw144", make_problem(64, 144, 144, 144, 56, 56, 3, 3, 1, 1), 0.0654},
            {"resnext3d_g32", make_problem(8, 256, 256, 32, 28, 28, 3, 3, 1, 1, 1, 8, 3), 0.1675},
        };
        std::printf("\n%-16s %-9s %-9s %-8s %s\n", "shape", "cudnn_ms", "gconv_ms", "TFLOP/s",
                    "best config");
        for (const auto& s : shapes) {
            double best = 1e30;
            std::string best_name;
            for (auto& j : perf) {
                if (!j.compiled.ok || !is_supported(j.config, s.p).ok) continue;
                const double ms = time_kernel(j, s.p, b, 20);
                std::printf("  %-16s %8.4f ms %s\n", s.name, ms, describe(j.config).c_str());
                if (ms < best) best = ms, best_name = describe(j.config);
            }
            std::printf("RESULT %-16s %-9.4f %-9.4f %-8.1f %s\n", s.name, s.cudnn_ms, best,
                        s.p.flops() / (best * 1e9), best_name.c_str());
        }
    }
    std::printf("failures: %d (reference/timing), %d bad configs\n", failures, bad);
    return (failures || bad || compile_failures) ? 1 : 0;
}
