#pragma once
// The single kernel argument, passed by value: shared verbatim by the host (core/codegen
// includes it as "kernels/gconv_params.h") and the device translation units. Plain POD with
// only int / long long / pointers so both sides agree on its layout without any header.
// Tensors: input N,Di,Hi,Wi,G,C/G; weight G,K/G,Z,Y,X,C/G; output N,Do,Ho,Wo,G,K/G.

namespace gconv {

struct ConvParams {
    const void* in;
    const void* wei;
    void* out;

    int N, C, K, G;
    int Di, Hi, Wi;
    int Z, Y, X;
    int stride_d, stride_h, stride_w;
    int pad_d, pad_h, pad_w;
    int dilation_d, dilation_h, dilation_w;
    int Do, Ho, Wo;
    int c_per_group, k_per_group;

    // Split image: the images are cut into pieces of images_per_piece images; each piece owns
    // m_tiles_per_piece consecutive blocks along grid x and addresses its part of the input
    // and output through a 64-bit base (piece * *_piece_stride elements) plus 32-bit offsets.
    // Without split image there is one piece holding all N images.
    int images_per_piece;
    int m_tiles_per_piece;
    long long in_piece_stride;
    long long out_piece_stride;
};

} // namespace gconv
