#include "problem/host_convolution.h"

#include "sweep/measurement.h"

#include <cmath>
#include <cstring>

namespace gconv {

namespace {

struct Index {
    const Problem& p;
    int64_t in(int64_t n, int64_t d, int64_t h, int64_t w, int64_t g, int64_t c) const {
        return ((((n * p.Di + d) * p.Hi + h) * p.Wi + w) * p.G + g) * p.c_per_group() + c;
    }
    int64_t wei(int64_t g, int64_t k, int64_t z, int64_t y, int64_t x, int64_t c) const {
        return ((((g * p.k_per_group() + k) * p.Z + z) * p.Y + y) * p.X + x) * p.c_per_group() + c;
    }
    int64_t out(int64_t n, int64_t d, int64_t h, int64_t w, int64_t g, int64_t k) const {
        return ((((n * p.Do() + d) * p.Ho() + h) * p.Wo() + w) * p.G + g) * p.k_per_group() + k;
    }
};

} // namespace

// Every (input, weight, output) triple of the convolution is one product in exactly one
// element of each direction's result: walk them all once and accumulate where the direction
// puts them.
HostResult host_convolution(const Problem& p, Variant variant, const std::vector<float>& in,
                            const std::vector<float>& wei, const std::vector<float>& out) {
    const Index ix{p};
    const std::size_t n_result = std::size_t(variant == Variant::Forward   ? p.output_elements()
                                             : variant == Variant::BwdData ? p.input_elements()
                                                                           : p.weight_elements());
    HostResult e{std::vector<double>(n_result, 0.0), std::vector<double>(n_result, 0.0),
                 std::vector<int>(n_result, 0)};
    const int64_t cpg = p.c_per_group(), kpg = p.k_per_group();
    for (int64_t n = 0; n < p.N; ++n)
        for (int64_t od = 0; od < p.Do(); ++od)
            for (int64_t oh = 0; oh < p.Ho(); ++oh)
                for (int64_t ow = 0; ow < p.Wo(); ++ow)
                    for (int64_t z = 0; z < p.Z; ++z)
                        for (int64_t y = 0; y < p.Y; ++y)
                            for (int64_t x = 0; x < p.X; ++x) {
                                const int64_t di = od * p.stride_d - p.pad_d + z * p.dilation_d;
                                const int64_t hi = oh * p.stride_h - p.pad_h + y * p.dilation_h;
                                const int64_t wi = ow * p.stride_w - p.pad_w + x * p.dilation_w;
                                if (di < 0 || di >= p.Di || hi < 0 || hi >= p.Hi || wi < 0 ||
                                    wi >= p.Wi)
                                    continue;
                                for (int64_t g = 0; g < p.G; ++g)
                                    for (int64_t k = 0; k < kpg; ++k)
                                        for (int64_t c = 0; c < cpg; ++c) {
                                            const int64_t i = ix.in(n, di, hi, wi, g, c);
                                            const int64_t w = ix.wei(g, k, z, y, x, c);
                                            const int64_t o = ix.out(n, od, oh, ow, g, k);
                                            double a, b;
                                            int64_t r;
                                            if (variant == Variant::Forward)
                                                a = in[i], b = wei[w], r = o;
                                            else if (variant == Variant::BwdData)
                                                a = out[o], b = wei[w], r = i;
                                            else
                                                a = out[o], b = in[i], r = w;
                                            e.value[r] += a * b;
                                            e.abs_sum[r] += std::abs(a * b);
                                            ++e.terms[r];
                                        }
                            }
    return e;
}

HostTensor random_tensor(std::size_t n, DataType dtype, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    HostTensor t;
    t.values.resize(n);
    t.bytes.resize(n * std::size_t(element_bytes(dtype)));
    for (std::size_t i = 0; i < n; ++i) {
        float v = u(rng);
        if (dtype == DataType::FP32) {
            std::memcpy(t.bytes.data() + 4 * i, &v, 4);
        } else {
            const uint16_t bits = dtype == DataType::BF16 ? float_to_bf16(v) : float_to_fp16(v);
            v = dtype == DataType::BF16 ? bf16_to_float(bits) : fp16_to_float(bits);
            std::memcpy(t.bytes.data() + 2 * i, &bits, 2);
        }
        t.values[i] = v;
    }
    return t;
}

} // namespace gconv
