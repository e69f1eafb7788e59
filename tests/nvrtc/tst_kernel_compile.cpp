// Compiles a representative set of generated forward and backward kernels (every pipeline,
// scheduler, epilogue and dtype, 2D and 3D, merged groups, split image, no-pad) and the
// verification kernels with NVRTC for sm_90, from the embedded headers exactly as the JIT receives
// them. Needs no GPU. Prints ptxas' register / spill report per kernel.
#include "codegen/embedded_files.h"
#include "codegen/kernel_source.h"
#include "codegen/launch_plan.h"

#include <nvrtc.h>

#include <QtTest>

#include <string>
#include <vector>

using namespace gconv;

namespace {

struct Result {
    bool ok;
    std::string log;
    std::string ptx;
};

Result compile(const std::string& source, const std::string& arch = "sm_90") {
    std::vector<const char*> names, bodies;
    std::vector<std::string> storage;
    for (const EmbeddedFile& f : embedded::files()) {
        storage.emplace_back(f.contents);
        storage.emplace_back(f.name);
    }
    for (size_t i = 0; i < storage.size(); i += 2) {
        bodies.push_back(storage[i].c_str());
        names.push_back(storage[i + 1].c_str());
    }
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, source.c_str(), "gconv_kernel.cu", int(bodies.size()),
                           bodies.data(), names.data()) != NVRTC_SUCCESS)
        return {false, "nvrtcCreateProgram failed"};
    // The options jit::platform_options gives NVIDIA targets (gconv_gpu, which this test does
    // not link), and ptxas' report.
    const std::string gpu = "--gpu-architecture=" + arch;
    const char* opts[] = {gpu.c_str(), "-std=c++17", "-default-device",
                          "-DGCONV_DEVICE_PLATFORM_NVIDIA=1", "--ptxas-options=-v"};
    const nvrtcResult r = nvrtcCompileProgram(prog, 5, opts);
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(prog, log.data());
    std::string ptx;
    if (r == NVRTC_SUCCESS && nvrtcGetPTXSize(prog, &n) == NVRTC_SUCCESS) {
        ptx.resize(n);
        nvrtcGetPTX(prog, ptx.data());
    }
    nvrtcDestroyProgram(&prog);
    return {r == NVRTC_SUCCESS, log, ptx};
}

// ptxas' log line holding `key`, trimmed to start there; "" when absent.
std::string log_line(const std::string& log, const std::string& key) {
    const auto p = log.find(key);
    if (p == std::string::npos) return "";
    return log.substr(p, log.find('\n', p) - p);
}

// Registers, then the stack frame and spill bytes (the wgmma kernels' producer spills).
std::string ptxas_summary(const std::string& log) {
    const std::string used = log_line(log, "Used ");
    if (used.empty()) return "?";
    const auto frame = log.find(" bytes stack frame");
    if (frame == std::string::npos) return used;
    const auto begin = log.find_first_not_of(' ', log.rfind('.', frame) + 1);
    return used + "; " + log.substr(begin, log.find('\n', frame) - begin);
}

// ptxas' spill stores in bytes (one entry per source here), -1 when the log has none.
int spill_bytes(const std::string& log) {
    const auto p = log.find(" bytes spill stores");
    if (p == std::string::npos) return -1;
    const auto b = log.rfind(' ', p - 1);
    return std::stoi(log.substr(b + 1, p - b - 1));
}

// Compiles a wgmma config for sm_90a after checking that p takes it: "" when it compiled and its
// PTX issues wgmma.m64n<warp_tile_n>k16, else what failed; r holds the compile result.
std::string compile_wgmma(const KernelConfig& c, const Problem& p, Result& r) {
    const SupportCheck s = is_supported(c, p);
    if (!s.ok) return "not supported: " + s.reason;
    r = compile(generate_kernel_source(c), "sm_90a");
    if (!r.ok) return r.log;
    const std::string mma = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(c.warp_tile_n);
    if (r.ptx.find(mma + "k16") == std::string::npos) return "no " + mma + "k16 in the PTX";
    return "";
}

// "" when the PTX raises the consumers to `consumer_regs` with setmaxnreg and ptxas spilled at
// most 1 KB (the producer's tile setup; accumulators that do not fit spill 2 KB and more), else
// what is wrong. Prints ptxas' register / spill summary.
std::string check_consumer_registers(const Result& r, int consumer_regs) {
    qInfo("%s", ptxas_summary(r.log).c_str());
    if (r.ptx.find("setmaxnreg.inc.sync.aligned.u32 " + std::to_string(consumer_regs)) ==
        std::string::npos)
        return "no setmaxnreg.inc to " + std::to_string(consumer_regs);
    const int spilled = spill_bytes(r.log);
    if (spilled < 0 || spilled > 1024) return "spill stores: " + std::to_string(spilled) + " bytes";
    return "";
}

// compile_wgmma on a 1x1 layer: n images of hw x hw pixels, c -> k channels.
std::string compile_wgmma_1x1(const KernelConfig& config, int n, int c, int k, int hw, Result& r) {
    Problem p;
    p.N = n, p.C = c, p.K = k, p.Hi = p.Wi = hw;
    return compile_wgmma(config, p, r);
}

KernelConfig make(DataType dt, int nd, int tm, int tn, int tk, int wm, int wn, int wtm, int wtn,
                  int wtk, Pipeline pipe, Scheduler s, Epilogue e, int va, int vb, int vc, int gm,
                  bool si, bool pad = true) {
    KernelConfig c;
    c.dtype = dt, c.ndim_spatial = nd, c.tile_m = tm, c.tile_n = tn, c.tile_k = tk;
    c.wave_m = wm, c.wave_n = wn, c.warp_tile_m = wtm, c.warp_tile_n = wtn, c.warp_tile_k = wtk;
    c.pipeline = pipe, c.scheduler = s, c.epilogue = e;
    c.double_smem_buffer = pipe == Pipeline::CompV4 || pipe == Pipeline::CompV5;
    c.num_wave_groups = pipe == Pipeline::CompV5 ? 2 : 1;
    c.vector_size_a = va, c.vector_size_b = vb, c.vector_size_c = vc;
    c.num_groups_to_merge = gm, c.split_image = si;
    c.pad_m = c.pad_n = c.pad_k = pad;
    return c;
}

} // namespace

class TestKernelCompile : public QObject {
    Q_OBJECT
private slots:
    void forward_kernels_compile_data() {
        QTest::addColumn<int>("index");
        const auto bf = DataType::BF16, fh = DataType::FP16, f32 = DataType::FP32;
        const auto intra = Scheduler::Intrawave, inter = Scheduler::Interwave;
        const auto cs = Epilogue::CShuffle, di = Epilogue::Direct;
        configs_ = {
            make(bf, 2, 128, 128, 32, 2, 2, 64, 64, 16, Pipeline::CompV3, intra, cs, 8, 8, 8, 1,
                 false),
            make(bf, 2, 128, 64, 32, 2, 2, 32, 32, 16, Pipeline::CompV4, intra, cs, 8, 8, 8, 1,
                 true),
            make(bf, 3, 64, 64, 64, 2, 2, 32, 32, 32, Pipeline::CompAsync, intra, di, 8, 8, 2, 2,
                 false),
            make(fh, 2, 128, 64, 32, 4, 1, 32, 32, 16, Pipeline::Mem, inter, cs, 8, 4, 4, 8, false),
            make(fh, 3, 64, 128, 32, 2, 4, 32, 16, 16, Pipeline::CompV5, intra, cs, 4, 4, 4, 1,
                 true),
            make(bf, 2, 64, 16, 16, 4, 1, 16, 8, 16, Pipeline::CompV6, inter, di, 1, 1, 1, 4,
                 false),
            make(bf, 2, 32, 32, 32, 1, 1, 16, 16, 16, Pipeline::BasicV1, inter, cs, 8, 8, 8, 1,
                 false, false),
            make(f32, 2, 64, 64, 16, 2, 2, 16, 16, 4, Pipeline::CompV3, intra, di, 4, 4, 4, 1,
                 false),
            make(f32, 3, 32, 64, 32, 1, 2, 32, 32, 8, Pipeline::CompV5, intra, cs, 4, 4, 4, 2,
                 true),
            make(fh, 2, 16, 64, 32, 1, 2, 16, 32, 2, Pipeline::CompAsync, inter, di, 4, 4, 4, 1,
                 false),
            make(bf, 2, 64, 64, 64, 2, 2, 32, 32, 16, Pipeline::CompV3, intra, cs, 8, 8, 8, 1,
                 false),
            make(f32, 3, 64, 32, 32, 2, 2, 16, 16, 8, Pipeline::Mem, intra, di, 4, 4, 4, 1, false),
        };
        configs_[6].double_smem_buffer = true; // basic_v1 with two buffers
        // Split-K: fp32 sums added into a workspace (bf16, with the finish kernel) or the output.
        configs_[10].split_k = 4, configs_[10].split_k_mode = SplitKMode::Atomic;
        configs_[11].split_k = 3, configs_[11].split_k_mode = SplitKMode::Atomic;
        for (int i = 0; i < int(configs_.size()); ++i)
            QTest::newRow(generate_kernel_source(configs_[size_t(i)]).substr(26, 90).c_str()) << i;
    }
    void forward_kernels_compile() {
        QFETCH(int, index);
        const KernelConfig& c = configs_[size_t(index)];
        Problem p; // a permissive problem: the config itself must be legal
        p.ndim_spatial = c.ndim_spatial, p.N = 2, p.C = p.K = 64, p.Hi = p.Wi = 8;
        const int gm = c.num_groups_to_merge;
        p.G = gm == 8 ? 8 : gm == 4 ? 16 : 2;
        p.C = p.K = gm == 4 ? 32 : 64;
        if (c.ndim_spatial == 3) p.Di = 4;
        const SupportCheck s = is_supported(c, p);
        QVERIFY2(s.ok, s.reason.c_str());
        const Result r = compile(generate_kernel_source(c));
        QVERIFY2(r.ok, r.log.c_str());
        qInfo("%s", ptxas_summary(r.log).c_str());
        QVERIFY(r.log.find("ptxas info") != std::string::npos);
    }
    // The persistent wgmma kernels for sm_90a (the only target where the wgmma path exists),
    // alone and in clusters of two blocks sharing A by multicast: 2D and 3D, cshufflebuf and
    // direct epilogues. The cluster size is compiled in (the entry's cluster dims).
    void wgmma_cluster_kernels_compile_for_sm90a_data() {
        QTest::addColumn<int>("ndim");
        QTest::addColumn<int>("cluster");
        QTest::addColumn<bool>("cshufflebuf");
        QTest::newRow("2d cshufflebuf") << 2 << 1 << true;
        QTest::newRow("2d cshufflebuf cluster 2") << 2 << 2 << true;
        QTest::newRow("2d direct cluster 2") << 2 << 2 << false;
        QTest::newRow("3d cshufflebuf cluster 2") << 3 << 2 << true;
    }
    void wgmma_cluster_kernels_compile_for_sm90a() {
        QFETCH(int, ndim);
        QFETCH(int, cluster);
        QFETCH(bool, cshufflebuf);
        KernelConfig c =
            make(DataType::BF16, ndim, 256, 128, 64, 8, 1, 16, 128, 16, Pipeline::CompV5,
                 Scheduler::Intrawave, cshufflebuf ? Epilogue::CShuffleBuf : Epilogue::Direct, 8, 8,
                 cshufflebuf ? 8 : 2, 1, false);
        c.cluster_n = cluster;
        const std::string source = generate_kernel_source(c);
        QCOMPARE(source.find("GCONV_CLUSTER_DIMS(2)") != std::string::npos, cluster == 2);
        const Result r = compile(source, "sm_90a");
        QVERIFY2(r.ok, r.log.c_str());
        // The entry carries its cluster shape (a plain launch then forms the clusters), and
        // only a cluster kernel multicasts.
        QCOMPARE(r.ptx.find(".reqnctapercluster 2, 1, 1") != std::string::npos, cluster == 2);
        QCOMPARE(r.ptx.find("multicast::cluster") != std::string::npos, cluster == 2);
        // A 1x1 unpadded stride-1 problem's input comes through a tiled map (input_tiled), in a
        // cluster multicast like the im2col copy.
        QVERIFY(r.ptx.find("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::"
                           "complete_tx::bytes [") != std::string::npos);
        QCOMPARE(r.ptx.find("global.tile.mbarrier::complete_tx::bytes.multicast::cluster") !=
                     std::string::npos,
                 cluster == 2);
        // 128 accumulators a consumer: the 88 / 208 register split.
        QVERIFY(r.ptx.find("setmaxnreg.inc.sync.aligned.u32 208") != std::string::npos);
        qInfo("%s", ptxas_summary(r.log).c_str());
        QVERIFY(r.log.find("ptxas info") != std::string::npos);
    }
    // The forward wgmma N between the powers of two (m64n96k16, m64n160k16, m64n192k16,
    // m64n224k16): the instruction with that N is in the PTX, and a layer of 408 channels takes
    // the kernel.
    void wgmma_n_between_powers_of_two_compile_for_sm90a_data() {
        QTest::addColumn<int>("n");
        for (int n : {96, 160, 192, 224}) QTest::newRow(std::to_string(n).c_str()) << n;
    }
    void wgmma_n_between_powers_of_two_compile_for_sm90a() {
        QFETCH(int, n);
        const KernelConfig c =
            make(DataType::BF16, 2, 128, n, 64, 8, 1, 16, n, 16, Pipeline::CompV5,
                 Scheduler::Intrawave, Epilogue::CShuffleBuf, 8, 8, 8, 1, false);
        Result r;
        const std::string why = compile_wgmma_1x1(c, 2, 168, 408, 16, r);
        QVERIFY2(why.empty(), why.c_str());
        qInfo("%s", ptxas_summary(r.log).c_str());
    }
    // Two consumer warpgroups of 160 or 192 accumulators a thread (256 x 160 / 192, ping-pong
    // 128 x 160 / 192 holding a whole tile each): 160 keep setmaxnreg 88 / 208, 192 take 40 /
    // 232; the tile's instruction, and no more spill stores than the producer's tile setup
    // (120 bytes at 88, 700-800 at 40; 192 accumulators at 208 spill 2-2.6 KB, and a 256 x 224
    // tile, which the rules refuse, 4 KB at 232).
    void wgmma_wide_accumulator_tiles_compile_for_sm90a_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<bool>("pingpong");
        QTest::addColumn<int>("consumer_regs");
        QTest::newRow("256x160") << 256 << 160 << false << 208;
        QTest::newRow("256x192") << 256 << 192 << false << 232;
        QTest::newRow("128x160 ping-pong") << 128 << 160 << true << 208;
        QTest::newRow("128x192 ping-pong") << 128 << 192 << true << 232;
    }
    void wgmma_wide_accumulator_tiles_compile_for_sm90a() {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(bool, pingpong);
        QFETCH(int, consumer_regs);
        const KernelConfig c = make(DataType::BF16, 2, m, n, 64, 8, 1, 16, n, 16, Pipeline::CompV5,
                                    pingpong ? Scheduler::Interwave : Scheduler::Intrawave,
                                    Epilogue::CShuffleBuf, 8, 8, 8, 1, false);
        Result r;
        const std::string why = compile_wgmma_1x1(c, 12, 728, 728, 21, r);
        QVERIFY2(why.empty(), why.c_str());
        const std::string split = consumer_regs == 232 ? "40" : "88";
        QVERIFY(r.ptx.find("setmaxnreg.dec.sync.aligned.u32 " + split) != std::string::npos);
        const std::string regs = check_consumer_registers(r, consumer_regs);
        QVERIFY2(regs.empty(), regs.c_str());
    }
    // The N split of two consumer warpgroups (wave layout [4, 2, 1]): each issues
    // wgmma.m64n<tile_n / 2>k16 over every 64-row block of the tile, so 192-row tiles need no
    // third warpgroup (192 x 208 for 408 channels: 156 accumulators, setmaxnreg 88 / 208); every
    // epilogue, a cluster of two, and 256 x 176 at 40 / 232. No more spill stores than the
    // producer's tile setup.
    void wgmma_n_split_tiles_compile_for_sm90a_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("epilogue");
        QTest::addColumn<int>("cluster");
        QTest::addColumn<int>("consumer_regs");
        const int buf = static_cast<int>(Epilogue::CShuffleBuf);
        QTest::newRow("192x208") << 192 << 208 << buf << 1 << 208;
        QTest::newRow("192x208 direct")
            << 192 << 208 << static_cast<int>(Epilogue::Direct) << 1 << 208;
        QTest::newRow("192x208 cshuffle")
            << 192 << 208 << static_cast<int>(Epilogue::CShuffle) << 1 << 208;
        QTest::newRow("192x208 cluster 2") << 192 << 208 << buf << 2 << 208;
        QTest::newRow("192x144") << 192 << 144 << buf << 1 << 208;
        QTest::newRow("128x240") << 128 << 240 << buf << 1 << 208;
        QTest::newRow("256x176") << 256 << 176 << buf << 1 << 232;
    }
    void wgmma_n_split_tiles_compile_for_sm90a() {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, epilogue);
        QFETCH(int, cluster);
        QFETCH(int, consumer_regs);
        KernelConfig c =
            make(DataType::BF16, 2, m, n, 64, 4, 2, 16, n / 2, 16, Pipeline::CompV5,
                 Scheduler::Intrawave, static_cast<Epilogue>(epilogue), 8, 8, 8, 1, false);
        c.cluster_n = cluster;
        QVERIFY(wgmma_n_split(c) && uses_wgmma(c));
        Result r;
        const std::string why = compile_wgmma_1x1(c, 12, 168, 408, 32, r);
        QVERIFY2(why.empty(), why.c_str());
        // Two consumer warpgroups behind the producer: 384 threads.
        QVERIFY(r.ptx.find(".maxntid 384, 1, 1") != std::string::npos);
        QCOMPARE(r.ptx.find(".reqnctapercluster 2, 1, 1") != std::string::npos, cluster == 2);
        const std::string regs = check_consumer_registers(r, consumer_regs);
        QVERIFY2(regs.empty(), regs.c_str());
    }
    // Pixels on the instruction's N side (pixels_on_n): the channel tile is wgmma's A in 64-row
    // blocks, the pixel tile its B, so the PTX issues m64n<tile_m>k16 for pixel edges that are
    // not multiples of 64 (160: 19200 pixels in 120 tiles), one or two channel blocks per
    // consumer warpgroup, cshuffle and cshufflebuf; the consumers keep their accumulators.
    void wgmma_pixels_on_n_tiles_compile_for_sm90a_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("wave_m");
        QTest::addColumn<int>("epilogue");
        QTest::addColumn<int>("consumer_regs");
        const int buf = static_cast<int>(Epilogue::CShuffleBuf);
        const int cs = static_cast<int>(Epilogue::CShuffle);
        QTest::newRow("160x128 cshufflebuf") << 160 << 128 << 8 << buf << 208;
        QTest::newRow("160x128 cshuffle") << 160 << 128 << 8 << cs << 208;
        QTest::newRow("168x256 cshufflebuf") << 168 << 256 << 8 << buf << 232;
        QTest::newRow("208x64 one consumer") << 208 << 64 << 4 << buf << 0;
        QTest::newRow("96x128 one consumer, two blocks") << 96 << 128 << 4 << cs << 0;
    }
    void wgmma_pixels_on_n_tiles_compile_for_sm90a() {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, wave_m);
        QFETCH(int, epilogue);
        QFETCH(int, consumer_regs);
        KernelConfig c =
            make(DataType::BF16, 2, m, n, 64, wave_m, 1, 16, m, 16, Pipeline::CompV5,
                 Scheduler::Intrawave, static_cast<Epilogue>(epilogue), 8, 8, 8, 1, false);
        c.pixels_on_n = true;
        QVERIFY(uses_wgmma(c) && instruction_m(c) == n && instruction_n(c) == m);
        Result r;
        const std::string why = compile_wgmma_1x1(c, 12, 512, 256, 40, r);
        QVERIFY2(why.empty(), why.c_str());
        QVERIFY(r.ptx.find(wave_m == 8 ? ".maxntid 384, 1, 1" : ".maxntid 256, 1, 1") !=
                std::string::npos);
        if (consumer_regs > 0) {
            const std::string regs = check_consumer_registers(r, consumer_regs);
            QVERIFY2(regs.empty(), regs.c_str());
        } else {
            qInfo("%s", ptxas_summary(r.log).c_str());
            const int spilled = spill_bytes(r.log);
            QVERIFY2(spilled >= 0 && spilled <= 1024, ptxas_summary(r.log).c_str());
        }
    }
    // Clusters of four along N, and the pixels_on_n tiles in clusters of two and four: the
    // entry carries its cluster shape, the pixel (A) copy is multicast, the problem is supported.
    void wgmma_clusters_of_four_and_pixels_on_n_compile_for_sm90a_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("cluster");
        QTest::addColumn<bool>("pixels_on_n");
        QTest::newRow("256x128 cn4") << 256 << 128 << 4 << false;
        QTest::newRow("192x128 pn cn2") << 192 << 128 << 2 << true;
        QTest::newRow("120x256 pn cn4") << 120 << 256 << 4 << true;
    }
    void wgmma_clusters_of_four_and_pixels_on_n_compile_for_sm90a() {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, cluster);
        QFETCH(bool, pixels_on_n);
        KernelConfig c = make(DataType::BF16, 2, m, n, 64, 8, 1, 16, pixels_on_n ? m : n, 16,
                              Pipeline::CompV5, Scheduler::Intrawave, Epilogue::CShuffleBuf, 8, 8,
                              8, 1, false);
        c.pixels_on_n = pixels_on_n;
        c.cluster_n = cluster;
        Result r;
        const std::string why = compile_wgmma_1x1(c, 12, 408, 912, 16, r);
        QVERIFY2(why.empty(), why.c_str());
        const std::string dims = ".reqnctapercluster " + std::to_string(cluster) + ", 1, 1";
        QVERIFY2(r.ptx.find(dims) != std::string::npos, dims.c_str());
        QVERIFY(r.ptx.find("global.im2col.mbarrier::complete_tx::bytes.multicast::cluster") !=
                std::string::npos);
        qInfo("%s", ptxas_summary(r.log).c_str());
        const int spilled = spill_bytes(r.log);
        QVERIFY2(spilled >= 0 && spilled <= 1024, ptxas_summary(r.log).c_str());
    }
    // A cluster along K (cluster_k): the cluster's blocks reduce shares of one tile's K tiles and
    // sum their fp32 partial tiles through distributed shared memory, so the kernel is launched
    // in clusters of cluster_k blocks and reads its peers' shared memory (mapa, then
    // ld.shared::cluster), with the pixels on M or on N (transposed partial tile).
    void wgmma_cluster_k_tiles_compile_for_sm90a_data() {
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("wave_m");
        QTest::addColumn<int>("cluster_k");
        QTest::addColumn<bool>("pn");
        QTest::addColumn<int>("vc"); // vector_size_c: 1 and 2 for K/G not a multiple of 8
        QTest::newRow("128x64 ck4") << 128 << 64 << 8 << 4 << false << 8;
        QTest::newRow("64x128 ck2") << 64 << 128 << 4 << 2 << false << 8;
        QTest::newRow("256x128 ck8") << 256 << 128 << 8 << 8 << false << 8;
        QTest::newRow("96x64 ck4 pixels_on_n") << 96 << 64 << 4 << 4 << true << 8;
        QTest::newRow("160x128 ck2 pixels_on_n") << 160 << 128 << 8 << 2 << true << 8;
        QTest::newRow("128x128 ck4 vector_size_c 1") << 128 << 128 << 8 << 4 << false << 1;
        QTest::newRow("96x128 ck2 pixels_on_n vector_size_c 2") << 96 << 128 << 4 << 2 << true << 2;
    }
    void wgmma_cluster_k_tiles_compile_for_sm90a() {
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, wave_m);
        QFETCH(int, cluster_k);
        QFETCH(bool, pn);
        QFETCH(int, vc);
        KernelConfig c =
            make(DataType::BF16, 2, m, n, 64, wave_m, 1, 16, pn ? m : n, 16, Pipeline::CompV5,
                 Scheduler::Intrawave, Epilogue::CShuffle, 8, 8, vc, 1, false);
        c.pixels_on_n = pn;
        c.cluster_k = cluster_k;
        QVERIFY(uses_wgmma(c));
        Result r;
        // i3d.Mixed_5b.b1a.b6: 150 pixels, C 832, K 160 (13 K tiles).
        const std::string why = compile_wgmma_1x1(c, 6, 832, 160, 5, r);
        QVERIFY2(why.empty(), why.c_str());
        const std::string dims = ".reqnctapercluster " + std::to_string(cluster_k) + ", 1, 1";
        QVERIFY2(r.ptx.find(dims) != std::string::npos, dims.c_str());
        QVERIFY(r.ptx.find("mapa.shared::cluster") != std::string::npos);
        // The sum reads each peer's partial rows in the output vector's width.
        const std::string load = vc == 1   ? "ld.shared::cluster.f32"
                                 : vc == 2 ? "ld.shared::cluster.v2.f32"
                                           : "ld.shared::cluster.v4.f32";
        QVERIFY2(r.ptx.find(load) != std::string::npos, load.c_str());
        QVERIFY(r.ptx.find("barrier.cluster.arrive") != std::string::npos);
        qInfo("%s", ptxas_summary(r.log).c_str());
        const int spilled = spill_bytes(r.log);
        QVERIFY2(spilled >= 0 && spilled <= 1024, ptxas_summary(r.log).c_str());
    }
    // Three consumer warpgroups (512 threads, 192-row tiles, setmaxnreg 56 / 152): a layer of
    // 12288 pixels takes the kernel and it compiles for sm_90a with the tile's instruction.
    // ptxas checks each instruction against the launch bound's 128 registers a thread; the
    // producer at 56 spills 200-400 bytes (the two-consumer kernels' at 88: about 120).
    void wgmma_three_consumer_tiles_compile_for_sm90a_data() {
        QTest::addColumn<int>("n");
        for (int n : {128, 192}) QTest::newRow(std::to_string(n).c_str()) << n;
    }
    void wgmma_three_consumer_tiles_compile_for_sm90a() {
        QFETCH(int, n);
        const KernelConfig c =
            make(DataType::BF16, 2, 192, n, 64, 12, 1, 16, n, 16, Pipeline::CompV5,
                 Scheduler::Intrawave, Epilogue::CShuffleBuf, 8, 8, 8, 1, false);
        QVERIFY(wgmma_three_consumers(c));
        Result r;
        const std::string why = compile_wgmma_1x1(c, 12, 256, 256, 32, r);
        QVERIFY2(why.empty(), why.c_str());
        QVERIFY(r.ptx.find("setmaxnreg.inc.sync.aligned.u32 152") != std::string::npos);
        QVERIFY(r.ptx.find(".maxntid 512, 1, 1") != std::string::npos);
        qInfo("%s", ptxas_summary(r.log).c_str());
    }
    // The shipped backward traits (compv3 / mem, both schedulers, dsb, si, merged groups,
    // every split-K mode) plus basic_v1 and direct stores, 2D and 3D, every dtype.
    void backward_kernels_compile_data() {
        QTest::addColumn<int>("index");
        const auto bf = DataType::BF16, fh = DataType::FP16, f32 = DataType::FP32;
        const auto intra = Scheduler::Intrawave, inter = Scheduler::Interwave;
        const auto cs = Epilogue::CShuffle, di = Epilogue::Direct;
        auto bwd = [](KernelConfig c, Variant v, int split = 1,
                      SplitKMode mode = SplitKMode::None) {
            c.variant = v, c.split_k = split, c.split_k_mode = mode;
            return c;
        };
        const auto bd = Variant::BwdData, bw = Variant::BwdWeight;
        backward_ = {
            bwd(make(bf, 2, 128, 128, 64, 2, 2, 32, 32, 16, Pipeline::CompV3, intra, cs, 8, 8, 8, 1,
                     false),
                bd),
            bwd(make(fh, 3, 64, 64, 32, 2, 2, 16, 16, 16, Pipeline::Mem, inter, cs, 8, 8, 8, 2,
                     true),
                bd),
            bwd(make(f32, 2, 64, 64, 32, 2, 2, 16, 16, 4, Pipeline::BasicV1, intra, di, 4, 4, 4, 1,
                     false),
                bd),
            bwd(make(bf, 2, 128, 64, 64, 4, 1, 32, 32, 16, Pipeline::Mem, intra, cs, 8, 8, 8, 1,
                     false),
                bw, 4, SplitKMode::TwoStage),
            bwd(make(fh, 3, 64, 128, 64, 1, 4, 32, 32, 16, Pipeline::CompV3, intra, cs, 8, 8, 8, 1,
                     true),
                bw, 4, SplitKMode::Atomic),
            bwd(make(f32, 2, 64, 64, 32, 2, 2, 32, 32, 4, Pipeline::Mem, inter, cs, 4, 4, 4, 1,
                     false),
                bw, 4, SplitKMode::Atomic),
            bwd(make(bf, 2, 32, 64, 64, 2, 2, 16, 16, 16, Pipeline::BasicV1, inter, di, 8, 8, 2, 1,
                     false),
                bw),
        };
        backward_[6].double_smem_buffer = true;
        for (int i = 0; i < int(backward_.size()); ++i)
            QTest::newRow(generate_kernel_source(backward_[size_t(i)]).substr(26, 90).c_str()) << i;
    }
    void backward_kernels_compile() {
        QFETCH(int, index);
        const KernelConfig& c = backward_[size_t(index)];
        Problem p;
        p.ndim_spatial = c.ndim_spatial, p.N = 2, p.C = p.K = 64, p.G = 2, p.Hi = p.Wi = 8;
        p.Y = p.X = 3, p.stride_h = p.stride_w = 2, p.pad_h = p.pad_w = 1;
        if (c.ndim_spatial == 3) p.Di = 4;
        const SupportCheck s = is_supported(c, p);
        QVERIFY2(s.ok, s.reason.c_str());
        const std::string source = generate_kernel_source(c);
        const Result r = compile(source);
        QVERIFY2(r.ok, r.log.c_str());
        qInfo("%s", ptxas_summary(r.log).c_str());
        QCOMPARE(source.find(std::string(finish_entry_name()) + "(") != std::string::npos,
                 has_finish_kernel(c));
    }
    // The wgmma direct kernels (pipeline direct_wgmma): C 16-64, 64-256 pixel rows, one or two
    // m64 blocks, 1 or 2 consumer warpgroups, bf16 and fp16. Each issues wgmma.m64n<tile_m>k16,
    // spills nothing, and ptxas keeps its wgmmas asynchronous (it says "serialized" where a
    // divergent-looking loop made it wait after each one).
    void direct_wgmma_kernels_compile_for_sm90a_data() {
        QTest::addColumn<int>("c");
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("consumers");
        QTest::addColumn<bool>("half");
        QTest::addColumn<int>("filter");
        QTest::newRow("C32 168x64 2 consumers 3x3") << 32 << 168 << 64 << 2 << false << 3;
        QTest::newRow("C64 128x128 2 consumers fp16 1x1") << 64 << 128 << 128 << 2 << true << 1;
        QTest::newRow("C16 256x64 2 consumers 3x3") << 16 << 256 << 64 << 2 << false << 3;
        QTest::newRow("C48 64x64 1 consumer 5x5") << 48 << 64 << 64 << 1 << false << 5;
    }
    void direct_wgmma_kernels_compile_for_sm90a() {
        QFETCH(int, c);
        QFETCH(int, m);
        QFETCH(int, n);
        QFETCH(int, consumers);
        QFETCH(bool, half);
        QFETCH(int, filter);
        KernelConfig k;
        k.dtype = half ? DataType::FP16 : DataType::BF16;
        k.pipeline = Pipeline::DirectWgmma, k.epilogue = Epilogue::CShuffleBuf;
        k.double_smem_buffer = true;
        k.tile_m = m, k.tile_n = n, k.tile_k = c;
        k.wave_m = 4 * consumers, k.wave_n = 1, k.wave_k = 1;
        k.warp_tile_m = 16, k.warp_tile_n = m, k.warp_tile_k = 16;
        Problem p;
        p.N = 2, p.C = c, p.K = 2 * n, p.Hi = 20, p.Wi = 300, p.Y = p.X = filter;
        p.pad_h = p.pad_w = filter / 2;
        Result r;
        const std::string why = compile_wgmma(k, p, r);
        QVERIFY2(why.empty(), why.c_str());
        qInfo("%s", ptxas_summary(r.log).c_str());
        QVERIFY2(r.log.find("Used ") != std::string::npos, r.log.c_str()); // ptxas' report is here
        QCOMPARE(spill_bytes(r.log), 0);
        QVERIFY2(r.log.find("serialized") == std::string::npos, r.log.c_str());
    }
    void reference_kernels_compile() {
        for (DataType d : {DataType::BF16, DataType::FP16, DataType::FP32}) {
            const Result r = compile(generate_reference_source(d));
            QVERIFY2(r.ok, r.log.c_str());
        }
    }
    void broken_source_fails() {
        // The harness must be able to fail: a kernel using an undeclared name does not compile.
        const Result r =
            compile("#include \"gconv_fwd.h\"\nextern \"C\" __global__ void k() { nope(); }\n");
        QVERIFY(!r.ok);
        QVERIFY(r.log.find("nope") != std::string::npos);
    }

private:
    std::vector<KernelConfig> configs_;
    std::vector<KernelConfig> backward_;
};

QTEST_APPLESS_MAIN(TestKernelCompile)
#include "tst_kernel_compile.moc"
