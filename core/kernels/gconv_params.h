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

    // C/G of the input and filter as stored: c_per_group, except where the launch sequence
    // first copies them channel-padded (gconv_pad.h) and the kernels run the padded problem.
    int stored_c_per_group;

    // 1: the split-K workspace is zero when the run starts and must be left zero (what converts
    // fp32 sums writes zeros back over what it read, the last arrival at a ticket resets it), so
    // the sequence needs no memset (LaunchSequence::workspace_kept_zero).
    int keep_workspace_zero;
};

// The second argument of a wgmma kernel (compv5 on sm_90a), passed as a __grid_constant__:
// two tensor maps for the bulk tensor copy engine, encoded by the host per launch
// (core/worker/tma_maps.h). enabled 0: the kernel loads with cp.async instead (a problem the
// maps cannot describe, see core/codegen/wgmma_tma.h). input: the NHWGC / NDHWGC input in
// im2col mode (forward: TM pixels x 64 channels per copy, A; bwd_weight: 64 pixels x 64
// channels, B) or, where input_tiled (forward 1x1, stride 1, no padding: the input is the A
// matrix itself), tiled as {C, N*Di*Hi*Wi, 1} (64 x TM x 1 per copy); tiled: forward the
// weight as {C/G, Z*Y*X, G*K/G} (64 x 1 x TN, B), bwd_weight dOut as {K, N*Do*Ho*Wo, 1}
// (64 x 64 x 1 per copy, A).
struct alignas(64) TensorMapBits {
    unsigned long long bits[16]; // the driver's opaque 128-byte CUtensorMap
};
struct WgmmaMaps {
    TensorMapBits input;
    TensorMapBits tiled;
    int enabled;
    int input_tiled;
};

} // namespace gconv
