#include "ui/kernels/trait_json_format.h"

namespace gconv::ui {
namespace {

using nlohmann::ordered_json;

constexpr std::size_t k_line_limit = 100;

std::string entryText(const std::string& indent, const std::string& key,
                      const ordered_json& entry) {
    const std::string head = indent + ordered_json(key).dump() + ": ";
    const std::string inline_text = head + compactJson(entry);
    if (inline_text.size() <= k_line_limit || !entry.is_object() || !entry.contains("values") ||
        !entry.at("values").is_array())
        return inline_text;
    // {"values": [\n  v,\n  v\n]} with any other members (description) inline before it.
    std::string text = head + "{";
    bool first = true;
    for (const auto& [member, value] : entry.items()) {
        if (!first) text += ", ";
        first = false;
        text += ordered_json(member).dump() + ": ";
        if (member != "values") {
            text += compactJson(value);
            continue;
        }
        text += "[";
        for (std::size_t i = 0; i < value.size(); ++i)
            text += (i ? ",\n" : "\n") + indent + "  " + compactJson(value[i]);
        text += "\n" + indent + "]";
    }
    return text + "}";
}

} // namespace

std::string compactJson(const ordered_json& value) {
    if (value.is_array()) {
        std::string text = "[";
        for (std::size_t i = 0; i < value.size(); ++i)
            text += (i ? ", " : "") + compactJson(value[i]);
        return text + "]";
    }
    if (value.is_object()) {
        std::string text = "{";
        bool first = true;
        for (const auto& [key, member] : value.items()) {
            text += (first ? "" : ", ") + ordered_json(key).dump() + ": " + compactJson(member);
            first = false;
        }
        return text + "}";
    }
    return value.dump();
}

std::string formatTraitJson(const ordered_json& document) {
    if (!document.is_object()) return document.dump(2) + "\n";
    std::string text = "{";
    bool first = true;
    for (const auto& [key, value] : document.items()) {
        text += first ? "\n" : ",\n";
        first = false;
        if (key == "trait_config" && value.is_object() && !value.empty()) {
            text += "  \"trait_config\": {";
            bool firstTrait = true;
            for (const auto& [trait, entry] : value.items()) {
                text += firstTrait ? "\n" : ",\n";
                firstTrait = false;
                text += entryText("    ", trait, entry);
            }
            text += "\n  }";
        } else {
            text += "  " + ordered_json(key).dump() + ": " + compactJson(value);
        }
    }
    return text + "\n}\n";
}

} // namespace gconv::ui
