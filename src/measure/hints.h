#pragma once
// Hints a student can act on: what a wrong result looks like (an output never written, an
// inclusive scan, a count one off), and a function that fails only at sizes that are not
// a power of two. Pure functions of the results, shared by the course run, the grade and
// the report.

#include <string>
#include <vector>

#include "measure/explain.h"
#include "measure/runner.h"

namespace Harness {

/**
 * What a failed run's output suggests, or "" when nothing is recognised, first match
 * first: an output never written ("wrote nothing: odata still holds the fill 0xCDCDCDCD
 * (-842150451); is this still the course's stub?"), a count of -1 (the course stub's
 * return), a count one off and which way, an inclusive scan (the output is the expected
 * one shifted left by one), or elements from the first wrong one on never written.
 */
std::string failureHint(Op op, const Run &actual, const Expected &expected);

/** One size a function was tested at, and whether it passed there. */
struct SizeOutcome {
    long long n = 0;
    bool passed = false;
};

/**
 * When every failure is at a size that is not a power of two and some power of two
 * passed: "fails only at SIZE - 3: check the padding to the next power of two" (the
 * course run's two sizes), or the same naming the failing sizes; else "".
 */
std::string sizeHint(const std::vector<SizeOutcome> &outcomes);

/**
 * For a submission's traced call (--explain) whose time went mostly to allocations, frees
 * and host copies inside its own timer: "your timer brackets 3 cudaMalloc, 2 cudaMemcpy
 * and 3 cudaFree (85% of the call): ..."; else "".
 */
std::string timerHint(const Explanation &explanation);

}  // namespace Harness
