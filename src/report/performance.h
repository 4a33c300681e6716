#pragma once
// The course's Performance Analysis section for one set of course back ends (a
// submission's student-* rows, or the project's own), as GitHub markdown to paste into a
// README: 1. block sizes, 2. array sizes against the CPU and the copy ceiling, 3. the
// bottlenecks, 4. Thrust's timeline, 5. the test output. Made from sweeps' JSON reports
// read back (json_report.h) and the course run's text; a part that did not run is left
// out with the reason.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/json_report.h"

namespace Harness {

/** The back ends a report is about (command-line names), and those drawn beside them as references. */
struct CourseBackends {
    std::string cpu = "cpu", naive = "naive", efficient = "efficient", thrust = "thrust";
    std::vector<std::string> references = {"decoupled", "cub"};
    bool student = false;  // a submission's student-* rows, not the project's own

    /** cpu, naive, efficient, thrust, in the course's order. */
    std::vector<std::string> course() const { return {cpu, naive, efficient, thrust}; }
};

/** What the section is made from. A part left empty did not run, and `skipped` says why. */
struct PerformanceInputs {
    CourseBackends backends;
    std::string whose;    // "the course submission in /home/me/Project2"
    std::string command;  // the command line that made it
    std::optional<JsonReport> blocks;  // the block-size sweep: naive and work-efficient, 128 to 1024 threads
    std::optional<JsonReport> sizes;   // the array-size sweep: every back end at powers of two
    int sizesBlockSize = 0;            // the block size the array-size sweep ran at
    std::vector<std::string> images;   // the plots' file names, beside performance.md
    std::string testOutput;            // the course run's output
    std::vector<std::string> skipped;  // "block sizes: skipped: no CUDA device"
    // The explain data, where calls were traced: sentences per back end and op ("student-naive
    // scan": kernels per call, time between them, allocations or copies inside the timer, the
    // verdict), and Thrust's scan kernel by kernel as text with its Chrome-trace file's name.
    std::map<std::string, std::vector<std::string>> explained;
    std::string thrustTimeline;
    std::string thrustTrace;
};

/** performance.md: the five sections, each a heading, its tables, plots and sentences. */
std::string performanceMarkdown(const PerformanceInputs &inputs);

/**
 * The block size at which `backend`'s `op` was fastest at the block-size sweep's power of
 * two; none when it has no passed row with a block size.
 */
std::optional<int> bestBlockSize(const JsonReport &blocks, const std::string &backend, Op op);

/** "work-efficient scan": a back end's course name (a student-* row's without "student"), and the op. */
std::string courseLabel(const std::string &backend, Op op);

}  // namespace Harness
