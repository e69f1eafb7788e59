#pragma once
// Runs a piece of emulation in a forked child process, so that what would fault or hang on a GPU
// (a kernel past its guard page, a loop that never ends) ends only that piece: the lines it
// wrote before are kept, and the caller learns how it ended. POSIX (fork, pipe, poll).
#include <chrono>
#include <functional>
#include <string>

namespace gconv::emu {

struct IsolatedExit {
    bool completed = false; // the child ran `work` to its end and exited 0
    std::string why;        // otherwise: "killed by signal 11 (Segmentation fault)", "no end
                            // after 600 s", "exit code 3"
};

// Runs work(emit) in a child; every line the child passes to emit reaches on_line in the parent
// as it comes. The child is killed after `timeout`.
IsolatedExit
run_isolated(const std::function<void(const std::function<void(const std::string&)>&)>& work,
             const std::function<void(const std::string&)>& on_line, std::chrono::seconds timeout);

} // namespace gconv::emu
