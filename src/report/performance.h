#pragma once
// The course's Performance Analysis section for one set of course back ends (a
// submission's student-* rows, or the project's own), as GitHub markdown to paste into a
// README: 1. block sizes, 2. array sizes against the CPU and the copy ceiling, 3. the
// bottlenecks, 4. Thrust's timeline, 5. the test output. Made from sweeps' JSON reports
// read back (json_report.h) and the course run's text; a part that did not run is left
// out with the reason. Where the array-size sweep traced its calls (--explain), the
// bottlenecks say what each call ran and what its timer brackets.

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
    std::string blocksMissing;         // why `blocks` is missing: "no CUDA device"
    std::string sizesMissing;          // why `sizes` is missing
    // Thrust's scan traced (the explain subcommand): its timeline as text, its Chrome trace
    // file's name beside performance.md, or why it was not traced.
    std::string thrustTimeline;
    std::string thrustTrace;
    std::string thrustUntraced;
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
