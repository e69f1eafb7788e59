#include "worker/tma_maps.h"

#include "util/env_switch.h"
#include "worker/cuda_driver.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace gconv::worker {
namespace {

// Driver ABI (cuda.h, stable since CUDA 12.0): enums are C ints, CUresult 0 is success.
using EncodeTiled = int (*)(void* map, int dtype, uint32_t rank, void* address,
                            const uint64_t* dims, const uint64_t* strides, const uint32_t* box,
                            const uint32_t* element_strides, int interleave, int swizzle,
                            int l2_promotion, int oob_fill);
using EncodeIm2col = int (*)(void* map, int dtype, uint32_t rank, void* address,
                             const uint64_t* dims, const uint64_t* strides, const int* lower,
                             const int* upper, uint32_t channels, uint32_t pixels,
                             const uint32_t* element_strides, int interleave, int swizzle,
                             int l2_promotion, int oob_fill);
constexpr int k_uint16 = 1;      // CU_TENSOR_MAP_DATA_TYPE_UINT16: a plain 2-byte copy
constexpr int k_swizzle_64 = 2;  // CU_TENSOR_MAP_SWIZZLE_64B
constexpr int k_swizzle_128 = 3; // CU_TENSOR_MAP_SWIZZLE_128B
constexpr int k_l2_128 = 2;      // CU_TENSOR_MAP_L2_PROMOTION_L2_128B
constexpr int k_l2_256 = 3;      // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
constexpr int k_no_interleave = 0, k_zero_fill = 0;

struct Driver {
    EncodeTiled tiled = nullptr;
    EncodeIm2col im2col = nullptr;
    std::string why;
};

const Driver& driver() {
    static const Driver d = [] {
        Driver r;
        r.tiled =
            reinterpret_cast<EncodeTiled>(cuda_driver_symbol("cuTensorMapEncodeTiled", &r.why));
        if (r.tiled)
            r.im2col = reinterpret_cast<EncodeIm2col>(
                cuda_driver_symbol("cuTensorMapEncodeIm2col", &r.why));
        return r;
    }();
    return d;
}

} // namespace

EncodedMaps encode_wgmma_maps(const WgmmaTmaPlan& plan, const void* im2col_src,
                              const void* tiled_src) {
    EncodedMaps out;
    if (!plan.enabled) {
        out.why = plan.reason;
        return out;
    }
    if (const char* env = std::getenv("GCONV_WGMMA_TMA"); env && std::strcmp(env, "0") == 0) {
        out.why = "GCONV_WGMMA_TMA=0";
        out.user_off = true;
        return out;
    }
    const Driver& d = driver();
    if (!d.why.empty()) {
        out.why = d.why;
        return out;
    }
    const TmaIm2colGeometry& a = plan.im2col;
    // Rows of 64 channels (128 bytes) or, for tile_k 32 (and bwd_weight's input at C/G % 64 ==
    // 32), 32 (64 bytes): one swizzle span each, per map.
    const auto swizzle_of = [](uint32_t row) { return row == 32 ? k_swizzle_64 : k_swizzle_128; };
    const int swizzle = swizzle_of(a.channels);
    const uint32_t unit[3] = {1, 1, 1};
    // Opt-in until a device run has verified and timed it (docs/notes/wgmma-kernels.md v26).
    const bool input_tiled = plan.input_tiled && env_switch_on("GCONV_WGMMA_INPUT_TILED");
    int status = 0;
    if (input_tiled) {
        const TmaTiledGeometry& in = plan.input_tile;
        status = d.tiled(&out.maps.input, k_uint16, 3, const_cast<void*>(im2col_src), in.dims,
                         in.strides_bytes, in.box, unit, k_no_interleave, swizzle, k_l2_128,
                         k_zero_fill);
    } else {
        status = d.im2col(&out.maps.input, k_uint16, static_cast<uint32_t>(a.rank),
                          const_cast<void*>(im2col_src), a.dims, a.strides_bytes, a.lower, a.upper,
                          a.channels, a.pixels, a.element_strides, k_no_interleave, swizzle,
                          k_l2_128, k_zero_fill);
    }
    if (status != 0) {
        out.why = std::string(input_tiled ? "cuTensorMapEncodeTiled (input)"
                                          : "cuTensorMapEncodeIm2col") +
                  " returned " + std::to_string(status);
        return out;
    }
    out.maps.input_tiled = input_tiled ? 1 : 0;
    const TmaTiledGeometry& b = plan.tiled;
    status =
        d.tiled(&out.maps.tiled, k_uint16, 3, const_cast<void*>(tiled_src), b.dims, b.strides_bytes,
                b.box, unit, k_no_interleave, swizzle_of(b.box[0]), k_l2_256, k_zero_fill);
    if (status != 0) {
        out.why = "cuTensorMapEncodeTiled returned " + std::to_string(status);
        return out;
    }
    out.maps.enabled = 1;
    return out;
}

} // namespace gconv::worker
