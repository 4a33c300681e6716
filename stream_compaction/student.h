#pragma once
// A course submission as back ends. `make run STUDENT=DIR` (CMake: -DSC_STUDENT_DIR=DIR)
// builds the course project in DIR apart from this library, by submission/build.cmake,
// into a shared library that exports one table of C function pointers
// (submission_table.h); load() opens it, and its functions become the rows student-cpu,
// student-naive, student-efficient and student-thrust, next to the project's rows of the
// same names in backends(). Their entry points take host arrays and are timed by the
// implementation (Backend::implementationTimer). docs/student-implementation.md.

#include <string>
#include <vector>

#include "backends.h"

namespace StreamCompaction {
namespace Student {

/**
 * Loads the configured submission, once: the environment variable SC_STUDENT_LIBRARY (the
 * path of a built libsc_submission.so) if set, else the one built in with
 * SC_STUDENT_DIR; without either it does nothing. The program calls it before anything
 * reads the registry, so that backends() lists the submission's rows; the library and
 * the tests never call it, and see the project's rows only. A submission that did not
 * build or load still gets its rows, offering nothing, and problem() says why. Never
 * calls CUDA. The submission's extern "C" harnessSetup(), if it defines one, is called
 * once per process before the first of its functions; what it throws fails every call
 * of that process (ImplementationError: "harnessSetup() threw: ...").
 */
void load();

/** Whether load() found a configured submission (built or not). */
bool loaded();

/** The submission's root folder, as it was built; "" when unknown. */
const std::string &directory();

/**
 * Why the submission's functions cannot run, "" when they can: its compiler's first
 * errors with file and line ("the course submission in DIR does not compile: ..."), or
 * why its library did not load.
 */
const std::string &problem();

/** Its rows in course order (student-cpu, -naive, -efficient, -thrust); empty unless loaded(). */
const std::vector<Backend> &backends();

/**
 * The submission's CPU::compactWithScan as a row of its own (its `compact`), which the
 * course run and the grade run beside compactWithoutScan, the student-cpu row's.
 */
const Backend &cpuCompactWithScan();

/** One of the course's seven functions, as the submission offers it or not. */
struct CourseFunction {
    const char *label;   // "efficient compact": the grade table's column
    const char *symbol;  // "StreamCompaction::Efficient::compact"
    const Backend *row;  // the row that runs it: one of backends(), or cpuCompactWithScan()
    bool compacts;       // the row's compact; else its scan
    bool offered;        // whether the submission defines it with the course's type
};

/** cpu scan, compactWithoutScan and compactWithScan, naive scan, efficient scan and compact, thrust scan; empty unless loaded(). */
const std::vector<CourseFunction> &courseFunctions();

}  // namespace Student
}  // namespace StreamCompaction
