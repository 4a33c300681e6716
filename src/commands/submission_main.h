#pragma once
// What a course submission's own src/main.cpp does before its first test. The harness
// never runs that main(), so a function it calls there (a setup of the submission's own)
// has not run when the harness calls the submission's functions.

#include <string>
#include <vector>

namespace Harness {

/**
 * The functions a course submission's src/main.cpp (its text, `mainSource`) calls in
 * main() before its first test (the first printDesc(...)), other than the course's test
 * helpers and functions, the language's, C's, CUDA's and std::'s: "StreamCompaction::
 * Radix::init". The harness never runs main.cpp, so a crash may come from their absence.
 * A plain text scan (comments and literals left out); none when there is no printDesc.
 */
std::vector<std::string> callsBeforeTests(const std::string &mainSource);

/**
 * The note for a crash of the loaded submission's function when its src/main.cpp calls
 * its own functions before the tests ("your src/main.cpp calls X() before the tests;
 * ..."); "" when it calls none, or has no main.cpp.
 */
std::string mainNote();

}  // namespace Harness
