#pragma once
// What the user asked for on the command line (Options), and the limits it is checked
// against.

#include <cstdint>
#include <string>
#include <vector>

#include <stream_compaction/predicate.h>

#include "report/reporters.h"
#include "measure/runner.h"

namespace Harness {

struct Options {
    long long size = 1 << 20;           // the course run's SIZE; NPOT = SIZE - 3
    int blockSize = 128;                // threads per block, where a back end takes one
    std::uint64_t seed = 565;           // the random inputs' seed
    std::vector<std::string> backends;  // command-line names; all of them by default
    int reps = 0;                       // > 0 (--reps): exactly this many timed calls per figure
    int warmup = 1;                     // untimed calls before them
    // With reps = 0, a cell's calls go on until its median is known (RunSettings).
    int minSamples = 10;
    double minTimeMs = 50;
    double maxNoise = 0.005;  // the half-width of the median's 95% interval, relative to it
    double maxTimeMs = 2000;  // kCourseMaxTimeMs for the course's test sequence
    bool hot = false;              // leave the L2 cache as the last call left it (default: flushed)
    bool blockingKernel = true;    // hold the stream while a call is enqueued
    bool interleave = true;        // a sweep's back ends take turns, call by call, within a size
    bool explain = false;          // trace one more call per figure (docs/explain.md)
    // A sweep measures each input this many times, its cells' buffers (and the back ends'
    // cached device memory) freed and allocated again for each round; a cell's figures
    // pool the rounds' calls, and its row gives the spread of the rounds' medians.
    int rounds = 1;
    // A sweep runs in this many processes, one after another: N - 1 child processes of
    // the program (processes.h), then this one; a cell's figures pool every process's rounds.
    int processes = 1;

    // A sweep runs instead of the course sequence when any sweep or report flag is given;
    // --grade runs the grade (grade.h) instead of either.
    bool sweep = false;
    bool grade = false;
    std::vector<long long> sizes;  // {size} unless --sizes
    std::vector<int> blockSizes;   // {blockSize} unless --block-sizes
    std::vector<Op> ops;           // every op unless --ops
    bool npot = true;              // also measure SIZE - 3 for every power of two SIZE >= 4
    StreamCompaction::Predicate keep = StreamCompaction::Predicate::nonZero();
    Format format = Format::Text;      // stdout's format
    std::vector<std::string> outputs;  // files, each in the format its extension names
    bool quiet = false;                // no progress line
    std::string commandLine;           // as typed, for the reports
    std::string program;                  // argv[0]
    std::vector<std::string> arguments;  // argv[1] on, for a child process's command line
};

/** The most processes a sweep runs in (--processes). */
constexpr int kMaxProcesses = 64;

/** The --max-time of the course's test sequence unless given. */
constexpr double kCourseMaxTimeMs = 500;

/**
 * The largest size a sweep takes. The course's test sequence stops at 2^31 - 1, its
 * API's `int n`; a sweep runs larger sizes on the back ends with 64-bit entry points.
 */
constexpr long long kMaxSweepSize = 1LL << 33;

}  // namespace Harness
