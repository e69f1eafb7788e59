#pragma once
// A child process with its stdin and stdout on pipes and its stderr appended to a log file.
// POSIX only; no threads: the parent writes stdin and reads stdout in one poll() loop, so a
// large request cannot deadlock against a child that already writes.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace gconv {

struct ProcessOptions {
    std::vector<std::string> argv; // argv[0] is the executable's path (no PATH search)
    // Extra NAME=VALUE entries on top of the parent's environment.
    std::vector<std::string> environment;
    // The child's stderr is appended here; empty: the child inherits the parent's stderr.
    std::filesystem::path stderr_log;
    // Linux: the child gets SIGKILL when the thread that spawned it dies (a killed orchestrator
    // leaves no worker behind on the GPU).
    bool die_with_parent = true;
};

struct ProcessExit {
    bool exited = false; // exited normally (code valid) or by signal (signal valid)
    int code = 0;
    int signal = 0;
    // "exit code 3" or "signal 11 (Segmentation fault)".
    std::string describe() const;
};

class ChildProcess {
public:
    // Throws gconv::Error when the executable cannot be started (naming it).
    explicit ChildProcess(const ProcessOptions& options);
    ~ChildProcess(); // kills (SIGKILL) and reaps a child still running
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const { return pid_; }

    // Queues bytes for the child's stdin, written while read_line() waits; the pipe is closed
    // once they are all written (the child sees end of file).
    void send_and_close_stdin(std::string data);
    // Queues bytes for the child's stdin and keeps it open (a worker serving many requests).
    void send(std::string data);

    enum class ReadStatus { Line, Timeout, EndOfFile };
    // The next stdout line (without its line break) before `deadline`. At end of file a last
    // line without a line break is left in partial_line().
    ReadStatus read_line(std::string& line, std::chrono::steady_clock::time_point deadline);
    const std::string& partial_line() const { return pending_; }

    // Waits for the child to exit (after end of file on stdout, normally quick); SIGKILL if it
    // has not exited by `deadline`.
    ProcessExit wait(std::chrono::steady_clock::time_point deadline);
    // SIGTERM, then SIGKILL after `grace`; reaps.
    ProcessExit terminate(std::chrono::milliseconds grace);
    bool running() const { return !exit_.has_value(); }

    // The last `bytes` of what the child wrote to the stderr log (this child only).
    std::string stderr_tail(size_t bytes = 2000) const;

private:
    bool try_reap(); // non-blocking
    void close_stdin();

    pid_t pid_ = -1;
    int stdin_fd_ = -1;
    int stdout_fd_ = -1;
    std::string to_send_;
    size_t sent_ = 0;
    bool close_after_send_ = false;
    std::string pending_;
    bool stdout_eof_ = false;
    std::optional<ProcessExit> exit_;
    std::filesystem::path stderr_log_;
    uint64_t stderr_start_ = 0;
};

} // namespace gconv
