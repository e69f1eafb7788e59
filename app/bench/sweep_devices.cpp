#include "sweep_devices.h"

#include "util/error.h"
#include "worker_query.h"

#include <algorithm>
#include <cstdlib>

namespace gconv {

std::vector<std::string> SweepDevices::environment(size_t i) const {
    if (!listed) return {};
    return {visibility_env + "=" + chosen[i].visible_as};
}

SweepDevices default_device(const std::string& worker) {
    SweepDevices d;
    SelectedDevice only;
    only.index = 0;
    only.facts = ask_worker(worker, {"--query", "--device", "0"});
    d.chosen.push_back(std::move(only));
    return d;
}

SweepDevices listed_devices(const std::string& worker,
                            const std::optional<std::vector<int>>& wanted, bool allow_mixed) {
    const DeviceList list = device_list_from_json(ask_worker(worker, {"--list-devices"}));
    SweepDevices d;
    d.listed = true;
    d.visibility_env = list.visibility_env;
    d.chosen = select_devices(list, wanted, allow_mixed, std::getenv(list.visibility_env.c_str()));
    return d;
}

std::vector<BenchSlot> benchmark_slots(const SweepDevices& devices, const std::string& output) {
    std::vector<BenchSlot> slots;
    for (size_t i = 0; i < devices.chosen.size(); ++i) {
        const SelectedDevice& d = devices.chosen[i];
        BenchSlot slot;
        slot.device_index = std::to_string(d.index);
        slot.device = d.facts.value("name", "");
        slot.environment = devices.environment(i);
        slot.worker_log = devices.chosen.size() == 1
                              ? output + ".worker.log"
                              : output + ".gpu" + slot.device_index + ".worker.log";
        slots.push_back(std::move(slot));
    }
    return slots;
}

nlohmann::json devices_provenance(const SweepDevices& devices,
                                  const std::vector<BenchSlot>& gpu_slots,
                                  const BenchSummary* summary) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < devices.chosen.size(); ++i) {
        const SelectedDevice& d = devices.chosen[i];
        nlohmann::json entry = d.facts.is_object() ? d.facts : nlohmann::json::object();
        entry["index"] = d.index;
        entry["visible_as"] =
            devices.listed ? devices.visibility_env + "=" + d.visible_as : std::string();
        if (i < gpu_slots.size()) entry["worker_log"] = gpu_slots[i].worker_log.string();
        if (summary && i < summary->gpus.size()) {
            const BenchSlotSummary& s = summary->gpus[i];
            entry["batches"] = s.batches;
            entry["rows_written"] = s.rows_written;
            entry["cells_measured"] = s.cells_measured;
            entry["workers_started"] = s.workers_started;
            entry["busy_s"] = s.busy_s;
        }
        out.push_back(std::move(entry));
    }
    return out;
}

std::string devices_label(const SweepDevices& devices) {
    std::vector<std::string> models;
    for (const auto& d : devices.chosen) {
        const std::string name = d.facts.is_object() ? d.facts.value("name", "") : "";
        if (!name.empty() && std::find(models.begin(), models.end(), name) == models.end())
            models.push_back(name);
    }
    std::string label;
    for (const auto& m : models) label += (label.empty() ? "" : " + ") + m;
    return label;
}

} // namespace gconv
