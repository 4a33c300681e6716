#include "platform/child_process.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#if !defined(_WIN32) && !defined(SC_NO_POSIX)
#define SC_HAS_FORK 1
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#if defined(__linux__) && !defined(SC_NO_POSIX)
#include <sys/prctl.h>
#endif

namespace Harness {

#ifdef SC_HAS_FORK

namespace {

// How often a wait looks at the stop signal, in ms.
constexpr int kPollMs = 20;

struct Pipe {
    int read = -1;
    int write = -1;
};

Pipe makePipe(bool closeOnExec) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
    if (closeOnExec) {
        fcntl(fds[0], F_SETFD, FD_CLOEXEC);
        fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    }
    return {fds[0], fds[1]};
}

void closeFd(int &fd) {
    if (fd >= 0) close(fd);
    fd = -1;
}

// The pipes between parent and child: messages (lines), output (stdout and stderr), and
// for an exec, the errno of an exec that failed.
struct Pipes {
    Pipe messages, output, execError;
};

// In the child, before its body or its exec.
void prepareChild(const ChildSettings &settings, Pipes &pipes) {
#ifdef __linux__
    if (settings.endWithParent) prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    // A fault ends the child by its signal, which the parent reports, and not through a
    // handler inherited from the parent (a sanitizer's turns it into an exit status).
    for (const int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(fault, SIG_DFL);
    closeFd(pipes.messages.read);
    closeFd(pipes.output.read);
    closeFd(pipes.execError.read);
    const auto redirect = [&pipes](ChildSettings::Output to, int fd) {
        if (to == ChildSettings::Output::Capture) dup2(pipes.output.write, fd);
        if (to != ChildSettings::Output::Discard) return;
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, fd);
        if (null >= 0) close(null);
    };
    redirect(settings.stdoutTo, STDOUT_FILENO);
    redirect(settings.stderrTo, STDERR_FILENO);
    closeFd(pipes.output.write);
}

bool captures(const ChildSettings &settings) {
    return settings.stdoutTo == ChildSettings::Output::Capture || settings.stderrTo == ChildSettings::Output::Capture;
}

// Reads what is there from `fd`: false at its end (then closed).
bool readSome(int &fd, std::string &into) {
    char buffer[4096];
    into.clear();
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) {
        closeFd(fd);
        return false;
    }
    into.assign(buffer, static_cast<std::size_t>(n));
    return true;
}

// Hands every whole line of `pending` to onMessage.
void deliverLines(std::string &pending, const ChildSettings &settings) {
    for (auto end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
        if (settings.onMessage) settings.onMessage(pending.substr(0, end));
        pending.erase(0, end + 1);
    }
}

// Watches a started child until it has ended and its pipes are drained.
class Watch {
public:
    Watch(pid_t pid, const ChildSettings &settings, Pipes &pipes) : pid_(pid), settings_(settings), pipes_(pipes) {}

    ChildExit wait() {
        while (!ended_ || pipes_.messages.read >= 0 || pipes_.output.read >= 0) {
            const bool heard = listen(ended_ ? 0 : kPollMs);
            if (ended_) {
                if (!heard) break;  // drained (a grandchild may hold a pipe open)
                continue;
            }
            silentMs_ = heard ? 0 : silentMs_ + kPollMs;
            const bool overRun = settings_.runLimitMs > 0 && elapsedMs() >= settings_.runLimitMs;
            const bool silent = settings_.silenceLimitMs > 0 && silentMs_ >= settings_.silenceLimitMs;
            if ((silent || overRun) && !result_.timedOut) {
                kill(pid_, SIGKILL);
                result_.timedOut = true;
            }
            passStopOn();
            reap();
        }
        closeFd(pipes_.messages.read);
        closeFd(pipes_.output.read);
        if (!pending_.empty() && settings_.onMessage) settings_.onMessage(pending_);
        return result_;
    }

private:
    // Polls the open pipes for `timeoutMs`; whether anything arrived (data or a pipe's end).
    bool listen(int timeoutMs) {
        pollfd fds[2] = {{pipes_.messages.read, POLLIN, 0}, {pipes_.output.read, POLLIN, 0}};
        if (fds[0].fd < 0 && fds[1].fd < 0) {
            if (timeoutMs > 0) poll(nullptr, 0, timeoutMs);
            return false;
        }
        if (poll(fds, 2, timeoutMs) <= 0) return false;
        std::string chunk;
        for (int k = 0; k < 2; ++k) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            int &fd = k == 0 ? pipes_.messages.read : pipes_.output.read;
            if (!readSome(fd, chunk)) continue;
            if (k == 1) {
                if (settings_.onOutput) settings_.onOutput(chunk);
            } else {
                pending_ += chunk;
                deliverLines(pending_, settings_);
            }
        }
        return true;
    }

    long long elapsedMs() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_)
            .count();
    }

    void passStopOn() {
        if (!settings_.stop || *settings_.stop == 0) return;
        if (sinceStopMs_ < 0) kill(pid_, *settings_.stop);
        if (sinceStopMs_ >= kStopGraceMs) kill(pid_, SIGKILL);
        sinceStopMs_ += kPollMs;
    }

    void reap() {
        int status = 0;
        const pid_t done = waitpid(pid_, &status, WNOHANG);
        if (done < 0 && errno != EINTR) {
            throw std::runtime_error(fmt::format("cannot wait for a child process: {}", std::strerror(errno)));
        }
        if (done != pid_) return;
        ended_ = true;
        result_.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        result_.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + result_.signal;
    }

    pid_t pid_;
    const ChildSettings &settings_;
    Pipes &pipes_;
    ChildExit result_;
    std::string pending_;  // a message line not yet whole
    bool ended_ = false;
    int silentMs_ = 0;
    int sinceStopMs_ = -1;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// Forks; in the child runs `inChild`, which does not return; in the parent returns the
// child's id with the child's ends of the pipes closed.
template <typename InChild>
pid_t start(const ChildSettings &settings, Pipes &pipes, InChild inChild) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(fmt::format("cannot start a process: {}", std::strerror(errno)));
    if (pid == 0) {
        prepareChild(settings, pipes);
        inChild();
    }
    closeFd(pipes.messages.write);
    closeFd(pipes.output.write);
    closeFd(pipes.execError.write);
    return pid;
}

Pipes pipesFor(const ChildSettings &settings, bool messages, bool exec) {
    Pipes pipes;
    if (messages) pipes.messages = makePipe(false);
    if (captures(settings)) pipes.output = makePipe(false);
    if (exec) pipes.execError = makePipe(true);
    return pipes;
}

}  // namespace

bool canStartProcesses() { return true; }

ChildExit runChild(const ChildBody &body, const ChildSettings &settings) {
    Pipes pipes = pipesFor(settings, true, false);
    const pid_t pid = start(settings, pipes, [&] {
        body(pipes.messages.write);
        std::fflush(stdout);
        std::fflush(stderr);
        _exit(0);
    });
    return Watch(pid, settings, pipes).wait();
}

ChildExit runProgram(const std::string &program, const std::vector<std::string> &arguments,
                     const ChildSettings &settings) {
    std::vector<std::string> words{program};
    words.insert(words.end(), arguments.begin(), arguments.end());
    std::vector<char *> argv;
    for (std::string &word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    Pipes pipes = pipesFor(settings, false, true);
    const pid_t pid = start(settings, pipes, [&] {
        execvp(program.c_str(), argv.data());
        const int error = errno;
        if (write(pipes.execError.write, &error, sizeof error) < 0) _exit(127);
        _exit(127);
    });
    int error = 0;
    ssize_t got = 0;
    while ((got = read(pipes.execError.read, &error, sizeof error)) < 0 && errno == EINTR) {
    }
    closeFd(pipes.execError.read);
    if (got == static_cast<ssize_t>(sizeof error)) {
        while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
        throw std::runtime_error(fmt::format("cannot start '{}': {}", program, std::strerror(error)));
    }
    return Watch(pid, settings, pipes).wait();
}

std::string signalText(int signal) {
    static const std::pair<int, const char *> names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},  {SIGABRT, "SIGABRT"},
        {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"}, {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"}};
    std::string name = fmt::format("signal {}", signal);
    for (const auto &[number, text] : names) {
        if (number == signal) name = text;
    }
    std::string what = strsignal(signal);
    if (!what.empty() && what[0] >= 'A' && what[0] <= 'Z' && (what.size() < 2 || what[1] < 'A' || what[1] > 'Z')) {
        what[0] = static_cast<char>(what[0] - 'A' + 'a');
    }
    return fmt::format("{} ({})", name, what);
}

std::string thisProgram(const std::string &argv0) {
#ifdef __linux__
    if (access("/proc/self/exe", X_OK) == 0) return "/proc/self/exe";
#endif
    return argv0;
}

void sendLine(int fd, const std::string &line) {
    const std::string text = line + "\n";
    std::size_t sent = 0;
    while (sent < text.size()) {
        const ssize_t n = write(fd, text.data() + sent, text.size() - sent);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        sent += static_cast<std::size_t>(n);
    }
}

#else

bool canStartProcesses() { return false; }

ChildExit runChild(const ChildBody &, const ChildSettings &) {
    throw std::runtime_error("cannot start a process: this build cannot start processes");
}

ChildExit runProgram(const std::string &program, const std::vector<std::string> &, const ChildSettings &) {
    throw std::runtime_error(fmt::format("cannot start '{}': this build cannot start processes", program));
}

std::string thisProgram(const std::string &argv0) { return argv0; }

std::string signalText(int signal) { return fmt::format("signal {}", signal); }

void sendLine(int, const std::string &) {}

#endif

std::string endedText(const ChildExit &exit, int limitSeconds) {
    if (exit.timedOut) return fmt::format("did not return within {} s; killed", limitSeconds);
    if (exit.signal) return "crashed: " + signalText(exit.signal);
    return fmt::format("crashed: the process exited with status {}", exit.status);
}

}  // namespace Harness
