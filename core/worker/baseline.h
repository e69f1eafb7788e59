#pragma once
// The vendor side of a side-by-side run: the same problem on the same device buffers, through
// the vendor's convolution library (cuDNN on NVIDIA, MIOpen on ROCm). Each library's search runs
// outside the timed region and offers candidates, fastest first by its own measurement; every
// candidate is verified against gconv's reference like a kernel cell, and the first that
// verifies is timed exactly as gconv's kernels are (warm-up, then back-to-back launches between
// events). The libraries are loaded at run time (dlopen), so gconv neither links nor needs them
// unless a baseline is asked for.
#include "config/enums.h"
#include "problem/problem.h"

#include <hip/hip_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gconv::worker {

struct BaselineTensors {
    void* in = nullptr;  // NHWGC (dIn for bwd_data)
    void* wei = nullptr; // GKYXC (dWeight for bwd_weight)
    void* out = nullptr; // NHWGK (dOut for the backward directions)
};

// Scratch memory the searches and the kept candidate may use.
struct BaselineWorkspace {
    void* data = nullptr;
    size_t bytes = 0;
};

struct BaselineCandidate {
    std::string name;    // "cudnn 9.14.0 legacy fwd algo 1, ..." or "miopen 3.1.0 fwd ..."
    float search_ms = 0; // the search's own time for one run
    // Queues one run on the library handle's stream (the result tensor is overwritten, beta =
    // 0); returns the library's status, 0 for success in both.
    std::function<int()> launch;
};

struct BaselineSearch {
    std::vector<BaselineCandidate> candidates; // fastest first
    std::vector<std::string> log;              // why configurations were left out
    std::string error;                         // when the search itself failed
};

struct BaselineCheck {
    bool passed = false;
    double max_rel_err = 0;
    std::string detail; // why it failed, for the log
};

// Poisons the result tensor, calls `launch_once` (one library run) and compares the result with
// the reference.
using BaselineVerifier = std::function<BaselineCheck(const std::function<void()>& launch_once)>;

struct BaselineResult {
    bool ok = false;
    std::vector<float> launch_ms; // each timed launch of the kept candidate
    std::string algorithm;        // e.g. "cudnn 9.14.0 graph engine 12 (tile=3 ...), 0 MB ..."
    double max_rel_err = 0;       // of the kept candidate's verified output
    std::vector<std::string> log; // what each path chose, timed, or left out, and why
    std::string error;            // when !ok
};

class VendorBaseline {
public:
    virtual ~VendorBaseline() = default;
    // "cuDNN" or "MIOpen", for messages.
    virtual std::string library() const = 0;
    // The loaded version and what it offers, for the worker log.
    virtual std::string description() const = 0;
    // Runs the problem's result tensor computation for `variant` on `stream`.
    virtual BaselineResult run(Variant variant, DataType dtype, const Problem& problem,
                               const BaselineTensors& tensors, hipStream_t stream, int warmup,
                               int repeat, const BaselineVerifier& verify) = 0;
};

// The provider `name` (sweep/worker_protocol.h baseline_providers()), or nullptr with `why` set: an
// unknown name, a library that is not installed (each provider's GCONV_*_LIBRARY variable names
// it), or one that lacks an entry point.
std::unique_ptr<VendorBaseline> load_baseline(const std::string& name, std::string& why);

// Verifies a search's candidates in order (at most a few: a path whose first candidates all
// fail has a systematic problem) and times the first that verifies like a kernel cell. `path`
// prefixes its log lines. False when none verified.
struct SettledCandidate {
    std::string name;
    std::vector<float> launch_ms;
    double mean_ms = 0;
    double max_rel_err = 0;
};
bool settle_candidates(const std::string& path, BaselineSearch& search, hipStream_t stream,
                       int warmup, int repeat, const BaselineVerifier& verify,
                       std::vector<std::string>& log, SettledCandidate& out);

// Device memory for the searches: up to 1 GiB, less (down to 1 MiB) when memory is short, none
// at all when even that fails. Freed with the object.
class SearchWorkspace {
public:
    SearchWorkspace();
    ~SearchWorkspace();
    SearchWorkspace(const SearchWorkspace&) = delete;
    SearchWorkspace& operator=(const SearchWorkspace&) = delete;
    const BaselineWorkspace& get() const { return ws_; }

private:
    BaselineWorkspace ws_;
};

} // namespace gconv::worker
