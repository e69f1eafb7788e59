#pragma once
// Result rows for the plots suites: real kernel names (core's kernel_name() of configs from the
// shipped forward pool) plus one name no gconv kernel has, over random problems, with random
// latencies, some failed cells and some repeated cells.
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "csv/result_row.h"
#include "test_paths.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace gconv::test {

inline constexpr const char* k_foreign_kernel = "vendor_conv_fwd_kernel_v2";

class PlotRows {
public:
    PlotRows(uint64_t seed, size_t kernels, size_t problem_count) : rng_(seed) {
        const TraitConfig traits =
            load_trait_config(source_path("configs/forward_bf16.json").toStdString());
        const auto& specs = default_arch_specs();
        std::vector<KernelConfig> pool = enumerate_pool(traits, specs.get("sm_90"), specs).kernels;
        std::shuffle(pool.begin(), pool.end(), rng_);
        // Larger pools than the shipped config yields: the same tiles with other occupancy
        // and group-merge settings (still names that parse back).
        for (size_t i = 0, base = pool.size(); pool.size() < kernels && i < base * 8; ++i) {
            KernelConfig c = pool[i % base];
            c.block_per_cu = 1 + int(i / base) % 2;
            c.num_groups_to_merge = 1 << (1 + int(i / base) / 2);
            pool.push_back(c);
        }
        for (size_t i = 0; i + 1 < kernels && i < pool.size(); ++i)
            kernel_names.push_back(kernel_name(pool[i]));
        kernel_names.push_back(k_foreign_kernel);
        for (size_t i = 0; i < problem_count; ++i) problems.push_back(randomProblem(i));
    }

    Problem randomProblem(size_t i) {
        Problem p;
        p.G = std::vector<int64_t>{1, 2, 4, 8, 32}[rng_() % 5];
        p.C = p.G * 8 * int64_t(1 + rng_() % 8);
        p.K = p.G * 8 * int64_t(1 + rng_() % 8);
        p.N = 1 + int64_t(rng_() % 32);
        p.Hi = p.Wi = 7 + int64_t(rng_() % 50);
        p.Y = p.X = rng_() % 2 ? 3 : 1;
        p.pad_h = p.pad_w = p.Y / 2;
        p.stride_h = p.stride_w = 1 + int64_t(rng_() % 2);
        if (rng_() % 2)
            p.layer = "net" + std::to_string(rng_() % 3) + ".layer" + std::to_string(i) + ".conv";
        return p;
    }

    ResultRow row(size_t kernel, size_t problem, bool failed) {
        ResultRow r;
        r.kernel = kernel_names[kernel];
        r.problem_idx = int64_t(problem);
        r.problem = problems[problem];
        r.problem_key = r.problem.key();
        r.variant = "forward";
        r.dtype = "bf16";
        r.arch = "sm_90";
        r.status = failed ? std::vector<CellStatus>{CellStatus::Fail, CellStatus::CompileError,
                                                    CellStatus::Timeout, CellStatus::Crash,
                                                    CellStatus::Unsupported}[rng_() % 5]
                          : CellStatus::Ok;
        const bool ran = r.status == CellStatus::Ok || r.status == CellStatus::Fail;
        if (ran) {
            r.latency_ms = real(0.005, 4.0);
            r.tflops = r.problem.flops() / (r.latency_ms * 1e-3) / 1e12;
            r.verified = r.status == CellStatus::Ok;
        } else {
            r.error = "reason " + std::to_string(rng_() % 4);
        }
        r.non_zero = ran;
        r.warmup = 2;
        r.repeat = 5;
        return r;
    }

    // Each (kernel, problem) cell with probability `coverage`, failed with `failed_share`,
    // and `repeat_share` of them measured twice.
    std::vector<ResultRow> rows(double coverage, double failed_share, double repeat_share = 0.03) {
        std::vector<ResultRow> out;
        for (size_t p = 0; p < problems.size(); ++p)
            for (size_t k = 0; k < kernel_names.size(); ++k) {
                if (real(0, 1) >= coverage) continue;
                out.push_back(row(k, p, real(0, 1) < failed_share));
                if (real(0, 1) < repeat_share) out.push_back(row(k, p, real(0, 1) < failed_share));
            }
        std::shuffle(out.begin(), out.end(), rng_);
        return out;
    }

    double real(double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng_);
    }
    std::mt19937_64& rng() { return rng_; }

    std::vector<std::string> kernel_names;
    std::vector<Problem> problems;

private:
    std::mt19937_64 rng_;
};

} // namespace gconv::test
