#pragma once
// Random result rows for the results and compare suites: a few kernels over a few problems,
// every status, latencies only where a cell ran.
#include "csv/result_row.h"

#include <random>
#include <string>
#include <vector>

namespace gconv::test {

class RandomRows {
public:
    explicit RandomRows(uint64_t seed) : rng_(seed) {
        for (int i = 0; i < 6; ++i) {
            Problem p;
            p.G = std::vector<int64_t>{1, 8, 32}[rng_() % 3];
            p.C = p.G * (8 + int64_t(rng_() % 4) * 8);
            p.K = p.G * (8 + int64_t(rng_() % 4) * 8);
            p.N = 1 + int64_t(rng_() % 16);
            p.Hi = p.Wi = 7 + int64_t(rng_() % 50);
            p.Y = p.X = 1 + 2 * int64_t(rng_() % 2);
            problems_.push_back(p);
        }
    }

    ResultRow row() {
        ResultRow r;
        r.kernel = "grouped_conv_fwd_bf16_2d_" + std::string(rng_() % 2 ? "compv4_" : "compv3_") +
                   std::to_string(rng_() % 12);
        r.problem_idx = static_cast<int64_t>(rng_() % problems_.size());
        r.problem = problems_[static_cast<size_t>(r.problem_idx)];
        r.problem.layer = "layer" + std::to_string(r.problem_idx);
        r.problem_key = r.problem.key();
        r.variant = rng_() % 4 ? "forward" : "bwd_data";
        r.dtype = rng_() % 3 ? "bf16" : "fp16";
        r.arch = "gfx942";
        r.status = static_cast<CellStatus>(rng_() % 8);
        if (rng_() % 2) r.status = CellStatus::Ok;
        const bool ran = r.status == CellStatus::Ok || r.status == CellStatus::Fail;
        r.latency_ms = ran ? real(0.005, 3.0) : k_no_value;
        r.tflops = ran ? real(1.0, 300.0) : 0.0;
        r.gbps = ran ? real(10, 3000) : k_no_value;
        r.non_zero = ran;
        if (!ran) r.error = "reason " + std::to_string(rng_() % 5);
        r.timestamp = "2026-01-31T12:00:0" + std::to_string(rng_() % 10) + ".000Z";
        return r;
    }

    std::vector<ResultRow> rows(size_t n) {
        std::vector<ResultRow> out;
        for (size_t i = 0; i < n; ++i) out.push_back(row());
        return out;
    }

    double real(double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng_);
    }
    std::mt19937_64& rng() { return rng_; }

private:
    std::mt19937_64 rng_;
    std::vector<Problem> problems_;
};

} // namespace gconv::test
