#include "problem/problem.h"

#include <initializer_list>
#include <limits>
#include <sstream>

namespace gconv {
namespace {

// Output extent of one spatial dim. A padded input shorter than the dilated filter yields 0
// (plain integer division would round the negative span towards zero and report 1).
int64_t output_extent(int64_t in, int64_t pad, int64_t filter, int64_t dilation, int64_t stride) {
    if (stride < 1 || dilation < 1 || filter < 1) return 0;
    const int64_t span = in + 2 * pad - ((filter - 1) * dilation + 1);
    if (span < 0) return 0;
    return span / stride + 1;
}

// Sizes beyond this cannot be real convolutions and would overflow the int64 arithmetic.
constexpr int64_t k_max_extent = std::numeric_limits<int32_t>::max();
// Element counts stay exact in a double (FLOPs, bytes) below 2^53.
constexpr int64_t k_max_elements = int64_t{1} << 53;

bool product_below_limit(std::initializer_list<int64_t> factors) {
    int64_t product = 1;
    for (int64_t f : factors)
        if (__builtin_mul_overflow(product, f, &product) || product >= k_max_elements) return false;
    return true;
}

struct Field {
    const char* name;
    int64_t value;
};

} // namespace

int64_t Problem::Do() const {
    return output_extent(Di, pad_d, Z, dilation_d, stride_d);
}
int64_t Problem::Ho() const {
    return output_extent(Hi, pad_h, Y, dilation_h, stride_h);
}
int64_t Problem::Wo() const {
    return output_extent(Wi, pad_w, X, dilation_w, stride_w);
}

int64_t Problem::input_elements() const {
    return N * Di * Hi * Wi * C;
}
int64_t Problem::weight_elements() const {
    return K * Z * Y * X * c_per_group();
}
int64_t Problem::output_elements() const {
    return N * Do() * Ho() * Wo() * K;
}

double Problem::flops() const {
    return 2.0 * static_cast<double>(N) * static_cast<double>(K) *
           static_cast<double>(Do() * Ho() * Wo()) * static_cast<double>(c_per_group()) *
           static_cast<double>(Z * Y * X);
}

double Problem::min_bytes(DataType dtype) const {
    const double elements = static_cast<double>(input_elements()) +
                            static_cast<double>(weight_elements()) +
                            static_cast<double>(output_elements());
    return elements * element_bytes(dtype);
}

Problem::Gemm Problem::gemm(Variant variant) const {
    const int64_t filter = Z * Y * X;
    const int64_t out_pixels = N * Do() * Ho() * Wo();
    switch (variant) {
    case Variant::Forward:
        return {out_pixels, k_per_group(), c_per_group() * filter};
    case Variant::BwdData:
        return {N * Di * Hi * Wi, c_per_group(), k_per_group() * filter};
    case Variant::BwdWeight:
        return {k_per_group(), c_per_group() * filter, out_pixels};
    }
    return {0, 0, 0};
}

std::string Problem::key() const {
    std::ostringstream out;
    out << ndim_spatial << "d:N" << N << ",C" << C << ",K" << K << ",G" << G << ",in" << Di << 'x'
        << Hi << 'x' << Wi << ",f" << Z << 'x' << Y << 'x' << X << ",s" << stride_d << 'x'
        << stride_h << 'x' << stride_w << ",p" << pad_d << 'x' << pad_h << 'x' << pad_w << ",d"
        << dilation_d << 'x' << dilation_h << 'x' << dilation_w;
    return out.str();
}

std::vector<std::string> validate(const Problem& p) {
    std::vector<std::string> errors;
    auto fail = [&](const std::string& field, const std::string& what) {
        errors.push_back(field + ": " + what);
    };

    if (p.ndim_spatial != 2 && p.ndim_spatial != 3)
        fail("ndim_spatial", std::to_string(p.ndim_spatial) + " must be 2 or 3");

    const Field positive[] = {{"N", p.N},
                              {"C", p.C},
                              {"K", p.K},
                              {"G", p.G},
                              {"Di", p.Di},
                              {"Hi", p.Hi},
                              {"Wi", p.Wi},
                              {"Z", p.Z},
                              {"Y", p.Y},
                              {"X", p.X},
                              {"stride_d", p.stride_d},
                              {"stride_h", p.stride_h},
                              {"stride_w", p.stride_w},
                              {"dilation_d", p.dilation_d},
                              {"dilation_h", p.dilation_h},
                              {"dilation_w", p.dilation_w}};
    bool in_range = true;
    for (const auto& f : positive) {
        if (f.value < 1) {
            fail(f.name, std::to_string(f.value) + " must be >= 1");
            in_range = false;
        } else if (f.value > k_max_extent) {
            fail(f.name,
                 std::to_string(f.value) + " exceeds the limit " + std::to_string(k_max_extent));
            in_range = false;
        }
    }
    const Field pads[] = {{"pad_d", p.pad_d}, {"pad_h", p.pad_h}, {"pad_w", p.pad_w}};
    for (const auto& f : pads) {
        if (f.value < 0) {
            fail(f.name, std::to_string(f.value) + " must be >= 0");
            in_range = false;
        } else if (f.value > k_max_extent) {
            fail(f.name,
                 std::to_string(f.value) + " exceeds the limit " + std::to_string(k_max_extent));
            in_range = false;
        }
    }

    if (p.G >= 1 && p.C >= 1 && p.C % p.G != 0)
        fail("C", std::to_string(p.C) + " is not divisible by G = " + std::to_string(p.G));
    if (p.G >= 1 && p.K >= 1 && p.K % p.G != 0)
        fail("K", std::to_string(p.K) + " is not divisible by G = " + std::to_string(p.G));

    if (p.ndim_spatial == 2) {
        const Field depth[] = {
            {"Di", p.Di}, {"Z", p.Z}, {"stride_d", p.stride_d}, {"dilation_d", p.dilation_d}};
        for (const auto& f : depth)
            if (f.value != 1) fail(f.name, std::to_string(f.value) + " must be 1 in a 2D problem");
        if (p.pad_d != 0) fail("pad_d", std::to_string(p.pad_d) + " must be 0 in a 2D problem");
    }

    // The remaining checks multiply sizes; they need every size in range first.
    if (!in_range) return errors;

    struct Dim {
        const char* out;
        const char* in;
        const char* filter;
        const char* pad;
        const char* dilation;
        int64_t in_v, filter_v, pad_v, dilation_v;
    };
    const Dim dims[] = {
        {"Do", "Di", "Z", "pad_d", "dilation_d", p.Di, p.Z, p.pad_d, p.dilation_d},
        {"Ho", "Hi", "Y", "pad_h", "dilation_h", p.Hi, p.Y, p.pad_h, p.dilation_h},
        {"Wo", "Wi", "X", "pad_w", "dilation_w", p.Wi, p.X, p.pad_w, p.dilation_w},
    };
    for (const auto& d : dims) {
        const int64_t extent = (d.filter_v - 1) * d.dilation_v + 1;
        const int64_t padded = d.in_v + 2 * d.pad_v;
        if (extent > padded) {
            std::ostringstream msg;
            msg << "the dilated filter (" << d.filter << "-1)*" << d.dilation << "+1 = " << extent
                << " exceeds the padded input " << d.in << "+2*" << d.pad << " = " << padded
                << ", so the output size " << d.out << " would be < 1";
            fail(d.filter, msg.str());
        }
    }
    if (!errors.empty()) return errors;

    const std::pair<const char*, bool> tensors[] = {
        {"input", product_below_limit({p.N, p.Di, p.Hi, p.Wi, p.C})},
        {"weight", product_below_limit({p.K, p.Z, p.Y, p.X, p.C / p.G})},
        {"output", product_below_limit({p.N, p.Do(), p.Ho(), p.Wo(), p.K})}};
    for (const auto& [name, fits] : tensors)
        if (!fits) fail(name, "the tensor has 2^53 or more elements; the sizes are not plausible");
    return errors;
}

} // namespace gconv
