// gconv-instances: the kernel pool of a trait config on an architecture, without compiling.
#include "config/arch_spec.h"
#include "config/config_filter.h"
#include "config/config_json.h"
#include "config/enumerate.h"
#include "config/kernel_name.h"
#include "config/trait_config.h"
#include "filter/filter_error.h"
#include "util/cli_args.h"
#include "util/error.h"

#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>

namespace {

using namespace gconv;

CliArgs make_cli() {
    return CliArgs(
        "gconv-instances",
        "CONFIG --arch ARCH [--count-only | --list | --export-json FILE] [--filter EXPR] "
        "[--explain]",
        {
            {"--arch", "ARCH",
             "target architecture from configs/arch_specs.json (sm_90, gfx942, ...)", ""},
            {"--count-only", "", "print only the number of legal kernels", ""},
            {"--list", "", "print every legal kernel as '[i] name'", ""},
            {"--export-json", "FILE", "write metadata plus every field of every kernel as JSON",
             ""},
            {"--filter", "EXPR",
             "keep kernels for which EXPR holds, e.g. \"c.tile_n >= 128 and c.pipeline == "
             "'compv5'\"",
             ""},
            {"--filter-file", "FILE", "one filter expression per line, AND-ed (and with --filter)",
             ""},
            {"--explain", "", "list the culled configurations with the rule and reason for each",
             ""},
            {"--arch-specs", "FILE", "architecture rules file", "configs/arch_specs.json"},
            {"--help", "", "show this help", ""},
        });
}

const char* k_details =
    "CONFIG is a trait config: {\"variant\": ..., \"trait_config\": {\"<field>\": {\"values\": "
    "[...]}}}\n"
    "(docs/trait-config.md lists every key and its default). The pool is the cartesian product of\n"
    "the allowed values, minus the configurations the architecture's rules cull; --explain says "
    "why\n"
    "each culled one was culled. Filters use the language of docs/filter-language.md over `c`: "
    "every\n"
    "configuration field and c.name.\n\n"
    "exit status: 0 success, 1 bad input (config, filter, architecture), 2 bad command line.\n";

std::string now_iso8601() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

std::map<std::string, int> cull_histogram(const KernelPool& pool) {
    std::map<std::string, int> counts;
    for (const auto& c : pool.culled)
        for (const auto& r : c.reasons) ++counts[std::string(rule_id(r.rule))];
    return counts;
}

void export_json(const std::string& path, const std::string& config_path, const TraitConfig& traits,
                 const KernelPool& pool, const std::vector<KernelConfig>& kernels,
                 const std::string& filter_text) {
    nlohmann::json doc;
    doc["metadata"] = {
        {"tool", "gconv-instances"},
        {"version", GCONV_VERSION},
        {"config", config_path},
        {"description", traits.description},
        {"variant", std::string(to_string(traits.variant))},
        {"arch", pool.arch},
        {"candidates", pool.candidates},
        {"legal", pool.kernels.size()},
        {"culled", pool.culled.size()},
        {"filter", filter_text},
        {"count", kernels.size()},
        {"created", now_iso8601()},
    };
    auto& list = doc["kernels"] = nlohmann::json::array();
    for (const auto& k : kernels) {
        nlohmann::json entry = {{"name", kernel_name(k)}};
        entry.update(config_to_json(k));
        list.push_back(std::move(entry));
    }
    std::ofstream out(path);
    if (!out) throw Error("cannot write " + path);
    out << doc.dump(1) << "\n";
    if (!out.flush()) throw Error("failed writing " + path);
}

int run(int argc, char** argv) {
    CliArgs cli = make_cli();
    if (auto code = cli.parse_or_exit(argc, argv, k_details)) return *code;
    if (cli.positional().size() != 1) {
        std::cerr << "gconv-instances: give exactly one CONFIG file (see --help)\n";
        return 2;
    }
    const int modes = cli.has("--count-only") + cli.has("--list") + cli.has("--export-json");
    if (modes > 1) {
        std::cerr << "gconv-instances: --count-only, --list and --export-json exclude each other\n";
        return 2;
    }
    const ArchSpecs specs =
        cli.has("--arch-specs") ? load_arch_specs(*cli.get("--arch-specs")) : default_arch_specs();
    if (!cli.has("--arch")) {
        std::string known;
        for (const auto& n : specs.names()) known += " " + n;
        std::cerr << "gconv-instances: --arch is required (known:" << known << ")\n";
        return 2;
    }
    const ArchSpec& arch = specs.get(*cli.get("--arch"));
    const std::string config_path = cli.positional()[0];
    const TraitConfig traits = load_trait_config(config_path);

    FilterSet filters;
    if (auto f = cli.get("--filter")) filters.add(*f, FilterOrigin{"--filter", 0});
    if (auto f = cli.get("--filter-file")) filters.add_file(*f);

    const KernelPool pool = enumerate_pool(traits, arch, specs);
    const std::vector<KernelConfig> kernels = apply_config_filter(pool.kernels, filters);

    if (cli.has("--count-only")) {
        std::cout << kernels.size() << "\n";
    } else if (cli.has("--list")) {
        for (std::size_t i = 0; i < kernels.size(); ++i)
            std::cout << "[" << i << "] " << kernel_name(kernels[i]) << "\n";
    } else if (auto path = cli.get("--export-json")) {
        export_json(*path, config_path, traits, pool, kernels, cli.get_or("--filter", ""));
        std::cout << "wrote " << kernels.size() << " kernels to " << *path << "\n";
    } else if (!cli.has("--explain")) {
        std::cout << config_path << " (" << to_string(traits.variant) << ") on " << arch.name
                  << ": " << pool.candidates << " candidates, " << pool.kernels.size() << " legal, "
                  << pool.culled.size() << " culled";
        if (!filters.empty()) std::cout << ", " << kernels.size() << " pass the filter";
        std::cout << "\n";
        for (const auto& [rule, count] : cull_histogram(pool))
            std::cout << "  culled by " << rule << ": " << count << "\n";
    }
    if (cli.has("--explain")) {
        for (const auto& c : pool.culled) {
            std::cout << kernel_name(c.config) << "\n";
            for (const auto& r : c.reasons)
                std::cout << "    " << rule_id(r.rule) << ": " << r.message << "\n";
        }
        std::cout << pool.culled.size() << " culled of " << pool.candidates << " candidates\n";
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const gconv::FilterError& e) {
        std::cerr << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "gconv-instances: " << e.what() << "\n";
        return 1;
    }
}
