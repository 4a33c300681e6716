#pragma once
// The progress line of a sweep: "[k/m, 0:35 elapsed, about 1:20 left] what is running"
// on stderr, rewritten in place, only on a terminal.

#include <chrono>
#include <string>

namespace Harness {

/**
 * The progress line. What is left is the elapsed time per finished cell times the cells
 * still to come. It clears itself when it goes, also when an error ends the sweep.
 */
class Progress {
public:
    /** `total` cells; nothing is shown unless `enabled`; `prefix` opens every line. */
    Progress(long long total, bool enabled, std::string prefix = "");
    ~Progress();
    Progress(const Progress &) = delete;
    Progress &operator=(const Progress &) = delete;

    /** Shows cell `number` (from 1; the ones before it are finished) running `what`. */
    void show(long long number, const std::string &what);
    /** Erases the line, so that other output starts on a clean line. */
    void clear();

    /** "1:05", "1:02:03": a duration in whole seconds as a clock reads. */
    static std::string clockText(double seconds);

private:
    long long total_;
    bool enabled_;
    std::string prefix_;
    std::chrono::steady_clock::time_point start_;
    bool shown_ = false;
};

}  // namespace Harness
