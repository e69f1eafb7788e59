#include "emu/emulated_check.h"

#include "codegen/direct_wgmma_plan.h"
#include "codegen/kernel_source.h"
#include "codegen/launch_sequence.h"
#include "emu/device/gconv_emu_pages.h"
#include "problem/host_convolution.h"
#include "util/error.h"

#include <chrono>
#include <cstring>
#include <random>

namespace gconv::emu {

namespace {

using gconv_emu::GuardedPages;

// The bytes around a tensor hold this pattern (NaN in every data type): a kernel that reads
// just outside sees it in its result, one that writes there is caught by outside_holds().
constexpr unsigned char k_outside = 0xff;

std::unique_ptr<GuardedPages> guarded(std::size_t bytes) {
    auto pages = std::make_unique<GuardedPages>(bytes, true);
    if (!pages->ok()) throw Error("no memory for an emulated tensor of " + std::to_string(bytes));
    pages->fill_all(k_outside);
    return pages;
}

ModuleEntries entries_for(const KernelConfig& config, const std::vector<Problem>& problems) {
    // Refused before the host compiler sees a kernel that exists only as wgmma instructions.
    if (is_direct_wgmma(config))
        throw Error("direct_wgmma kernels (wgmma from shared memory, sm_90a) are not emulated");
    ModuleEntries entries{false, {}};
    for (const Problem& p : problems) note_entries(config, p, entries);
    return entries;
}

} // namespace

KernelEmulator::KernelEmulator(const KernelConfig& config, const std::vector<Problem>& problems,
                               const std::filesystem::path& work_dir, std::size_t shared_optin)
    : config_(config), shared_optin_(shared_optin),
      module_(std::make_unique<EmulatedModule>(
          generate_kernel_source(config, entries_for(config, problems)), work_dir)) {}

EmulatedCheck KernelEmulator::check(const Problem& p, std::uint64_t seed) const {
    const LaunchSequence seq = plan_sequence(config_, p, 32, shared_optin_);
    const DataType dtype = config_.dtype;
    const Variant variant = config_.variant;
    std::mt19937_64 rng(seed);
    const HostTensor in = random_tensor(std::size_t(p.input_elements()), dtype, rng);
    const HostTensor wei = random_tensor(std::size_t(p.weight_elements()), dtype, rng);
    const HostTensor out = random_tensor(std::size_t(p.output_elements()), dtype, rng);
    const HostResult expected = host_convolution(p, variant, in.values, wei.values, out.values);
    std::vector<float> reference(expected.value.begin(), expected.value.end());
    const HostTensor& result_tensor = variant == Variant::Forward   ? out
                                      : variant == Variant::BwdData ? in
                                                                    : wei;

    auto d_in = guarded(in.bytes.size()), d_wei = guarded(wei.bytes.size()),
         d_out = guarded(out.bytes.size()), d_work = guarded(seq.workspace_bytes);
    GuardedPages* result = variant == Variant::Forward   ? d_out.get()
                           : variant == Variant::BwdData ? d_in.get()
                                                         : d_wei.get();
    const StepTensors tensors{d_in->data(), d_wei->data(), d_out->data(), d_work->data()};

    EmulatedCheck check;
    check.entry = main_entry_name(config_, p);
    const auto start = std::chrono::steady_clock::now();
    for (const ThreadOrder order : {ThreadOrder::Ascending, ThreadOrder::Descending}) {
        std::memcpy(d_in->data(), in.bytes.data(), in.bytes.size());
        std::memcpy(d_wei->data(), wei.bytes.data(), wei.bytes.size());
        std::memcpy(d_out->data(), out.bytes.data(), out.bytes.size());
        // Poison: NaN in every data type, so an element nobody writes fails verification.
        std::memset(result->data(), 0xff, result_tensor.bytes.size());
        // A workspace kept zero is zeroed before the first run only: the second starts from
        // what the first left.
        if (!seq.workspace_kept_zero)
            std::memset(d_work->data(), 0xff, seq.workspace_bytes);
        else if (order == ThreadOrder::Ascending)
            std::memset(d_work->data(), 0, seq.workspace_bytes);
        for (const LaunchStep& step : seq.steps) {
            if (step.kind == LaunchStep::Kind::Memset) {
                void* base = step.memset.buffer == LaunchBuffer::Input    ? d_in->data()
                             : step.memset.buffer == LaunchBuffer::Weight ? d_wei->data()
                             : step.memset.buffer == LaunchBuffer::Output ? d_out->data()
                                                                          : d_work->data();
                std::memset(base, 0, step.memset.bytes);
                continue;
            }
            const KernelStep& k = step.kernel;
            if (k.wgmma_maps)
                throw Error(k.entry + ": wgmma kernels (tensor maps, mbarriers) are not emulated");
            EmulatedLaunch launch;
            launch.entry = k.entry;
            launch.params = step_params(seq, k, tensors);
            launch.workspace = d_work->data();
            launch.with_workspace = k.workspace_arg;
            const StepGrid grid = step_grid(k, 4);
            launch.grid[0] = grid.x, launch.grid[1] = grid.y, launch.grid[2] = grid.z;
            launch.threads = k.block_threads;
            launch.shared_bytes = k.shared_bytes;
            launch.order = order;
            module_->launch(launch);
        }
        const std::pair<const GuardedPages*, std::size_t> all[] = {
            {d_in.get(), in.bytes.size()},
            {d_wei.get(), wei.bytes.size()},
            {d_out.get(), out.bytes.size()},
            {d_work.get(), seq.workspace_bytes}};
        const char* names[] = {"input", "weight", "output", "workspace"};
        for (int t = 0; t < 4; ++t)
            if (!all[t].first->outside_holds(k_outside, all[t].second))
                throw Error(check.entry + ": wrote outside the " + names[t] + " tensor");
        if (seq.workspace_kept_zero) {
            const auto* bytes = static_cast<const unsigned char*>(d_work->data());
            for (std::size_t b = 0; b < seq.workspace_bytes; ++b)
                if (bytes[b] != 0)
                    throw Error(check.entry + ": left its workspace non-zero at byte " +
                                std::to_string(b) + " (a workspace kept zero)");
        }
        (order == ThreadOrder::Ascending ? check.ascending : check.descending) =
            verify_output(result->data(), reference.data(), reference.size(), dtype);
    }
    check.run_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return check;
}

} // namespace gconv::emu
