#include "util/cli_args.h"

#include "util/error.h"

#include <charconv>
#include <cstdlib>
#include <iostream>

namespace gconv {

CliArgs::CliArgs(std::string program, std::string synopsis, std::vector<CliOption> options)
    : program_(std::move(program)), synopsis_(std::move(synopsis)), options_(std::move(options)) {}

const CliOption* CliArgs::find(const std::string& name) const {
    for (const auto& o : options_)
        if (o.name == name) return &o;
    return nullptr;
}

void CliArgs::parse(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg.size() > 2 && arg.rfind("--", 0) == 0) {
            std::string name = arg, value;
            bool inline_value = false;
            if (auto eq = arg.find('='); eq != std::string::npos) {
                name = arg.substr(0, eq);
                value = arg.substr(eq + 1);
                inline_value = true;
            }
            const CliOption* o = find(name);
            if (!o)
                throw Error(program_ + ": unknown option " + name + " (see " + program_ +
                            " --help)");
            if (values_.count(name) && !o->repeatable)
                throw Error(program_ + ": " + name + " given twice");
            if (o->value.empty()) {
                if (inline_value) throw Error(program_ + ": " + name + " takes no value");
                values_[name] = "1";
                continue;
            }
            if (!inline_value) {
                if (i + 1 >= argc)
                    throw Error(program_ + ": " + name + " needs a value (" + o->value + ")");
                value = argv[++i];
            }
            values_[name] = value;
            if (o->repeatable) repeated_[name].push_back(value);
        } else if (arg == "-h") {
            values_["--help"] = "1";
        } else {
            positional_.push_back(arg);
        }
    }
}

std::optional<int> CliArgs::parse_or_exit(int argc, char** argv, const std::string& details) {
    try {
        parse(argc, argv);
    } catch (const Error& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
    if (has("--help")) {
        std::cout << help_text(details);
        return 0;
    }
    return std::nullopt;
}

std::vector<std::string> CliArgs::get_all(const std::string& name) const {
    auto it = repeated_.find(name);
    return it == repeated_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<std::string> CliArgs::get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string CliArgs::get_or(const std::string& name, const std::string& fallback) const {
    return get(name).value_or(fallback);
}

long long CliArgs::get_int(const std::string& name, long long fallback, long long lo,
                           long long hi) const {
    auto v = get(name);
    if (!v) return fallback;
    long long out = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || ptr != v->data() + v->size() || out < lo || out > hi)
        throw Error(program_ + ": " + name + " takes an integer from " + std::to_string(lo) +
                    " to " + std::to_string(hi) + ", got '" + *v + "'");
    return out;
}

double CliArgs::get_double(const std::string& name, double fallback, double lo, double hi) const {
    auto v = get(name);
    if (!v) return fallback;
    char* end = nullptr;
    double out = std::strtod(v->c_str(), &end);
    if (v->empty() || *end != '\0' || !(out >= lo && out <= hi))
        throw Error(program_ + ": " + name + " takes a number from " + std::to_string(lo) + " to " +
                    std::to_string(hi) + ", got '" + *v + "'");
    return out;
}

std::string CliArgs::help_text(const std::string& details) const {
    std::string out = "usage: " + program_ + " " + synopsis_ + "\n\noptions:\n";
    for (const auto& o : options_) {
        std::string left = "  " + o.name + (o.value.empty() ? "" : " " + o.value);
        if (left.size() < 28)
            left.resize(28, ' ');
        else
            left += "\n" + std::string(28, ' ');
        out += left + o.help + (o.fallback.empty() ? "" : " (default: " + o.fallback + ")") + "\n";
    }
    if (!details.empty()) out += "\n" + details;
    return out;
}

} // namespace gconv
