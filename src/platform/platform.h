#pragma once
// What the driver asks of the operating system, with a fallback where a system lacks it:
// POSIX (Linux, macOS) and Windows (MSVC's CRT). SC_NO_POSIX builds the fallbacks on any
// system, so that CI compiles them too.

#include <cstdio>
#include <string>
#include <vector>

#if defined(_WIN32) && !defined(SC_NO_POSIX)
#include <io.h>
#elif !defined(SC_NO_POSIX)
#include <unistd.h>
#endif
#if defined(__linux__) && !defined(SC_NO_POSIX)
#include <sched.h>
#endif

namespace Harness {

/** Whether standard error is a terminal (for the progress line); false where unknown. */
inline bool stderrIsTerminal() {
#if defined(_WIN32) && !defined(SC_NO_POSIX)
    return _isatty(_fileno(stderr)) != 0;
#elif !defined(SC_NO_POSIX)
    return isatty(STDERR_FILENO) != 0;
#else
    return false;
#endif
}

/**
 * CPU numbers, ascending, as ranges with their count: {0, 1, 2, 5, 7, 8} reads
 * "0-2,5,7-8 (6 CPUs)"; none reads "unknown".
 */
inline std::string cpuListText(const std::vector<int> &cpus) {
    if (cpus.empty()) return "unknown";
    std::string text;
    for (std::size_t first = 0; first < cpus.size();) {
        std::size_t last = first;
        while (last + 1 < cpus.size() && cpus[last + 1] == cpus[last] + 1) ++last;
        if (!text.empty()) text += ',';
        text += std::to_string(cpus[first]);
        if (last > first) {
            text += '-';
            text += std::to_string(cpus[last]);
        }
        first = last + 1;
    }
    return text + " (" + std::to_string(cpus.size()) + (cpus.size() == 1 ? " CPU)" : " CPUs)");
}

/**
 * The CPUs this process may run on (its affinity, as `taskset` sets it), ascending; empty
 * where the system does not say (outside Linux).
 */
inline std::vector<int> allowedCpus() {
    std::vector<int> cpus;
#if defined(__linux__) && !defined(SC_NO_POSIX)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
            if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
        }
    }
#endif
    return cpus;
}

}  // namespace Harness
