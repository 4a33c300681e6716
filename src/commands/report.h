#pragma once
// `cis565_stream_compaction report` (make report STUDENT=DIR): the course's Performance
// Analysis section for a course submission's own code, or for the project's own course
// back ends without one, written into a folder as performance.md and its plots
// (report/performance.h). The program runs itself for each part (the course's tests, a
// block-size sweep, an array-size sweep), so that a crash in a submission's code ends
// that part alone, and shows one progress line over them all.

#include <cstdio>
#include <string>
#include <vector>

namespace Harness {

/**
 * Runs the report on `args`, the words after "report": [--out DIR] [--quick] [--quiet]
 * [--help]. Writes DIR/performance.md (DIR: performance/ by default), its plots beside it
 * and the runs' own outputs under DIR/data/; says on `out` what it wrote and what it left
 * out (the GPU parts without a CUDA device, the plots without matplotlib, with the
 * command that installs it). Returns 0 once performance.md is written; 1 when the
 * submission did not build or the file cannot be written; 2 for bad input.
 */
int runReport(const std::vector<std::string> &args, std::FILE *out, std::FILE *err);

/**
 * The report's sweeps' --ops for back ends `names`: "scan", "compact" or both, as far as
 * one of them offers each (a submission may have written its work-efficient scan and not
 * its compaction yet); both when none is known.
 */
std::string offeredOps(const std::vector<std::string> &names);

}  // namespace Harness
