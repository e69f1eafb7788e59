#pragma once
// Every enum of the kernel model, each with exactly one string table (enum_strings.cpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gconv {

enum class Variant { Forward, BwdData, BwdWeight };
enum class DataType { BF16, FP16, FP32 };
// Direct is not a GEMM main loop: the direct-convolution kernels of gconv_direct.h
// (depthwise and small C/G, vectors across groups). DirectMma is the tensor-core direct
// convolution of gconv_direct_mma.h (forward, small groups, mma.sync straight from a halo tile).
// DirectWgmma is gconv_direct_wgmma.h (forward, dense, sm_90a: wgmma taps as shifted starts into
// one staged input band).
enum class Pipeline {
    BasicV1,
    Mem,
    CompV3,
    CompV4,
    CompV5,
    CompV6,
    CompAsync,
    Direct,
    DirectMma,
    DirectWgmma
};
enum class Scheduler { Intrawave, Interwave };
// CShuffleBuf: the cshuffle shuffle through a C buffer of its own beside the operand ring
// (the wgmma pipeline only), which leaves the ring free for the next tile's loads.
enum class Epilogue { CShuffle, Direct, CShuffleBuf };
// Split-K reduction for bwd_weight: none, fp32 atomics into the output, or an fp32
// workspace followed by a convert kernel (CK's `2stage`).
enum class SplitKMode { None, Atomic, TwoStage };

template <typename E> std::string_view to_string(E value);
template <typename E> std::optional<E> enum_from_string(std::string_view text);
// All canonical names, in declaration order (for messages listing allowed values).
template <typename E> std::vector<std::string> enum_names();
template <typename E> std::vector<E> enum_values();

// Bytes of one element of a data type as stored in memory.
int element_bytes(DataType dtype);

} // namespace gconv
