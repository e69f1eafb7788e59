#pragma once
// The channel-padded copy (KernelConfig::channel_pad): for C/G that the GEMM's vector does not
// divide (3-channel stems, C/G 45), a first kernel (kernels/gconv_pad.h) copies the input and the
// filter into the workspace with C/G padded with zeros to a multiple of vector_size_a, and the
// GEMM runs that padded problem with full-width loads. The padded channels multiply zeros, so the
// output is the problem's; verification stays against the problem as given.
#include "config/kernel_config.h"
#include "problem/problem.h"

#include <string>
#include <string_view>

namespace gconv {

// Why `config` does not run `problem` channel-padded, naming the field (C/G already a multiple of
// the vector: the plain kernel is the same work without the copy); empty when it does or when
// `config` is not a channel_pad kernel.
std::string channel_pad_refusal(const KernelConfig& config, const Problem& problem);
// The padded problem: C/G rounded up to a multiple of vector_size_a.
Problem pad_channels(const KernelConfig& config, const Problem& problem);
// Elements of the padded input in the workspace, rounded up to 8 so that the padded filter after
// it starts on 16 bytes (kernels/gconv_pad.h computes the same from the padded sizes).
int64_t padded_input_span(const Problem& padded);
// Workspace elements of the copy: the input's span and the padded filter.
int64_t padded_copy_elements(const Problem& padded);

// The copy's entry, threads per block and block cap of its grid-stride loop.
std::string_view pad_channels_entry_name();
inline constexpr unsigned k_pad_threads = 256;
inline constexpr unsigned k_pad_max_blocks = 4096;

} // namespace gconv
