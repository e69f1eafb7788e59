#pragma once
// A kernel configuration run on the CPU emulator (emulated_module.h) over the launch sequence a
// worker would run, on seeded random tensors, in both thread orders, each result verified
// against the host convolution with the worker's tolerance (sweep/measurement.h).
#include "config/kernel_config.h"
#include "emu/emulated_module.h"
#include "problem/problem.h"
#include "sweep/measurement.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

namespace gconv::emu {

struct EmulatedCheck {
    std::string entry; // the step that computes the convolution
    Verification ascending, descending;
    double run_seconds = 0.0; // both orders
    bool passed() const { return ascending.passed && descending.passed; }
};

// The H200's opt-in shared memory per block: the tile choices a sm_90 worker makes.
inline constexpr std::size_t k_emulated_shared_optin = 232448;

class KernelEmulator {
public:
    // Builds the module of `config` with the entries its cells on `problems` launch.
    KernelEmulator(const KernelConfig& config, const std::vector<Problem>& problems,
                   const std::filesystem::path& work_dir,
                   std::size_t shared_optin = k_emulated_shared_optin);

    // Throws std::invalid_argument for a pair the kernel does not support (plan_sequence),
    // gconv::Error when the emulation stops (the entry and the reason).
    EmulatedCheck check(const Problem& problem, std::uint64_t seed = 1) const;

    const EmulatedModule& module() const { return *module_; }

private:
    KernelConfig config_;
    std::size_t shared_optin_;
    std::unique_ptr<EmulatedModule> module_;
};

} // namespace gconv::emu
