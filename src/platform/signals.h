#pragma once
// SIGINT and SIGTERM as a request to stop: a sweep stops between cells, closes every
// report properly and exits with 128 + the signal; a wait for a child process passes the
// signal on to it (child_process.h).

#include <csignal>
#include <string>

namespace Harness {

/** The stop signal caught while a StopSignals lives (SIGINT or SIGTERM), or 0. */
int stopSignal();

/** The same, as the flag a child process's wait polls to pass the signal on. */
const volatile std::sig_atomic_t *stopFlag();

/** "SIGINT", "SIGTERM", or "" for 0: how a report names what stopped it. */
std::string stopSignalName(int signal);

/**
 * While it lives, SIGINT and SIGTERM set the stop signal instead of ending the process;
 * made, it clears the signal, and gone, it puts the previous handlers back.
 */
class StopSignals {
public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals &) = delete;
    StopSignals &operator=(const StopSignals &) = delete;

private:
    void (*previousInt_)(int);
    void (*previousTerm_)(int);
};

}  // namespace Harness
