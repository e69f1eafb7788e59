#include "sweep/device_selection.h"

#include <set>

namespace gconv {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> parts;
    size_t from = 0;
    for (;;) {
        const size_t comma = text.find(',', from);
        parts.push_back(text.substr(from, comma - from));
        if (comma == std::string::npos) return parts;
        from = comma + 1;
    }
}

std::string trimmed(const std::string& text) {
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string text_of(const nlohmann::json& facts, const char* key) {
    const auto found = facts.find(key);
    return found != facts.end() && found->is_string() ? found->get<std::string>() : "?";
}

// "0: NVIDIA H200, 1: NVIDIA H100" for the devices of `list` named by `indices`.
std::string listing(const DeviceList& list, const std::vector<int>& indices, const char* key) {
    std::string out;
    for (int i : indices)
        out += (out.empty() ? "" : ", ") + std::to_string(i) + ": " +
               text_of(list.devices[size_t(i)], key);
    return out;
}

} // namespace

DeviceList device_list_from_json(const nlohmann::json& answer) {
    const std::string what = "gconv-worker --list-devices answered ";
    if (!answer.is_object()) throw Error(what + "no JSON object");
    DeviceList list;
    for (const char* key : {"platform", "visibility_env"}) {
        const auto found = answer.find(key);
        if (found == answer.end() || !found->is_string() || found->get<std::string>().empty())
            throw Error(what + "no \"" + key + "\" (a non-empty string)");
    }
    list.platform = answer["platform"].get<std::string>();
    list.visibility_env = answer["visibility_env"].get<std::string>();
    const auto devices = answer.find("devices");
    if (devices == answer.end() || !devices->is_array()) throw Error(what + "no \"devices\" array");
    for (size_t i = 0; i < devices->size(); ++i) {
        const nlohmann::json& d = (*devices)[i];
        for (const char* key : {"name", "arch"})
            if (!d.is_object() || !d.contains(key) || !d[key].is_string())
                throw Error(what + "a device without \"" + key + "\" (devices[" +
                            std::to_string(i) + "])");
        list.devices.push_back(d);
    }
    return list;
}

std::optional<std::vector<int>> parse_device_indices(const std::string& text) {
    if (trimmed(text) == "all") return std::nullopt;
    if (trimmed(text).empty())
        throw DeviceChoiceError("--devices: no device given (a list such as 0,1, or all)");
    std::vector<int> indices;
    std::set<int> seen;
    for (const std::string& raw : split_commas(text)) {
        const std::string entry = trimmed(raw);
        if (entry.empty())
            throw DeviceChoiceError(
                "--devices: an empty entry in '" + text +
                "' (a comma-separated list of device indices such as 0,1, or all)");
        if (entry.find_first_not_of("0123456789") != std::string::npos || entry.size() > 6)
            throw DeviceChoiceError("--devices: '" + entry + "' in '" + text +
                                    "' is not a device index (a whole number >= 0)");
        const int index = std::stoi(entry);
        if (!seen.insert(index).second)
            throw DeviceChoiceError("--devices: device " + entry + " is listed twice in '" + text +
                                    "'");
        indices.push_back(index);
    }
    return indices;
}

std::vector<SelectedDevice> select_devices(const DeviceList& list,
                                           const std::optional<std::vector<int>>& wanted,
                                           bool allow_mixed, const char* inherited_visibility) {
    const std::string visibility =
        list.visibility_env + "=" + (inherited_visibility ? inherited_visibility : "(unset)");
    if (list.devices.empty()) throw Error("--devices: the worker sees no GPU (" + visibility + ")");
    std::vector<int> all;
    for (size_t i = 0; i < list.devices.size(); ++i) all.push_back(int(i));
    const std::vector<int> indices = wanted ? *wanted : all;
    for (int i : indices)
        if (i < 0 || size_t(i) >= list.devices.size())
            throw DeviceChoiceError("--devices: there is no device " + std::to_string(i) + ": " +
                                    std::to_string(list.devices.size()) + " visible (" +
                                    listing(list, all, "name") + "; " + visibility + ")");

    std::set<std::string> arches, models;
    for (int i : indices) {
        arches.insert(text_of(list.devices[size_t(i)], "arch"));
        models.insert(text_of(list.devices[size_t(i)], "name"));
    }
    if (arches.size() > 1)
        throw DeviceChoiceError("--devices: the GPUs have different architectures (" +
                                listing(list, indices, "arch") +
                                "); a sweep's kernels are compiled for one, so run one sweep per "
                                "architecture");
    if (models.size() > 1 && !allow_mixed)
        throw DeviceChoiceError(
            "--devices: the GPUs are of different models (" + listing(list, indices, "name") +
            "), whose timings do not compare; pick GPUs of one model, or pass "
            "--allow-mixed to run on them anyway (each row names its GPU in the device "
            "and device_index columns)");

    std::vector<std::string> inherited;
    if (inherited_visibility && *inherited_visibility)
        for (const std::string& entry : split_commas(inherited_visibility))
            inherited.push_back(trimmed(entry));
    std::vector<SelectedDevice> selected;
    for (int i : indices) {
        SelectedDevice d;
        d.index = i;
        d.facts = list.devices[size_t(i)];
        if (inherited.empty()) {
            d.visible_as = std::to_string(i);
        } else if (size_t(i) < inherited.size()) {
            d.visible_as = inherited[size_t(i)];
        } else {
            throw Error("--devices: device " + std::to_string(i) + " has no entry in " +
                        visibility);
        }
        selected.push_back(std::move(d));
    }
    return selected;
}

} // namespace gconv
