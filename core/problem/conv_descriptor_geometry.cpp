#include "problem/conv_descriptor_geometry.h"

namespace gconv {

namespace {

// Channels-last strides for dims ordered (outer, channels, spatial...): the channels vary
// fastest, then the spatial dimensions from the innermost out, then the outer one.
std::vector<int64_t> channels_last_strides(const std::vector<int64_t>& dims) {
    std::vector<int64_t> strides(dims.size(), 1);
    int64_t step = dims[1];
    for (std::size_t i = dims.size() - 1; i >= 2; --i) {
        strides[i] = step;
        step *= dims[i];
    }
    strides[0] = step;
    return strides;
}

TensorGeometry channels_last(int64_t outer, int64_t channels, std::vector<int64_t> spatial) {
    TensorGeometry t;
    t.dims = {outer, channels};
    t.dims.insert(t.dims.end(), spatial.begin(), spatial.end());
    t.strides = channels_last_strides(t.dims);
    return t;
}

} // namespace

ConvDescriptorGeometry conv_descriptor_geometry(const Problem& p) {
    ConvDescriptorGeometry g;
    const bool three_d = p.ndim_spatial == 3;
    g.spatial_dims = three_d ? 3 : 2;
    auto spatial = [&](int64_t d, int64_t h, int64_t w) {
        return three_d ? std::vector<int64_t>{d, h, w} : std::vector<int64_t>{h, w};
    };
    g.input = channels_last(p.N, p.C, spatial(p.Di, p.Hi, p.Wi));
    // G,K/G,Z,Y,X,C/G is K,Z,Y,X,C/G with k = g * K/G + k': channels-last over K rows.
    g.weight = channels_last(p.K, p.c_per_group(), spatial(p.Z, p.Y, p.X));
    g.output = channels_last(p.N, p.K, spatial(p.Do(), p.Ho(), p.Wo()));
    g.pad = spatial(p.pad_d, p.pad_h, p.pad_w);
    g.stride = spatial(p.stride_d, p.stride_h, p.stride_w);
    g.dilation = spatial(p.dilation_d, p.dilation_h, p.dilation_w);
    return g;
}

std::vector<int> as_int32(const std::vector<int64_t>& values) {
    return {values.begin(), values.end()};
}

} // namespace gconv
