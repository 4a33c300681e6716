#pragma once
// The default job: the course's test sequence, printed the way the course's README
// shows it ("** SCAN TESTS **", "==== cpu scan, power-of-two ====", "    passed").

#include "cli/cli.h"

namespace Harness {

/**
 * Runs scan, compaction, partition and sort tests on SIZE and NPOT = SIZE - 3 random
 * ints for the chosen back ends, checking every result against an independent CPU
 * reference, and ends with "N passed, N failed, N skipped". Returns the exit status
 * (ExitStatus): kExitFailed if any result failed, kExitNothingRan if every test was
 * skipped, else kExitVerified (GPU tests are skipped, not failed, without a CUDA
 * device). CUDA errors propagate as CudaError.
 */
int runCourseSequence(const Options &options);

/** The one-line header: program, GPU, size, seed, block size, timing method. */
std::string courseHeader(const Options &options);

}  // namespace Harness
