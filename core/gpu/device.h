#pragma once
// What the engine needs to know about a GPU: it picks the compile target for `--arch auto`
// and the limits that filter kernel configurations.
#include <cstddef>
#include <string>

namespace gconv::gpu {

struct DeviceInfo {
    int index = 0;
    std::string name;
    std::string arch; // "sm_90" on NVIDIA, "gfx942" on AMD (gcnArchName without features)
    int sm_count = 0; // multiprocessors (NVIDIA) / compute units (AMD)
    std::size_t shared_per_block = 0;       // default limit of one block
    std::size_t shared_per_block_optin = 0; // the most a kernel may opt in to
    std::size_t shared_per_sm = 0;
    int registers_per_block = 0;
    std::size_t l2_bytes = 0;
    int warp_size = 0;
    int max_threads_per_block = 0;
    int clock_khz = 0;
    int memory_clock_khz = 0;
    std::size_t memory_bytes = 0;
    int driver_version = 0;
    int runtime_version = 0;
    std::string pci_bus_id; // "0000:1b:00.0": which physical GPU, whatever the visibility
};

// The platform the runtime was built for: "nvidia" or "amd", and the environment variable
// that restricts which GPUs a process sees (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES).
const char* platform_name();
const char* visibility_variable();

// The kernel driver's version ("580.95.05" from /proc/driver/nvidia/version, or
// /sys/module/amdgpu/version); empty when it cannot be read.
std::string kernel_driver_version();

// Number of visible devices; 0 (not an exception) when the runtime finds no device or no
// driver, so that callers can skip GPU work cleanly.
int device_count();

// Throws GpuError when the index is out of range or the runtime fails.
DeviceInfo query(int index);

// "sm_86" from compute capability 8.6, "sm_90a" from 9.0 (wgmma); exposed for tests.
std::string nvidia_arch_name(int major, int minor);
// "gfx90a" from "gfx90a:sramecc+:xnack-".
std::string amd_arch_name(const std::string& gcn_arch_name);

} // namespace gconv::gpu
