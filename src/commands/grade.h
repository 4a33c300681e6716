#pragma once
// The grading run (--grade): every course function of a loaded course submission
// (student.h) on the course's two sizes and on edge cases, each call on a poisoned output
// and checked against the project's references, reported as a table of cases x functions
// (docs/student-implementation.md).

#include <cstdint>
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
    long long index = -1;  // FailValue: the index its detail names (-1: it names none)
    // What differed, what was thrown, how the process ended; for a passed cell, what the
    // course's rules let pass (Verdict::note), or "".
    std::string detail;
    std::string hint;  // a failure's likely cause (hints.h), or ""
};

/** "passed", "passed (note)", "FAIL VALUE at 17", "FAIL COUNT", "crashed", "not offered", "not built", "skipped", "not run". */
std::string cellText(const GradeCell &cell);

/** A finished grade: what its reports say. */
struct GradeResults {
    std::string submission;  // the submission's folder
    std::string gpu;         // the GPU the cases ran on, as a child described it
    long long size = 0;
    std::uint64_t seed = 0;
    int blockSize = 0;
    std::vector<std::string> functions;  // the columns: "cpu scan", ...
    std::vector<GradeCase> cases;        // the rows
    std::vector<std::vector<GradeCell>> cells;  // cells[function][case]
    std::string lost;  // why the GPU could not be used after a fault, or ""
};

/**
 * The lines under the grade's table: each function's failures, those alike (the same
 * outcome, the same hint and a detail alike but for its numbers) in one line; its passes
 * with a note, alike, in one line; a function that failed only at sizes that are not a
 * power of two, with sizeHint's hint; a column's "not offered" once; the GPU fault; how
 * many were skipped.
 */
std::vector<std::string> gradeNotes(const GradeResults &results);

/** The whole report in `format`: the table of cases x functions, the notes and the counts. */
std::string renderGrade(const GradeResults &results, Format format);

/** How many cells passed, and how many failed (every outcome but passed and skipped). */
long long gradePassed(const GradeResults &results);
long long gradeFailed(const GradeResults &results);

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
