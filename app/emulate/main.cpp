// gconv-emulate: kernels run on the CPU emulator of the device code (core/emu/) and verified
// against the host convolution, where there is no GPU: what a kernel computes, not how fast.
#include "codegen/launch_sequence.h"
#include "config/arch_spec.h"
#include "config/config_filter.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "emu/emulated_check.h"
#include "emu/isolated_run.h"
#include "problem/registry.h"
#include "util/cli_args.h"
#include "util/error.h"

#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace {

using namespace gconv;
namespace fs = std::filesystem;

CliArgs make_cli() {
    return CliArgs(
        "gconv-emulate",
        "(CONFIG [--filter EXPR] | --kernel NAME ...) (--problems KEY | --problems-file FILE) "
        "[--limit N] [--work-dir DIR]",
        {
            {"--kernel", "NAME", "a kernel by name (repeatable) instead of a CONFIG's pool", "",
             true},
            {"--filter", "EXPR", "keep the CONFIG's kernels for which EXPR holds", ""},
            {"--arch", "ARCH", "architecture whose rules enumerate CONFIG", "sm_90"},
            {"--problems", "KEY", "problem set from the registry (problems/<KEY>.json)", ""},
            {"--problems-file", "FILE", "problem set file", ""},
            {"--limit", "N", "the first N problems of the set", "all"},
            {"--seed", "N", "seed of the random tensors", "1"},
            {"--timeout", "S", "seconds a kernel's cells may take before it is stopped", "900"},
            {"--work-dir", "DIR", "where emulated modules are built and kept",
             "$XDG_CACHE_HOME/gconv/emu"},
            {"--help", "", "show this help", ""},
        });
}

const char* k_details =
    "Builds each kernel's module with the host C++ compiler against a CPU emulation of the\n"
    "device ($GCONV_EMU_CXX, else the compiler gconv was built with), runs the launch sequence a\n"
    "worker would run on seeded random tensors, twice (the threads of a block in ascending and in\n"
    "descending order between barriers, so a race on shared memory shows), and verifies both\n"
    "results against the host convolution with the worker's tolerance. One line per cell:\n"
    "  PASS|FAIL|ERROR  kernel  problem  entry  max_rel_err (ascending / descending)\n"
    "ERROR: the emulation stopped (a trap, a barrier some threads never reach, a warp collective\n"
    "with lanes missing, a shared address outside the launch's shared memory, ...). Each kernel's\n"
    "cells run in a child process: a kernel that faults or hangs ends only its own cells (the\n"
    "lines before stay). Kernels that do not support a problem are skipped; wgmma kernels are\n"
    "not emulated. Slow: small problems.\n\n"
    "exit status: 0 every cell passed, 1 a cell failed or bad input, 2 bad command line.\n";

fs::path default_work_dir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "gconv/emu";
    if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache/gconv/emu";
    return fs::temp_directory_path() / "gconv-emu";
}

std::vector<KernelConfig> kernels_of(const CliArgs& cli) {
    std::vector<KernelConfig> kernels;
    for (const std::string& name : cli.get_all("--kernel"))
        kernels.push_back(parse_kernel_name(name));
    if (cli.positional().empty()) return kernels;
    const ArchSpecs& specs = default_arch_specs();
    const KernelPool pool = enumerate_pool(load_trait_config(cli.positional()[0]),
                                           specs.get(cli.get_or("--arch", "sm_90")), specs);
    FilterSet filters;
    if (auto f = cli.get("--filter")) filters.add(*f, FilterOrigin{"--filter", 0});
    for (const KernelConfig& k : apply_config_filter(pool.kernels, filters)) kernels.push_back(k);
    return kernels;
}

// The problems `c` runs on through steps the emulator runs.
std::vector<Problem> runnable(const KernelConfig& c, const std::vector<Problem>& problems) {
    std::vector<Problem> out;
    for (const Problem& p : problems) {
        try {
            const LaunchSequence seq = plan_sequence(c, p, 32, emu::k_emulated_shared_optin);
            bool wgmma = false;
            for (const LaunchStep& s : seq.steps) wgmma = wgmma || s.kernel.wgmma_maps;
            if (!wgmma) out.push_back(p);
        } catch (const std::invalid_argument&) {
        }
    }
    return out;
}

int run(int argc, char** argv) {
    CliArgs cli = make_cli();
    if (auto code = cli.parse_or_exit(argc, argv, k_details)) return *code;
    if (cli.positional().size() > 1 || (cli.positional().empty() && !cli.has("--kernel"))) {
        std::cerr << "gconv-emulate: give one CONFIG or --kernel NAME (see --help)\n";
        return 2;
    }
    if (cli.has("--problems") == cli.has("--problems-file")) {
        std::cerr << "gconv-emulate: give one of --problems and --problems-file\n";
        return 2;
    }
    const std::vector<KernelConfig> kernels = kernels_of(cli);
    ProblemSet set = cli.has("--problems")
                         ? ProblemRegistry().load(*cli.get("--problems"))
                         : ProblemRegistry::load_file(*cli.get("--problems-file"));
    if (cli.has("--limit")) {
        const auto limit = std::size_t(cli.get_int("--limit", 0, 1, 1 << 30));
        if (set.problems.size() > limit) set.problems.resize(limit);
    }
    const auto seed = static_cast<std::uint64_t>(cli.get_int("--seed", 1, 0, 1LL << 62));
    const fs::path work_dir =
        cli.has("--work-dir") ? fs::path(*cli.get("--work-dir")) : default_work_dir();
    const std::chrono::seconds timeout(cli.get_int("--timeout", 900, 1, 86400));

    int passed = 0, failed = 0, skipped = 0;
    for (const KernelConfig& k : kernels) {
        const std::string name = kernel_name(k);
        if (k.variant != set.direction) {
            std::cerr << "gconv-emulate: " << name << " is not a " << to_string(set.direction)
                      << " kernel (the direction of " << set.key << ")\n";
            return 1;
        }
        const std::vector<Problem> problems = runnable(k, set.problems);
        skipped += int(set.problems.size() - problems.size());
        if (problems.empty()) continue;
        int done = 0;
        auto on_line = [&](const std::string& line) {
            std::cout << line << "\n" << std::flush;
            if (line.rfind("PASS", 0) == 0) ++passed, ++done;
            if (line.rfind("FAIL", 0) == 0 || line.rfind("ERROR", 0) == 0) ++failed, ++done;
        };
        auto work = [&](const std::function<void(const std::string&)>& emit) {
            std::unique_ptr<emu::KernelEmulator> emulator;
            try {
                emulator = std::make_unique<emu::KernelEmulator>(k, problems, work_dir);
            } catch (const std::exception& e) {
                for (std::size_t i = 0; i < problems.size(); ++i)
                    emit("ERROR " + name + "  " + problems[i].key() +
                         " (build): " + (i == 0 ? std::string(e.what()) : "see above"));
                return;
            }
            for (const Problem& p : problems) {
                std::ostringstream line;
                try {
                    const emu::EmulatedCheck r = emulator->check(p, seed);
                    line << (r.passed() ? "PASS  " : "FAIL  ") << name << "  " << p.key() << "  "
                         << r.entry << "  " << std::setprecision(3) << r.ascending.max_rel_err
                         << " / " << r.descending.max_rel_err;
                } catch (const std::exception& e) {
                    line << "ERROR " << name << "  " << p.key() << ": " << e.what();
                }
                emit(line.str());
            }
        };
        const emu::IsolatedExit exit = emu::run_isolated(work, on_line, timeout);
        if (!exit.completed) {
            const int lost = int(problems.size()) - done;
            std::cout << "ERROR " << name << ": the emulation ended early (" << exit.why
                      << ") after " << done << " of " << problems.size() << " cells\n";
            failed += lost > 0 ? lost : 1;
        }
    }
    std::cout << passed << " passed, " << failed << " failed, " << skipped
              << " cells not emulated (unsupported or wgmma)\n";
    return failed == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "gconv-emulate: " << e.what() << "\n";
        return 1;
    }
}
