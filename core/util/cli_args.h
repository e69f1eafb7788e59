#pragma once
// A small command-line reader shared by the gconv tools: declared options only, each with
// its help text, so --help and the error for an unknown flag come from one table.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gconv {

struct CliOption {
    std::string name;  // "--arch"
    std::string value; // "ARCH" (empty for a flag)
    std::string help;
    std::string fallback;    // shown as the default in --help
    bool repeatable = false; // may be given more than once (get_all); else twice is an error
};

class CliArgs {
public:
    CliArgs(std::string program, std::string synopsis, std::vector<CliOption> options);

    // Throws gconv::Error for unknown options, missing values and options repeated that are not
    // repeatable.
    void parse(int argc, char** argv);
    // parse(), then the two early exits every tool shares: a bad command line (message on
    // stderr, 2) and --help (help on stdout, 0). nullopt: go on.
    std::optional<int> parse_or_exit(int argc, char** argv, const std::string& details);

    bool has(const std::string& name) const { return values_.count(name) != 0; }
    std::optional<std::string> get(const std::string& name) const; // a repeatable's last value
    // Every value of a repeatable option in command-line order (empty when not given).
    std::vector<std::string> get_all(const std::string& name) const;
    std::string get_or(const std::string& name, const std::string& fallback) const;
    // Throws gconv::Error naming the option when the value is not an integer in [lo, hi].
    long long get_int(const std::string& name, long long fallback, long long lo,
                      long long hi) const;
    double get_double(const std::string& name, double fallback, double lo, double hi) const;
    const std::vector<std::string>& positional() const { return positional_; }

    std::string help_text(const std::string& details = "") const;
    const std::string& program() const { return program_; }

private:
    const CliOption* find(const std::string& name) const;

    std::string program_;
    std::string synopsis_;
    std::vector<CliOption> options_;
    std::map<std::string, std::string> values_;
    std::map<std::string, std::vector<std::string>> repeated_;
    std::vector<std::string> positional_;
};

} // namespace gconv
