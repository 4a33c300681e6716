#pragma once
// The default job: the course's test sequence, printed the way the course's README
// shows it ("** SCAN TESTS **", "==== cpu scan, power-of-two ====", "    passed").

#include <string>
#include <vector>

#include "cli/cli.h"

namespace Harness {

/**
 * Runs scan, compaction, partition and sort tests on SIZE and NPOT = SIZE - 3 random
 * ints for the chosen back ends, checking every result against an independent CPU
 * reference, and ends with "N passed, N failed, N skipped". Returns the exit status
 * (ExitStatus): kExitFailed if any result failed, kExitNothingRan if every test was
 * skipped, else kExitVerified (GPU tests are skipped, not failed, without a CUDA
 * device). CUDA errors propagate as CudaError. A course submission's tests (its student-*
 * back ends) run first, each in a child process forked before this process's first CUDA
 * call, and are printed in their places: a signal, an exit() or a hang past 30 s (or ten
 * times --max-time) fails that test alone, with a "FAIL: student-naive scan crashed:
 * SIGSEGV (segmentation fault)" line, and a GPU fault leaves the later tests their own
 * context.
 */
int runCourseSequence(const Options &options);

/** The one-line header: program, GPU, size, seed, block size, timing method. */
std::string courseHeader(const Options &options);

}  // namespace Harness
