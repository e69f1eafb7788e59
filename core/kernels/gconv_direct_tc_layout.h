#pragma once
// Index arithmetic of the tensor-core direct entries (gconv_direct_tc.h), shared verbatim by the
// device code and the host (codegen/direct_plan.h, tests/core/tst_direct_tc_layout.cpp), so the
// grid, the shared-memory size and the fragment addressing are one formula on both sides. Plain
// integer C++, no device header.
#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__) || defined(__CUDACC__)
#define GCONV_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define GCONV_HOST_DEVICE inline
#endif

namespace gconv {
namespace direct_tc {

// A staged filter row (one channel, one filter row r): kBRow elements with tap s at element
// s + kBRowLead and zeros around it (T_r[k][j] = w[r][k - j] with k - j from -7 to 15), then the
// same row shifted left by one element, so that every lane's pair of T_r is one aligned word.
constexpr int kBRow = 24;
constexpr int kBRowLead = 8;
constexpr int kBRowBytes = 2 * kBRow * 2; // two copies of 16-bit elements
// Widest block tile: 16-column items, at most 4 of them across.
constexpr int kMaxCols = 64;

template <class I> struct Geometry {
    I rows = 0, cols = 0;          // output rows and columns of a block tile
    I bands = 0, col_tiles = 0;    // tiles along H and W
    I tiles = 0;                   // per channel block
    I in_rows = 0, row_stride = 0; // staged rows; elements per staged row (cols + 8)
    // Rows of a staged plane: with a stride along H the source rows are staged by parity
    // (row phase q % stride_h at rows (q % stride_h) x phase_rows + q / stride_h), so the rows one
    // ldmatrix reads for consecutive output rows are consecutive; in_rows with stride 1.
    I phase_rows = 0, plane_rows = 0;
};

// rows = 16 x tile_k; cols = min(tile_m / rows, dW rounded up to 16); tiles = N x bands x
// column tiles, the column tile fastest. A staged row holds cols + 8 elements: the last item's
// third 8-column block ends at column cols + 7, and (cols + 8) / 8 is odd, so the eight rows of
// one ldmatrix phase fall in different banks. The tile reads (rows - 1) x stride_h + taps_y
// source rows (forward with a stride along H; 1 elsewhere). Zero extents where the config
// cannot tile.
template <class I>
GCONV_HOST_DEVICE Geometry<I> geometry(I tile_m, I tile_k, I taps_y, I stride_h, I N, I dH, I dW) {
    Geometry<I> g;
    g.rows = 16 * tile_k;
    if (dH <= 0 || dW <= 0 || tile_k <= 0 || tile_m < g.rows) return g;
    const I wide = (dW + 15) / 16 * 16;
    g.cols = tile_m / g.rows < wide ? tile_m / g.rows : wide;
    if (g.cols <= 0) return g;
    g.bands = (dH + g.rows - 1) / g.rows;
    g.col_tiles = (dW + g.cols - 1) / g.cols;
    g.tiles = N * g.bands * g.col_tiles;
    g.in_rows = (g.rows - 1) * stride_h + taps_y;
    g.row_stride = g.cols + 8;
    g.phase_rows = (g.in_rows + stride_h - 1) / stride_h;
    g.plane_rows = g.phase_rows * stride_h;
    return g;
}

// The Toeplitz offset k - j that element i (0 .. 2 kBRow - 1) of a staged filter row stands for.
GCONV_HOST_DEVICE int b_row_offset(int i) {
    return i % kBRow + i / kBRow - kBRowLead;
}

// The filter tap element i of a staged filter row holds, or -1 for a zero. With a stride of 2
// along W the source columns are staged as two phases (even and odd columns of the tile's window)
// and each phase has its own filter row: offset d of phase `phase` holds tap stride_w x d + phase.
GCONV_HOST_DEVICE int b_row_tap(int i, int taps, int stride_w = 1, int phase = 0) {
    const int d = b_row_offset(i);
    const int s = stride_w * d + phase;
    return d >= 0 && s < taps ? s : -1;
}

// bwd_data with stride 2 along one axis (K taps, the forward pad): destination index 2a + phase
// takes taps r = 2e + rho, rho = (phase + pad) % 2, from source index a + delta - e, delta =
// (phase + pad) / 2. Per phase that is a forward convolution over the source with taps[phase]
// taps (tap e' is filter tap 2 (taps - 1 - e') + rho) and lead taps - 1 - delta. A block stages
// source rows from a - max lead on, so phase `phase` reads its tap e' at staged offset
// offset[phase] + e' (offset = max lead - lead), and span = max(offset + taps) - 1 source rows
// past the tile's own.
struct DataS2Axis {
    int taps[2], rho[2], offset[2];
    int lead, span;
};
GCONV_HOST_DEVICE DataS2Axis data_s2_axis(int K, int pad) {
    DataS2Axis a;
    int lead[2];
    for (int f = 0; f < 2; ++f) {
        a.rho[f] = (f + pad) % 2;
        a.taps[f] = (K - a.rho[f] + 1) / 2;
        lead[f] = a.taps[f] - 1 - (f + pad) / 2;
    }
    a.lead = lead[0] > lead[1] ? lead[0] : lead[1];
    a.span = 0;
    for (int f = 0; f < 2; ++f) {
        a.offset[f] = a.lead - lead[f];
        const int reach = a.offset[f] + a.taps[f] - 1;
        a.span = reach > a.span ? reach : a.span;
    }
    return a;
}

// The tile geometry of bwd_data with stride 2: tiles over the phase grid (ceil(H / 2) x
// ceil(W / 2): destination (2a + py, 2b + px) for the four phases), span extra source rows.
template <class I>
GCONV_HOST_DEVICE Geometry<I> data_s2_geometry(I tile_m, I tile_k, I taps, I pad_h, I N, I dH,
                                               I dW) {
    Geometry<I> g = geometry<I>(tile_m, tile_k, taps, I(1), N, (dH + 1) / 2, (dW + 1) / 2);
    if (g.cols <= 0) return g;
    g.in_rows = g.rows + data_s2_axis(int(taps), int(pad_h)).span;
    g.phase_rows = g.plane_rows = g.in_rows;
    return g;
}

// Byte offset in a staged filter row of the word holding lane (g, t)'s B pair {T[2t][g],
// T[2t + 1][g]}: elements 2t - g + 8 and + 1 of the first copy for even g, the same pair at
// 2t - g + 7 of the second copy for odd g. The second register (k + 8) is 16 bytes further.
GCONV_HOST_DEVICE int b_lane_bytes(int lane) {
    const int g = lane / 4, t = lane % 4;
    return ((g & 1) ? kBRow + 2 * t - g + kBRowLead - 1 : 2 * t - g + kBRowLead) * 2;
}

// Byte offset of a lane's ldmatrix row address from an item's A origin (row 0 of its first
// 8-column block): lanes 0-15 give rows 0-15 of that block (matrices 0 and 1 of an x4 load),
// lanes 16-31 rows 0-15 of the next block (matrices 2 and 3).
GCONV_HOST_DEVICE int a_lane_bytes(int lane, int row_stride) {
    return ((lane & 15) * row_stride + (lane >> 4) * 8) * 2;
}

// bwd_weight: the element (of its copy of a staged input row) where a lane's Hankel pair
// {In[16j + 2t + g], In[16j + 2t + g + 1]} starts, relative to the chunk: 2t + g in the first copy
// for even g, 2t + g - 1 in the second copy (shifted left by one element) for odd g, so the pair
// is always one aligned word. The pair for columns + 8 is 8 elements further.
GCONV_HOST_DEVICE int hankel_lane_element(int lane) {
    const int g = lane / 4, t = lane % 4;
    return 2 * t + g - (g & 1);
}

// bwd_weight's staged planes (tc_weight), in elements. Per channel: a dOut plane of rows + 1
// rows (a zero row last) and an input plane of two copies of in_rows rows x P column phases
// (the second copy shifted left by one element), each copy's rows contiguous so that a staging
// step's consecutive element pairs are consecutive words. The planes of 8-channel vector o start
// o x (8 planes + group_pad) in: a staging store writes one plane per channel of a vector, the
// lanes of a warp alternating over the tile's OCT vectors, and planes a multiple of 32 words
// apart would put the vectors' words in the same banks; 32 / OCT words between them spread a
// warp's 32 / OCT consecutive pairs per vector over all 32 banks.
template <class I> struct WeightPlanes {
    I d_plane = 0, d_group = 0; // a channel's dOut plane; from one 8-channel vector to the next
    I i_row = 0, i_copy = 0;    // a staged input row (P phases); the second copy's offset
    I i_plane = 0, i_group = 0; // a channel's input plane; from one 8-channel vector to the next
    I douts = 0, ins = 0;       // the tile's dOut and input planes
};
template <class I>
GCONV_HOST_DEVICE WeightPlanes<I> weight_planes(const Geometry<I>& g, I stride_w, I tile_n) {
    WeightPlanes<I> w;
    const I vectors = tile_n / 8;
    const I group_pad = vectors > 1 ? 2 * (32 / vectors) : 0; // elements
    w.d_plane = (g.rows + 1) * g.row_stride;
    w.d_group = 8 * w.d_plane + group_pad;
    w.i_row = stride_w * g.row_stride;
    w.i_copy = g.in_rows * w.i_row;
    w.i_plane = 2 * w.i_copy;
    w.i_group = 8 * w.i_plane + group_pad;
    w.douts = vectors * w.d_group;
    w.ins = vectors * w.i_group;
    return w;
}
} // namespace direct_tc
} // namespace gconv
