// cis565_stream_compaction: the course's test sequence by default, a sweep on request.

#include <exception>

#include <fmt/format.h>

#include "cli.h"
#include "course_run.h"
#include "sweep.h"

int main(int argc, char **argv) {
    Harness::Options options;
    const int status = Harness::parseCommandLine(argc, argv, options);
    if (status >= 0) return status;
    try {
        return options.sweep ? Harness::runSweep(options) : Harness::runCourseSequence(options);
    } catch (const std::exception &e) {
        std::fflush(stdout);
        fmt::print(stderr, "cis565_stream_compaction: error: {}\n", e.what());
        return 1;
    }
}
