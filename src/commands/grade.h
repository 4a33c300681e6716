#pragma once
// The grading run (--grade): every course function of a loaded course submission
// (student.h) on the course's two sizes and on edge cases, each call on a poisoned output
// and checked against the project's references, reported as a table of cases x functions
// (docs/student-implementation.md).

#include <string>
#include <vector>

#include "cli/cli.h"

namespace Harness {

/** One input of the grade: the course's sizes, edge sizes and kinds of values. */
struct GradeCase {
    enum class Values {
        Course,    // the course's random input (its first n of SIZE for SIZE - 3)
        Zeros,     // every value 0
        NoZeros,   // the course's range without 0
        Negative,  // values from -bound to bound, zeros among them
    };
    std::string label;  // "2^20 - 3 (the course's)", "n = 33", "all zeros"
    long long n = 0;
    Values values = Values::Course;
};

/** The cases for a course SIZE: SIZE and SIZE - 3, n = 1, 2, 3, 31, ..., 2^24 + 7, then the value cases. */
std::vector<GradeCase> gradeCases(long long size);

/** What one call did. */
struct GradeCell {
    enum class Outcome { Passed, FailValue, FailCount, Crashed, NotOffered, NotBuilt, Skipped, NotRun };
    Outcome outcome = Outcome::NotRun;
    long long index = -1;  // FailValue: the first wrong index
    std::string detail;    // what differed, what was thrown, how the process ended
};

/** "passed", "FAIL VALUE at 17", "FAIL COUNT", "crashed", "not offered", "not built", "skipped", "not run". */
std::string cellText(const GradeCell &cell);

/**
 * Runs the grade for options.backends' submission rows at options.size and options.seed,
 * and writes the table to stdout in options.format and to every options.outputs file.
 * Each function's cases run in a child process, so that a crash (a signal, an exit() in
 * the submission's error check, a hang past a time limit) fails that case alone and the
 * next child goes on with the rest; the CPU's columns run first, and after a fault that
 * leaves the GPU unusable the remaining GPU cases are not run, with one line saying so.
 * Returns 0 when every case that ran passed, 1 otherwise, 2 when an output file cannot
 * be opened. Makes no CUDA call itself: CUDA is only used in the children.
 */
int runGrade(const Options &options);

}  // namespace Harness
