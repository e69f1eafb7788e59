#pragma once
// gconv-bench's GPUs. Without --devices: device 0 of what is visible, as gconv-bench always did
// (gconv-worker --query). With --devices LIST|all: the devices a worker lists
// (gconv-worker --list-devices), checked (sweep/device_selection.h), one benchmark slot each,
// whose workers see only their GPU through the platform's visibility variable.
#include "sweep/bench_runner.h"
#include "sweep/device_selection.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gconv {

struct SweepDevices {
    std::vector<SelectedDevice> chosen;
    std::string visibility_env; // empty without --devices: workers inherit the environment
    bool listed = false;        // chosen through --devices

    // The facts of the first device (the sidecar's "device", the arch of --arch auto).
    const nlohmann::json& first() const { return chosen.front().facts; }
    // NAME=VALUE giving a worker only device `i` of `chosen`; empty without --devices.
    std::vector<std::string> environment(size_t i) const;
    // The `--device N` a worker is started with: 0 when visibility already picked its GPU.
    int worker_device(size_t i) const { return listed ? 0 : chosen[i].index; }
};

// Device 0, as gconv-worker --query --device 0 describes it; throws gconv::Error when the
// worker cannot say.
SweepDevices default_device(const std::string& worker);

// The devices `wanted` names (nullopt: all). Throws DeviceChoiceError for a choice the host
// cannot give (a bad command line), gconv::Error when the worker cannot list them.
SweepDevices listed_devices(const std::string& worker,
                            const std::optional<std::vector<int>>& wanted, bool allow_mixed);

// One slot per chosen device. One device writes its workers' stderr to OUTPUT.worker.log, as
// always; several write OUTPUT.gpu<I>.worker.log each (a crash row quotes its own worker).
std::vector<BenchSlot> benchmark_slots(const SweepDevices& devices, const std::string& output);

// The sidecar's "devices": per device its index, how its workers saw it, its facts (name,
// arch, pci_bus_id, driver, ...), its log and, with a summary, what it did.
nlohmann::json devices_provenance(const SweepDevices& devices,
                                  const std::vector<BenchSlot>& gpu_slots,
                                  const BenchSummary* summary = nullptr);

// The rows' device for cells no GPU ran: the model, or the models joined with " + ".
std::string devices_label(const SweepDevices& devices);

} // namespace gconv
