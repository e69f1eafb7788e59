#include "emu/isolated_run.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gconv::emu {

namespace {

void write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += std::size_t(n);
    }
}

} // namespace

IsolatedExit
run_isolated(const std::function<void(const std::function<void(const std::string&)>&)>& work,
             const std::function<void(const std::string&)>& on_line, std::chrono::seconds timeout) {
    int fds[2];
    if (pipe(fds) != 0) return {false, std::string("pipe: ") + std::strerror(errno)};
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return {false, std::string("fork: ") + std::strerror(errno)};
    }
    if (pid == 0) {
        close(fds[0]);
        // A fault ends the child with its signal, whatever handlers the parent installed (a
        // crash reporter would otherwise run in the child).
        for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(sig, SIG_DFL);
        int code = 0;
        try {
            work([&](const std::string& line) { write_all(fds[1], line + "\n"); });
        } catch (const std::exception& e) {
            write_all(fds[1], std::string("ERROR ") + e.what() + "\n");
            code = 1;
        }
        close(fds[1]);
        _exit(code);
    }
    close(fds[1]);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string pending;
    bool timed_out = false;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timed_out = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        char buffer[4096];
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; // end of file: the child is done writing
        pending.append(buffer, std::size_t(n));
        for (std::size_t eol; (eol = pending.find('\n')) != std::string::npos;) {
            on_line(pending.substr(0, eol));
            pending.erase(0, eol + 1);
        }
    }
    close(fds[0]);
    if (!pending.empty()) on_line(pending);
    if (timed_out) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) return {false, "no end after " + std::to_string(timeout.count()) + " s"};
    if (WIFSIGNALED(status))
        return {false, "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                           strsignal(WTERMSIG(status)) + ")"};
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        return {false, "exit code " + std::to_string(WEXITSTATUS(status))};
    return {true, {}};
}

} // namespace gconv::emu
