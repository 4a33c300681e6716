#pragma once
// Child processes, started one way for every caller: a sweep's processes (the program
// run again with its own command line) and the grade's (a function of this process run
// in a fork, so that a crash ends the child alone). One wait serves both: it passes a
// caught stop signal on, kills a child that has not stopped a grace period later, kills
// one that has been silent past a time limit, and hands what the child wrote to the
// caller as it arrives.

#include <csignal>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace Harness {

/** Whether this build can start child processes (POSIX); --processes above 1 needs it. */
bool canStartProcesses();

/** How long a child may take to stop after the parent passed a signal on, in ms. */
constexpr int kStopGraceMs = 10000;

/** How a child is run and watched. */
struct ChildSettings {
    // A non-zero value here (a signal the parent caught) is passed on to the child, and
    // SIGKILL follows when it has not ended kStopGraceMs later; nullptr: nothing passed.
    const volatile std::sig_atomic_t *stop = nullptr;
    // The child is killed (SIGKILL) when it has written nothing for this long; 0: never.
    int silenceLimitMs = 0;
    // The child is killed (SIGKILL) when it has run this long in all, written or not; 0: never.
    int runLimitMs = 0;
    // Where the child's stdout and stderr go: this process's (Inherit), to `onOutput`
    // (Capture; both into one pipe, in the order written) or nowhere (Discard).
    enum class Output { Inherit, Capture, Discard };
    Output stdoutTo = Output::Inherit;
    Output stderrTo = Output::Inherit;
    // The child gets SIGTERM when this process dies (Linux; nothing elsewhere).
    bool endWithParent = false;
    // Each line the child writes to its message pipe (the descriptor a ChildBody gets),
    // without the line break.
    std::function<void(const std::string &line)> onMessage;
    // What the child printed to a captured stdout or stderr, chunk by chunk.
    std::function<void(std::string_view chunk)> onOutput;

    /** Settings that hand the child's stdout and stderr, in the order written, to `output`. */
    static ChildSettings capturing(std::function<void(std::string_view chunk)> output) {
        ChildSettings settings;
        settings.stdoutTo = Output::Capture;
        settings.stderrTo = Output::Capture;
        settings.onOutput = std::move(output);
        return settings;
    }
};

/** How a child ended. */
struct ChildExit {
    int status = 0;         // its exit status, or 128 + the signal that ended it
    int signal = 0;         // the signal that ended it, or 0 when it exited
    bool timedOut = false;  // killed for its silence or its run time (ChildSettings' limits)
};

/**
 * What a forked child runs, given the descriptor of its message pipe (lines to the
 * parent, ChildSettings::onMessage); the child exits with status 0 after it returns.
 */
using ChildBody = std::function<void(int messages)>;

/**
 * Forks, runs `body` in the child and waits for it as `settings` say. Throws
 * std::runtime_error when no process can be started.
 */
ChildExit runChild(const ChildBody &body, const ChildSettings &settings);

/**
 * Runs `program` with `arguments` (argv[1] on) and waits for it as `settings` say; a
 * program that names no directory is looked up on PATH. Throws std::runtime_error naming
 * the program when it cannot be started.
 */
ChildExit runProgram(const std::string &program, const std::vector<std::string> &arguments,
                     const ChildSettings &settings);

/**
 * The executable of this process: /proc/self/exe on Linux (the running file, even where
 * it was since replaced), else `argv0`.
 */
std::string thisProgram(const std::string &argv0);

/**
 * A signal that ended a child, for a person: "SIGSEGV (segmentation fault)", or
 * "signal 42 (...)" for one without a common name.
 */
std::string signalText(int signal);

/**
 * How a child that was running a call ended, for a person: "did not return within 30 s;
 * killed" (its limit, `limitSeconds`), "crashed: SIGSEGV (segmentation fault)" or
 * "crashed: the process exited with status 1".
 */
std::string endedText(const ChildExit &exit, int limitSeconds);

/** Writes `line` and a line break to `fd` (a ChildBody's message pipe), whole. */
void sendLine(int fd, const std::string &line);

}  // namespace Harness
