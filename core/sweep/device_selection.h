#pragma once
// Which GPUs a sweep runs on (gconv-bench --devices): the list's syntax, the devices that a
// worker reported (gconv-worker --list-devices, so gconv-bench never initialises a GPU runtime
// itself) and the checks between them. Each chosen GPU gets its workers through the platform's
// visibility variable (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES), under which it is device 0.
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gconv {

// A --devices choice that the command line or the host cannot give (gconv-bench: exit 2).
struct DeviceChoiceError : Error {
    using Error::Error;
};

// The answer of gconv-worker --list-devices.
struct DeviceList {
    std::string platform;       // "nvidia" or "amd"
    std::string visibility_env; // the variable that picks a worker's GPU
    // Each device's facts as gconv-worker --query gives them (name, arch, pci_bus_id, ...);
    // a device's index is its position.
    std::vector<nlohmann::json> devices;
};

// Throws gconv::Error naming the field that is missing or of the wrong type.
DeviceList device_list_from_json(const nlohmann::json& answer);

// "all" gives nullopt (every visible device); "0,2" gives {0, 2}. Throws DeviceChoiceError
// ("--devices: ...") for an empty list or entry, an entry that is not a whole number >= 0, or an
// index listed twice.
std::optional<std::vector<int>> parse_device_indices(const std::string& text);

struct SelectedDevice {
    int index = 0;          // as named to --devices
    std::string visible_as; // the visibility variable's value for its workers
    nlohmann::json facts;   // from the device list
};

// The devices `wanted` names (nullopt: all), in that order. `inherited_visibility` is the
// visibility variable's value in gconv-bench's own environment (null when unset): index i then
// means its i-th entry, which is what a worker is given. Throws DeviceChoiceError
// ("--devices: ...") when an index does not exist, or the devices differ in architecture
// (always refused: the kernels are compiled for one) or in model (refused unless
// `allow_mixed`); gconv::Error when no device is visible at all.
std::vector<SelectedDevice> select_devices(const DeviceList& list,
                                           const std::optional<std::vector<int>>& wanted,
                                           bool allow_mixed, const char* inherited_visibility);

} // namespace gconv
