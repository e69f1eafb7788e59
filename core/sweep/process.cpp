#include "sweep/process.h"

#include "util/error.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

extern char** environ;

namespace gconv {
namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text() {
    return std::strerror(errno);
}

// A child that died leaves our stdin pipe without a reader; writing to it must give EPIPE,
// not kill the orchestrator.
void ignore_sigpipe_once() {
    static const bool done = [] {
        struct sigaction current {};
        sigaction(SIGPIPE, nullptr, &current);
        if (current.sa_handler == SIG_DFL) {
            struct sigaction ignore {};
            ignore.sa_handler = SIG_IGN;
            sigemptyset(&ignore.sa_mask);
            sigaction(SIGPIPE, &ignore, nullptr);
        }
        return true;
    }();
    (void)done;
}

std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
    std::vector<std::string> out;
    auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
    for (char** e = environ; e && *e; ++e) {
        std::string entry = *e;
        bool overridden = false;
        for (const auto& x : extra) overridden |= name_of(x) == name_of(entry);
        if (!overridden) out.push_back(std::move(entry));
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

ProcessExit decode(int status) {
    ProcessExit exit;
    exit.exited = true;
    if (WIFEXITED(status)) exit.code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
    return exit;
}

int milliseconds_until(Clock::time_point deadline) {
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return 0;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return ms > 1000000 ? 1000000 : static_cast<int>(ms);
}

} // namespace

std::string ProcessExit::describe() const {
    if (!exited) return "still running";
    if (signal) return "signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
    return "exit code " + std::to_string(code);
}

ChildProcess::ChildProcess(const ProcessOptions& options) : stderr_log_(options.stderr_log) {
    if (options.argv.empty()) throw Error("cannot start a process: no executable given");
    ignore_sigpipe_once();
    const std::string& program = options.argv[0];

    std::vector<std::string> env = merged_environment(options.environment);
    std::vector<char*> argv_ptrs, env_ptrs;
    for (const auto& a : options.argv) argv_ptrs.push_back(const_cast<char*>(a.c_str()));
    argv_ptrs.push_back(nullptr);
    for (const auto& e : env) env_ptrs.push_back(const_cast<char*>(e.c_str()));
    env_ptrs.push_back(nullptr);

    int log_fd = -1;
    if (!stderr_log_.empty()) {
        log_fd = ::open(stderr_log_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (log_fd < 0)
            throw Error(stderr_log_.string() + ": cannot open the worker log: " + errno_text());
        struct stat info {};
        ::fstat(log_fd, &info);
        stderr_start_ = static_cast<uint64_t>(info.st_size);
    }
    int in_pipe[2], out_pipe[2], exec_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0 ||
        ::pipe2(exec_pipe, O_CLOEXEC) != 0)
        throw Error("cannot create pipes for " + program + ": " + errno_text());

    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) throw Error("cannot fork to start " + program + ": " + errno_text());
    if (pid_ == 0) {
        // Only async-signal-safe calls from here to exec.
#ifdef __linux__
        if (options.die_with_parent) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) ::_exit(127);
        }
#endif
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        struct sigaction fallback {};
        fallback.sa_handler = SIG_DFL;
        ::sigaction(SIGPIPE, &fallback, nullptr);
        ::dup2(in_pipe[0], 0);
        ::dup2(out_pipe[1], 1);
        if (log_fd >= 0) ::dup2(log_fd, 2);
        ::execve(program.c_str(), argv_ptrs.data(), env_ptrs.data());
        const int error = errno;
        [[maybe_unused]] auto n = ::write(exec_pipe[1], &error, sizeof error);
        ::_exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(exec_pipe[1]);
    if (log_fd >= 0) ::close(log_fd);
    stdin_fd_ = in_pipe[1];
    stdout_fd_ = out_pipe[0];
    ::fcntl(stdin_fd_, F_SETFL, ::fcntl(stdin_fd_, F_GETFL) | O_NONBLOCK);

    int exec_error = 0;
    ssize_t n;
    do n = ::read(exec_pipe[0], &exec_error, sizeof exec_error);
    while (n < 0 && errno == EINTR);
    ::close(exec_pipe[0]);
    if (n == static_cast<ssize_t>(sizeof exec_error)) {
        int status = 0;
        ::waitpid(pid_, &status, 0);
        exit_ = decode(status);
        close_stdin();
        ::close(stdout_fd_);
        stdout_fd_ = -1;
        throw Error("cannot start " + program + ": " + std::strerror(exec_error));
    }
}

ChildProcess::~ChildProcess() {
    if (running()) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
    }
    close_stdin();
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

void ChildProcess::close_stdin() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    stdin_fd_ = -1;
}

void ChildProcess::send_and_close_stdin(std::string data) {
    close_after_send_ = true;
    send(std::move(data));
}

void ChildProcess::send(std::string data) {
    to_send_.erase(0, sent_);
    to_send_ += data;
    sent_ = 0;
    // Most requests fit the pipe: write what fits now, the rest from read_line's poll loop.
    while (stdin_fd_ >= 0 && sent_ < to_send_.size()) {
        const ssize_t n = ::write(stdin_fd_, to_send_.data() + sent_, to_send_.size() - sent_);
        if (n > 0) {
            sent_ += static_cast<size_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (n < 0 && errno != EAGAIN) close_stdin(); // EPIPE: the child is gone
            break;
        }
    }
    if (sent_ == to_send_.size() && close_after_send_) close_stdin();
}

ChildProcess::ReadStatus ChildProcess::read_line(std::string& line, Clock::time_point deadline) {
    for (;;) {
        const size_t newline = pending_.find('\n');
        if (newline != std::string::npos) {
            line.assign(pending_, 0, newline);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            pending_.erase(0, newline + 1);
            return ReadStatus::Line;
        }
        if (stdout_eof_) return ReadStatus::EndOfFile;

        pollfd fds[2];
        int count = 0;
        fds[count++] = {stdout_fd_, POLLIN, 0};
        const bool sending = stdin_fd_ >= 0 && sent_ < to_send_.size();
        if (sending) fds[count++] = {stdin_fd_, POLLOUT, 0};
        const int ready = ::poll(fds, static_cast<nfds_t>(count), milliseconds_until(deadline));
        if (ready < 0) {
            if (errno == EINTR) continue;
            throw Error("poll on the worker's stdout failed: " + errno_text());
        }
        if (ready == 0) return ReadStatus::Timeout;
        if (sending && fds[1].revents) {
            const ssize_t n = ::write(stdin_fd_, to_send_.data() + sent_, to_send_.size() - sent_);
            if (n > 0) sent_ += static_cast<size_t>(n);
            if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
                (sent_ == to_send_.size() && close_after_send_))
                close_stdin();
        }
        if (fds[0].revents) {
            char buffer[65536];
            const ssize_t n = ::read(stdout_fd_, buffer, sizeof buffer);
            if (n > 0)
                pending_.append(buffer, static_cast<size_t>(n));
            else if (n == 0 || (errno != EINTR && errno != EAGAIN))
                stdout_eof_ = true;
        }
    }
}

bool ChildProcess::try_reap() {
    if (!running()) return true;
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        exit_ = decode(status);
        return true;
    }
    return false;
}

ProcessExit ChildProcess::wait(Clock::time_point deadline) {
    close_stdin();
    auto pause = std::chrono::microseconds(50);
    while (!try_reap()) {
        if (Clock::now() >= deadline) {
            ::kill(pid_, SIGKILL);
            int status = 0;
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
            exit_ = decode(status);
            break;
        }
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(5000));
    }
    return *exit_;
}

ProcessExit ChildProcess::terminate(std::chrono::milliseconds grace) {
    if (!running()) return *exit_;
    ::kill(pid_, SIGTERM);
    return wait(Clock::now() + grace);
}

std::string ChildProcess::stderr_tail(size_t bytes) const {
    if (stderr_log_.empty()) return {};
    const int fd = ::open(stderr_log_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    struct stat info {};
    ::fstat(fd, &info);
    const uint64_t size = static_cast<uint64_t>(info.st_size);
    uint64_t from = size > bytes ? size - bytes : 0;
    if (from < stderr_start_) from = stderr_start_;
    std::string text(size > from ? size - from : 0, '\0');
    const ssize_t n = ::pread(fd, text.data(), text.size(), static_cast<off_t>(from));
    ::close(fd);
    text.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return text;
}

} // namespace gconv
