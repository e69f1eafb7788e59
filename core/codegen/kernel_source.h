#pragma once
// Generated translation units handed to hipRTC. The text is a pure function of its input
// (the JIT cache keys on it); the device templates come in as named headers (embedded_files.h).
#include "config/kernel_config.h"

#include <functional>
#include <set>
#include <string>
#include <string_view>

namespace gconv {

// Entry point of every generated kernel TU: extern "C" __global__ void <name>(ConvParams).
std::string_view kernel_entry_name();
// Second kernel of a forward or bwd_weight module whose split-K reduction goes through an fp32
// workspace (two_stage, or atomic with a 16-bit output): sums the slices and converts. two_stage
// and the wgmma pipeline need it: with atomic on the mma.sync GEMM pipelines the block that adds
// last to a tile converts it (finishes_in_block), on the direct pipelines (direct, direct_mma, the
// tensor-core entries) the block that adds last to a channel block its slice
// (codegen/direct_plan.h direct_weight_workspace_bytes).
std::string_view finish_entry_name();
bool has_finish_kernel(const KernelConfig& config);
// A forward or bwd_weight GEMM kernel (mma.sync) with atomic adds into the fp32 workspace: its
// blocks finish the tiles themselves, with one ticket per output tile after the fp32 sums
// (split_ticket_bytes, zeroed with them per run; finish_tile() in kernels/gconv_fwd.h and
// kernels/gconv_bwd_weight.h).
bool finishes_in_block(const KernelConfig& config);
struct Problem;
std::size_t split_ticket_bytes(const KernelConfig& config, const Problem& problem);

// What a module holds besides its main (and finish) entry: the optional entries (the direct
// pipeline's K x K filter entries, direct_mma's strided bwd_data entry) and the C/G widths the
// direct pipeline's generic entry is built for. By default every one (what the kernel may launch
// on any problem); a run that knows its problems builds only what their cells launch
// (note_entries in codegen/launch_sequence.h), which cuts the compile time of those modules.
struct ModuleEntries {
    bool all = true;
    std::set<std::string, std::less<>> names; // with !all: the optional entries to build
    std::set<int> cpgs;                       // with !all: the direct generic entry's C/G widths
    // with !all: the (C/G, row taps) pairs the direct generic bwd_weight entry reduces
    std::set<std::pair<int, int>> row_taps;
    bool holds(std::string_view entry) const { return all || names.count(entry) > 0; }
    bool holds_cpg(int cpg) const { return all || cpgs.count(cpg) > 0; }
    bool holds_row_taps(int cpg, int taps) const { return all || row_taps.count({cpg, taps}) > 0; }
};
std::string generate_kernel_source(const KernelConfig& config, const ModuleEntries& entries = {});

// Verification TU for one data type T. Entries (all extern "C" __global__, grid-stride):
//   gconv_ref_forward(ConvParams p, float* result)     reads p.in, p.wei
//   gconv_ref_bwd_data(ConvParams p, float* result)    reads p.out (dOut), p.wei
//   gconv_ref_bwd_weight(ConvParams p, float* result)  reads p.in, p.out (dOut)
//   gconv_fill_random(void* dst, long long n, unsigned long long seed, float scale)  T
//   gconv_fill_poison(void* dst, long long n)          T NaN pattern
//   gconv_fill_poison_f32(void* dst, long long n)      fp32 NaN pattern (for results)
//   gconv_verify(const void* out, const float* ref, long long n, float limit, unsigned* tally)
//       tally[4] (zeroed by the caller): max |out - ref| bits, non-finite, off, non-zero
//   gconv_abs_max(const float* values, long long n, unsigned* tally)   tally[0] = max |v| bits
// The last two need blocks of exactly 256 threads (gconv_verify.h).
std::string generate_reference_source(DataType dtype);

namespace reference_entry {
inline constexpr std::string_view forward = "gconv_ref_forward";
inline constexpr std::string_view bwd_data = "gconv_ref_bwd_data";
inline constexpr std::string_view bwd_weight = "gconv_ref_bwd_weight";
inline constexpr std::string_view fill_random = "gconv_fill_random";
inline constexpr std::string_view fill_poison = "gconv_fill_poison";
inline constexpr std::string_view fill_poison_f32 = "gconv_fill_poison_f32";
inline constexpr std::string_view verify = "gconv_verify";
inline constexpr std::string_view abs_max = "gconv_abs_max";
} // namespace reference_entry

} // namespace gconv
