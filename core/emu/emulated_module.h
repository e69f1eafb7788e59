#pragma once
// A generated kernel module built by the host C++ compiler against the CPU emulation of the
// device (core/emu/device/): runs a kernel's own code, barriers, warp collectives and
// asynchronous copies included, where no GPU is. For checking what kernels compute (CI has no
// GPU), not for timing them. Linux (fibers, dlopen, fork).
#include "kernels/gconv_params.h"

#include <filesystem>
#include <string>
#include <vector>

namespace gconv::emu {

struct EmulatorToolchain {
    std::string compiler; // an executable path
    std::string version;  // the first line of its --version (a new compiler builds new modules)
    std::vector<std::string> flags;
    // $GCONV_EMU_CXX (a path or a name on PATH), else the C++ compiler gconv was built with;
    // -O1: the unrolled kernels compile in seconds and run fast enough on small problems.
    static EmulatorToolchain host_default();
    std::string identity() const; // compiler path, its --version line and the flags
};

// The order the scheduler runs the threads of a block between synchronisation points: a race
// on shared memory reads stale data in at least one of the two.
enum class ThreadOrder { Ascending, Descending };

struct EmulatedLaunch {
    std::string entry;
    ConvParams params{};
    void* workspace = nullptr;
    bool with_workspace = false;
    unsigned grid[3] = {1, 1, 1};
    unsigned threads = 0;
    std::size_t shared_bytes = 0;
    ThreadOrder order = ThreadOrder::Ascending;
};

class EmulatedModule {
public:
    // Compiles `source` (a generated translation unit, codegen/kernel_source.h) with the
    // embedded kernel headers into a shared object under `work_dir`, or reuses the one built
    // there from the same source, headers and toolchain; then loads it. Throws gconv::Error
    // with the compiler's log when it does not compile.
    EmulatedModule(const std::string& source, const std::filesystem::path& work_dir,
                   const EmulatorToolchain& toolchain = EmulatorToolchain::host_default());
    ~EmulatedModule();
    EmulatedModule(const EmulatedModule&) = delete;
    EmulatedModule& operator=(const EmulatedModule&) = delete;

    bool has_entry(const std::string& entry) const;
    // Runs the launch over its whole grid; throws gconv::Error naming the entry and what
    // stopped it (a trap, a stalled barrier, a misaligned shared access, ...).
    void launch(const EmulatedLaunch& launch) const;

    bool from_cache() const { return from_cache_; }
    double compile_seconds() const { return compile_seconds_; }

private:
    void* handle_ = nullptr;
    void* launch_fn_ = nullptr;
    bool from_cache_ = false;
    double compile_seconds_ = 0.0;
};

} // namespace gconv::emu
