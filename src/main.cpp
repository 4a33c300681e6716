// cis565_stream_compaction: the course's test sequence by default, a sweep or the grade of
// a course submission on request; a subcommand (commands/subcommands.h) as its first word.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <stream_compaction/student.h>

#include "cli/cli.h"
#include "commands/course_run.h"
#include "commands/grade.h"
#include "commands/subcommands.h"
#include "sweep/sweep.h"

int main(int argc, char **argv) {
    // Each line reaches a pipe (| tee log) as it is printed, not when a buffer fills.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    if (const Harness::Subcommand *sub = argc > 1 ? Harness::findSubcommand(argv[1]) : nullptr) {
        return sub->run(std::vector<std::string>(argv + 2, argv + argc), stdout, stderr);
    }
    // A course submission's rows join the registry before anything reads it.
    StreamCompaction::Student::load();
    Harness::Options options;
    const int status = Harness::parseCommandLine(argc, argv, options);
    if (status >= 0) return status;
    // A submission that did not build: its errors first; the project's own back ends
    // still run, and the exit status says that the submission's did not.
    const std::string &problem = StreamCompaction::Student::problem();
    if (!problem.empty()) fmt::print(stderr, "cis565_stream_compaction: {}\n\n", problem);
    try {
        const int result = options.grade   ? Harness::runGrade(options)
                           : options.sweep ? Harness::runSweep(options)
                                           : Harness::runCourseSequence(options);
        return problem.empty() ? result : std::max(result, 1);
    } catch (const std::exception &e) {
        std::fflush(stdout);
        fmt::print(stderr, "cis565_stream_compaction: error: {}\n", e.what());
        return 1;
    }
}
