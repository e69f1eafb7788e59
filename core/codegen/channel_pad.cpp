#include "codegen/channel_pad.h"

namespace gconv {

std::string channel_pad_refusal(const KernelConfig& c, const Problem& p) {
    if (!c.channel_pad) return {};
    if (p.c_per_group() % c.vector_size_a == 0)
        return "channel_pad: C/G " + std::to_string(p.c_per_group()) +
               " is a multiple of vector_size_a " + std::to_string(c.vector_size_a) +
               " already (the kernel without the copy runs it)";
    return {};
}

Problem pad_channels(const KernelConfig& c, const Problem& p) {
    const int64_t v = c.vector_size_a;
    Problem padded = p;
    padded.C = p.G * ((p.c_per_group() + v - 1) / v * v);
    return padded;
}

int64_t padded_input_span(const Problem& padded) {
    return (padded.input_elements() + 7) / 8 * 8;
}

int64_t padded_copy_elements(const Problem& padded) {
    return padded_input_span(padded) + padded.weight_elements();
}

std::string_view pad_channels_entry_name() {
    return "gconv_pad_channels";
}

} // namespace gconv
