#include "sweep/worker_protocol.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace gconv {

const std::vector<std::string>& baseline_providers() {
    static const std::vector<std::string> names{"cudnn", "miopen"};
    return names;
}

bool is_baseline_choice(const std::string& name) {
    const auto& names = baseline_providers();
    return name == "none" || std::find(names.begin(), names.end(), name) != names.end();
}
namespace {

using nlohmann::json;

std::string type_name(const json& value) {
    return value.type_name();
}

const json& require(const json& object, const char* key, const std::string& path) {
    auto found = object.find(key);
    if (found == object.end()) throw Error(path + ": missing \"" + key + "\"");
    return *found;
}

void reject_unknown(const json& object, std::initializer_list<const char*> allowed,
                    const std::string& path) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        bool known = false;
        for (const char* key : allowed) known |= it.key() == key;
        if (!known) {
            std::string list;
            for (const char* key : allowed) list += (list.empty() ? "" : ", ") + std::string(key);
            throw Error(path + ": unknown key \"" + it.key() + "\" (allowed: " + list + ")");
        }
    }
}

void require_object(const json& value, const std::string& path) {
    if (!value.is_object()) throw Error(path + ": expected an object, got " + type_name(value));
}

int64_t get_integer(const json& object, const char* key, const std::string& path) {
    const json& value = require(object, key, path);
    if (!value.is_number_integer())
        throw Error(path + "." + key + ": expected an integer, got " + type_name(value) + " " +
                    value.dump());
    return value.get<int64_t>();
}

std::string get_string(const json& object, const char* key, const std::string& path) {
    const json& value = require(object, key, path);
    if (!value.is_string())
        throw Error(path + "." + key + ": expected a string, got " + type_name(value));
    return value.get<std::string>();
}

bool get_bool(const json& object, const char* key, const std::string& path) {
    const json& value = require(object, key, path);
    if (!value.is_boolean())
        throw Error(path + "." + key + ": expected true or false, got " + type_name(value));
    return value.get<bool>();
}

const json& get_array(const json& object, const char* key, const std::string& path) {
    const json& value = require(object, key, path);
    if (!value.is_array())
        throw Error(path + "." + key + ": expected an array, got " + type_name(value));
    return value;
}

void put_number(json& object, const char* key, double value) {
    if (!std::isnan(value)) object[key] = value;
}

// The "kernels" array of a request or a preload; ids must not repeat.
std::vector<WorkerKernel> kernels_from_json(const json& kernels, const std::string& root) {
    std::vector<WorkerKernel> out;
    std::set<int64_t> ids;
    for (size_t i = 0; i < kernels.size(); ++i) {
        const std::string path = root + "[" + std::to_string(i) + "]";
        require_object(kernels[i], path);
        reject_unknown(kernels[i], {"id", "name", "code_object", "entry", "config"}, path);
        WorkerKernel k;
        k.id = get_integer(kernels[i], "id", path);
        k.name = get_string(kernels[i], "name", path);
        k.code_object = get_string(kernels[i], "code_object", path);
        k.entry = get_string(kernels[i], "entry", path);
        k.config = require(kernels[i], "config", path);
        require_object(k.config, path + ".config");
        if (!ids.insert(k.id).second)
            throw Error(path + ".id: kernel id " + std::to_string(k.id) + " is repeated");
        out.push_back(std::move(k));
    }
    return out;
}

json kernels_to_json(const std::vector<WorkerKernel>& kernels) {
    json out = json::array();
    for (const auto& k : kernels)
        out.push_back({{"id", k.id},
                       {"name", k.name},
                       {"code_object", k.code_object},
                       {"entry", k.entry},
                       {"config", k.config}});
    return out;
}

int checked_protocol(const json& document, const std::string& root) {
    const int protocol = static_cast<int>(get_integer(document, "protocol", root));
    if (protocol != k_worker_protocol_version)
        throw Error(root + ".protocol: version " + std::to_string(protocol) +
                    " is not supported (this build speaks " +
                    std::to_string(k_worker_protocol_version) + ")");
    return protocol;
}

} // namespace

json to_json(const WorkerRequest& request) {
    const json kernels = kernels_to_json(request.kernels);
    json problems = json::array();
    for (const auto& p : request.problems)
        problems.push_back({{"id", p.id}, {"problem", p.problem}});
    json cells = json::array();
    for (const auto& c : request.cells)
        cells.push_back({{"cell", c.cell}, {"kernel", c.kernel}, {"problem", c.problem}});
    return {{"protocol", request.protocol}, {"variant", request.variant},
            {"dtype", request.dtype},       {"warmup", request.warmup},
            {"repeat", request.repeat},     {"flush_l2", request.flush_l2},
            {"seed", request.seed},         {"kernels", kernels},
            {"problems", problems},         {"cells", cells},
            {"baseline", request.baseline}, {"launch_hold", request.launch_hold}};
}

WorkerRequest worker_request_from_json(const json& document) {
    const std::string root = "request";
    require_object(document, root);
    reject_unknown(document,
                   {"protocol", "variant", "dtype", "warmup", "repeat", "flush_l2", "seed",
                    "kernels", "problems", "cells", "baseline", "launch_hold"},
                   root);
    WorkerRequest request;
    request.protocol = checked_protocol(document, root);
    request.variant = get_string(document, "variant", root);
    request.dtype = get_string(document, "dtype", root);
    request.warmup = static_cast<int>(get_integer(document, "warmup", root));
    request.repeat = static_cast<int>(get_integer(document, "repeat", root));
    if (request.warmup < 0) throw Error(root + ".warmup: must be >= 0");
    if (request.repeat < 1) throw Error(root + ".repeat: must be >= 1");
    request.flush_l2 = get_bool(document, "flush_l2", root);
    if (document.contains("launch_hold"))
        request.launch_hold = get_bool(document, "launch_hold", root);
    const json& seed = require(document, "seed", root);
    if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<int64_t>() >= 0))
        throw Error(root + ".seed: expected a non-negative integer, got " + seed.dump());
    request.seed = seed.get<uint64_t>();
    if (document.contains("baseline")) {
        request.baseline = get_string(document, "baseline", root);
        if (!is_baseline_choice(request.baseline))
            throw Error(root + ".baseline: unknown provider \"" + request.baseline +
                        "\" (allowed: none, cudnn, miopen)");
    }

    std::set<int64_t> kernel_ids, problem_ids, cell_ids;
    request.kernels = kernels_from_json(get_array(document, "kernels", root), root + ".kernels");
    for (const WorkerKernel& k : request.kernels) kernel_ids.insert(k.id);
    const json& problems = get_array(document, "problems", root);
    for (size_t i = 0; i < problems.size(); ++i) {
        const std::string path = root + ".problems[" + std::to_string(i) + "]";
        require_object(problems[i], path);
        reject_unknown(problems[i], {"id", "problem"}, path);
        WorkerProblem p;
        p.id = get_integer(problems[i], "id", path);
        p.problem = require(problems[i], "problem", path);
        require_object(p.problem, path + ".problem");
        if (!problem_ids.insert(p.id).second)
            throw Error(path + ".id: problem id " + std::to_string(p.id) + " is repeated");
        request.problems.push_back(std::move(p));
    }
    const json& cells = get_array(document, "cells", root);
    for (size_t i = 0; i < cells.size(); ++i) {
        const std::string path = root + ".cells[" + std::to_string(i) + "]";
        require_object(cells[i], path);
        reject_unknown(cells[i], {"cell", "kernel", "problem"}, path);
        WorkerCell c;
        c.cell = get_integer(cells[i], "cell", path);
        c.kernel = get_integer(cells[i], "kernel", path);
        c.problem = get_integer(cells[i], "problem", path);
        if (!kernel_ids.count(c.kernel))
            throw Error(path + ".kernel: no kernel has id " + std::to_string(c.kernel));
        if (!problem_ids.count(c.problem))
            throw Error(path + ".problem: no problem has id " + std::to_string(c.problem));
        if (!cell_ids.insert(c.cell).second)
            throw Error(path + ".cell: cell id " + std::to_string(c.cell) + " is repeated");
        request.cells.push_back(c);
    }
    return request;
}

json to_json(const WorkerPreload& preload) {
    return {{"protocol", preload.protocol}, {"preload", kernels_to_json(preload.kernels)}};
}

bool is_preload_request(const json& document) {
    return document.is_object() && document.contains("preload");
}

WorkerPreload worker_preload_from_json(const json& document) {
    const std::string root = "preload";
    require_object(document, root);
    reject_unknown(document, {"protocol", "preload"}, root);
    WorkerPreload preload;
    preload.protocol = checked_protocol(document, root);
    preload.kernels = kernels_from_json(get_array(document, "preload", root), root + ".preload");
    return preload;
}

WorkerRequest parse_worker_request(std::string_view text) {
    json document;
    try {
        document = json::parse(text);
    } catch (const json::parse_error& e) {
        throw Error(std::string("request: not valid JSON: ") + e.what());
    }
    return worker_request_from_json(document);
}

bool worker_may_report(CellStatus status) {
    switch (status) {
    case CellStatus::Ok:
    case CellStatus::Fail:
    case CellStatus::Unsupported:
    case CellStatus::Oom:
    case CellStatus::Error:
        return true;
    default:
        return false;
    }
}

std::string format_worker_event(const WorkerEvent& event) {
    json line;
    switch (event.kind) {
    case WorkerEvent::Kind::Begin:
        line = {{"event", "begin"}, {"cell", event.cell}};
        break;
    case WorkerEvent::Kind::End:
        line = {{"event", "end"}};
        break;
    case WorkerEvent::Kind::Loaded:
        line = {{"event", "loaded"}, {"kernel", event.kernel}};
        if (!event.load_error.empty()) line["error"] = event.load_error;
        break;
    case WorkerEvent::Kind::Result: {
        const WorkerCellResult& r = event.result;
        line = {{"event", "result"}, {"cell", event.cell}, {"status", to_string(r.status)}};
        put_number(line, "latency_ms", r.latency_ms);
        put_number(line, "latency_median_ms", r.latency_median_ms);
        put_number(line, "tflops", r.tflops);
        put_number(line, "gbps", r.gbps);
        put_number(line, "cv", r.cv);
        if (r.non_zero) line["non_zero"] = *r.non_zero;
        put_number(line, "max_rel_err", r.max_rel_err);
        put_number(line, "baseline_ms", r.baseline_ms);
        put_number(line, "gpu_span_ms", r.gpu_span_ms);
        if (r.verified) line["verified"] = *r.verified;
        if (!r.error.empty()) line["error"] = r.error;
        break;
    }
    }
    // Invalid UTF-8 in an error text must not make the worker throw while reporting.
    return line.dump(-1, ' ', false, json::error_handler_t::replace);
}

namespace {

WorkerEvent parse_event(const json& line) {
    const std::string root = "worker line";
    require_object(line, root);
    const std::string kind = get_string(line, "event", root);
    WorkerEvent event;
    if (kind == "end") {
        reject_unknown(line, {"event"}, root);
        event.kind = WorkerEvent::Kind::End;
        return event;
    }
    if (kind == "begin") {
        reject_unknown(line, {"event", "cell"}, root);
        event.kind = WorkerEvent::Kind::Begin;
        event.cell = get_integer(line, "cell", root);
        return event;
    }
    if (kind == "loaded") {
        reject_unknown(line, {"event", "kernel", "error"}, root);
        event.kind = WorkerEvent::Kind::Loaded;
        event.kernel = get_integer(line, "kernel", root);
        if (line.contains("error")) {
            event.load_error = get_string(line, "error", root);
            if (event.load_error.empty())
                throw Error(root + ".error: an empty load error (leave the key out instead)");
        }
        return event;
    }
    if (kind != "result")
        throw Error(root + ".event: unknown event \"" + kind +
                    "\" (allowed: begin, result, end, loaded)");
    reject_unknown(line,
                   {"event", "cell", "status", "latency_ms", "latency_median_ms", "tflops", "gbps",
                    "cv", "non_zero", "max_rel_err", "verified", "error", "baseline_ms",
                    "gpu_span_ms"},
                   root);
    event.kind = WorkerEvent::Kind::Result;
    event.cell = get_integer(line, "cell", root);
    WorkerCellResult& r = event.result;
    const std::string status = get_string(line, "status", root);
    auto parsed = cell_status_from_string(status);
    if (!parsed || !worker_may_report(*parsed))
        throw Error(root + ".status: \"" + status +
                    "\" is not a status a worker may report (allowed: ok, fail, unsupported, oom, "
                    "error)");
    r.status = *parsed;
    auto number = [&](const char* key, double& out) {
        auto found = line.find(key);
        if (found == line.end() || found->is_null()) return;
        if (!found->is_number())
            throw Error(root + "." + key + ": expected a number, got " + type_name(*found));
        out = found->get<double>();
        if (!std::isfinite(out)) throw Error(root + "." + key + ": not a finite number");
    };
    auto flag = [&](const char* key, std::optional<bool>& out) {
        auto found = line.find(key);
        if (found == line.end() || found->is_null()) return;
        if (!found->is_boolean())
            throw Error(root + "." + key + ": expected true or false, got " + type_name(*found));
        out = found->get<bool>();
    };
    number("latency_ms", r.latency_ms);
    number("latency_median_ms", r.latency_median_ms);
    number("tflops", r.tflops);
    number("gbps", r.gbps);
    number("cv", r.cv);
    number("max_rel_err", r.max_rel_err);
    number("baseline_ms", r.baseline_ms);
    number("gpu_span_ms", r.gpu_span_ms);
    if (has_value(r.gpu_span_ms) && r.gpu_span_ms < 0)
        throw Error(root + ".gpu_span_ms: must not be negative");
    flag("non_zero", r.non_zero);
    flag("verified", r.verified);
    if (auto found = line.find("error"); found != line.end() && !found->is_null()) {
        if (!found->is_string())
            throw Error(root + ".error: expected a string, got " + type_name(*found));
        r.error = found->get<std::string>();
    }
    const bool ran = r.status == CellStatus::Ok || r.status == CellStatus::Fail;
    if (ran && !(r.latency_ms > 0))
        throw Error(root + ".latency_ms: a cell with status " + status +
                    " needs a positive latency_ms");
    return event;
}

} // namespace

WorkerLine parse_worker_line(std::string_view text) {
    WorkerLine out;
    json line;
    try {
        line = json::parse(text);
    } catch (const json::parse_error&) {
        constexpr size_t shown = 120;
        out.error = "not a JSON line: \"" + std::string(text.substr(0, shown)) +
                    (text.size() > shown ? "...\"" : "\"");
        return out;
    }
    try {
        out.event = parse_event(line);
    } catch (const Error& e) {
        out.error = e.what();
    }
    return out;
}

} // namespace gconv
