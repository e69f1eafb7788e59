// gconv-sweep-driver: runs the real benchmark phase (run_benchmarks) over a synthetic plan, so
// tests can drive the orchestrator end to end, and kill it, without the build phase or a GPU.
//   gconv-sweep-driver --worker PATH --output FILE.csv [--log FILE] [--kernels N] [--problems P]
//       [--batch-size B] [--kernel-timeout S] [--resume] [--form full|ck|seed]
//       [--tag INDEX=@behaviour]... [--unsupported INDEX]...
// Kernel i is named "fk<i>" plus its tag (see gconv-fake-worker); cells of an --unsupported
// kernel are recorded as unsupported. Prints the summary as one JSON line.
#include "csv/csv_reader.h"
#include "csv/csv_writer.h"
#include "sweep/bench_runner.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>

using namespace gconv;

int main(int argc, char** argv) {
    try {
        std::string worker, output, log;
        int kernels = 4, problems = 3;
        bool resume = false;
        CsvForm form = CsvForm::Full;
        BenchOptions options;
        std::map<int, std::string> tags;
        std::set<int> unsupported;
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw Error(arg + ": missing value");
                return argv[++i];
            };
            if (arg == "--worker")
                worker = value();
            else if (arg == "--output")
                output = value();
            else if (arg == "--log")
                log = value();
            else if (arg == "--kernels")
                kernels = std::stoi(value());
            else if (arg == "--problems")
                problems = std::stoi(value());
            else if (arg == "--batch-size")
                options.batch_size = std::stoul(value());
            else if (arg == "--kernel-timeout")
                options.kernel_timeout_s = std::stod(value());
            else if (arg == "--resume")
                resume = true;
            else if (arg == "--form")
                form = csv_form_from_string(value()).value_or(CsvForm::Full);
            else if (arg == "--unsupported")
                unsupported.insert(std::stoi(value()));
            else if (arg == "--tag") {
                const std::string t = value();
                const auto eq = t.find('=');
                if (eq == std::string::npos) throw Error("--tag: expected INDEX=@behaviour");
                tags[std::stoi(t.substr(0, eq))] = t.substr(eq + 1);
            } else
                throw Error("unknown option " + arg);
        }
        if (worker.empty() || output.empty()) throw Error("--worker and --output are required");

        BenchPlan plan;
        plan.variant = "forward";
        plan.dtype = "bf16";
        plan.arch = "fake_arch";
        plan.device = "fake device";
        plan.toolchain = "fake toolchain 1.0";
        plan.seed = 7;
        for (int k = 0; k < kernels; ++k)
            plan.kernels.push_back({"fk" + std::to_string(k) + (tags.count(k) ? tags[k] : ""),
                                    "/nonexistent/fk" + std::to_string(k) + ".co",
                                    "entry",
                                    {}});
        for (int p = 0; p < problems; ++p) {
            BenchProblem bp;
            bp.problem.N = 1 + p % 3;
            bp.problem.C = 16 * (1 + p % 4);
            bp.problem.K = 32 * (1 + p % 2);
            bp.problem.G = 1 + p % 2;
            bp.problem.Hi = bp.problem.Wi = 7 + p;
            bp.problem.Y = bp.problem.X = 3;
            bp.problem.pad_h = bp.problem.pad_w = 1;
            bp.problem.layer = "synthetic." + std::to_string(p);
            const Problem& s = bp.problem;
            bp.json = {{"N", s.N},         {"C", s.C},        {"K", s.K}, {"G", s.G},
                       {"Hi", s.Hi},       {"Wi", s.Wi},      {"Y", s.Y}, {"X", s.X},
                       {"pad_h", s.pad_h}, {"pad_w", s.pad_w}};
            bp.key = bp.json.dump();
            bp.problem_idx = p;
            bp.set = "synthetic";
            plan.problems.push_back(bp);
        }
        for (int p = 0; p < problems; ++p)
            for (int k = 0; k < kernels; ++k)
                plan.cells.push_back({static_cast<size_t>(k), static_cast<size_t>(p)});

        options.worker_command = {worker};
        options.worker_log = log.empty() ? output + ".worker.log" : log;
        options.terminate_grace = std::chrono::milliseconds(200);
        options.unsupported = [&](const BenchPlan&,
                                  const BenchCell& cell) -> std::optional<std::string> {
            if (unsupported.count(static_cast<int>(cell.kernel)))
                return "synthetic: kernel " + std::to_string(cell.kernel) +
                       " is marked unsupported";
            return std::nullopt;
        };

        CsvWriterOptions writer_options;
        writer_options.form = form;
        if (resume) {
            std::error_code ec;
            if (std::filesystem::exists(output, ec) && std::filesystem::file_size(output, ec) > 0) {
                CsvReadResult previous = read_results_csv(output);
                for (const auto& w : previous.warnings) std::cerr << "warning: " << w << "\n";
                const auto* keys = previous.table.column("content_key");
                if (!keys) throw Error(output + ": --resume needs the full form (no content_key)");
                for (size_t r = 0; r < previous.table.rows(); ++r)
                    options.done_keys.insert(std::string(keys->text(r)));
                writer_options.keep_bytes = previous.valid_bytes;
            }
            writer_options.append = true;
        }
        CsvWriter writer(output, writer_options);
        CsvResultSink sink(writer);
        const BenchSummary s = run_benchmarks(plan, options, sink);
        writer.close();
        nlohmann::json statuses = nlohmann::json::object();
        for (const auto& [status, count] : s.by_status)
            statuses[std::string(to_string(status))] = count;
        std::cout << nlohmann::json{{"cells_total", s.cells_total},
                                    {"skipped_done", s.skipped_done},
                                    {"rows_written", s.rows_written},
                                    {"by_status", statuses},
                                    {"batches", s.batches},
                                    {"workers_started", s.workers_started},
                                    {"warnings", s.warnings},
                                    {"wall_s", s.wall_s},
                                    {"overhead_per_cell_ms", s.overhead_per_cell_ms},
                                    {"overhead_per_batch_ms", s.overhead_per_batch_ms},
                                    {"in_cell_overhead_ms", s.in_cell_overhead_ms},
                                    {"gpu_busy_share", s.gpu_busy_share}}
                         .dump()
                  << std::endl;
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "gconv-sweep-driver: " << e.what() << "\n";
        return 1;
    }
}
