#pragma once
// The command line: what the user asked for, parsed and validated before anything runs.

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
    // With reps = 0, a cell's calls go on until the noise is known (RunSettings).
    int minSamples = 10;
    double minTimeMs = 50;
    double maxNoise = 0.005;  // standard deviation / mean
    double maxTimeMs = 2000;  // kCourseMaxTimeMs for the course's test sequence
    bool hot = false;              // leave the L2 cache as the last call left it (default: flushed)
    bool blockingKernel = true;    // hold the stream while a call is enqueued
    bool interleave = true;        // a sweep's back ends take turns, call by call, within a size
    // A sweep measures each input this many times, its cells' buffers (and the back ends'
    // cached device memory) freed and allocated again for each round; a cell's figures
    // pool the rounds' calls, and its row gives the spread of the rounds' medians.
    int rounds = 1;
    // A sweep runs in this many processes, one after another: N - 1 child processes of
    // the program (processes.h), then this one; a cell's figures pool every process's rounds.
    int processes = 1;
    // With maxProcesses above processes, more child processes follow the first
    // processes - 1, up to maxProcesses in all, each measuring only the inputs (op and
    // size) where a figure's 95% interval over the processes so far reaches further
    // than +-maxProcessError from it (unsettledInputs); 0: as processes.
    int maxProcesses = 0;
    double maxProcessError = 0.01;
    // Set in a child process only, by the parent (hidden flags): the file it writes its
    // cells to, which process it is (from 1), and the inputs it measures (empty: all).
    std::string childCells;
    int childIndex = 0;
    std::vector<SweepInput> childInputs;

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

/** The most processes a sweep runs in (--processes, --max-processes). */
constexpr int kMaxProcesses = 64;

/** The --max-time of the course's test sequence unless given. */
constexpr double kCourseMaxTimeMs = 500;

/**
 * The largest size a sweep takes. The course's test sequence stops at 2^31 - 1, its
 * API's `int n`; a sweep runs larger sizes on the back ends with 64-bit entry points.
 */
constexpr long long kMaxSweepSize = 1LL << 33;

/**
 * A size as written on the command line: "1048576", "2^20" or "1M" (K, M and G are
 * 2^10, 2^20 and 2^30). Throws std::invalid_argument saying what is accepted when the
 * text is not a size, is zero, or is larger than kMaxSweepSize.
 */
long long parseSize(const std::string &text);

/**
 * Comma-separated sizes and power-of-two ranges: "1000,4096,1M,2^20", "2^16:2^28"
 * (every power of two from 2^16 to 2^28) or "2^16:2^28:2" (every second one). Throws
 * std::invalid_argument naming the bad item and what is accepted.
 */
std::vector<long long> parseSizeList(const std::string &text);

/**
 * One block size, in parseSize's syntax ("256", "2^8"; "1K" is 1024): a multiple of 32
 * from 32 to 1024. Throws std::invalid_argument saying what is accepted.
 */
int parseBlockSize(const std::string &text);

/** Like parseSizeList, each value a block size: a multiple of 32 from 32 to 1024. */
std::vector<int> parseBlockSizeList(const std::string &text);

/** "scan", "compact", "partition" or "sort"; throws std::invalid_argument naming them. */
Op parseOp(const std::string &name);

/**
 * A child process's inputs as the parent writes them (sweepInputsText): "scan:1024,
 * compact:4096", an op's name and a size each. Throws std::invalid_argument naming the
 * item that is not one.
 */
std::vector<SweepInput> parseSweepInputs(const std::string &text);

/** The text of `inputs` that parseSweepInputs reads back. */
std::string sweepInputsText(const std::vector<SweepInput> &inputs);

/** "nonzero", "mod:K" (K >= 1) or "gt:T"; throws std::invalid_argument naming them. */
StreamCompaction::Predicate parsePredicate(const std::string &text);

/**
 * "unknown back end 'cpus'; did you mean 'cpu'? back ends: cpu, naive, ...": `what` and
 * `plural` name the kind, the suggestion is the nearest of `names` when it is a likely
 * slip (a few letters off), and every name follows.
 */
std::string unknownNameMessage(const std::string &what, const std::string &plural, const std::string &name,
                               const std::vector<std::string> &names);

/** "2^20" for a power of two, else the plain number. */
std::string formatSize(long long n);

/**
 * A time as written on the command line: "0.05" or "0.05s" (seconds), "50ms"; returns ms.
 * Throws std::invalid_argument saying what is accepted when it is not a time above 0.
 */
double parseTimeMs(const std::string &text);

/**
 * A noise limit: "0.5" or "0.5%" (percent), above 0 and at most 100; returns a fraction.
 * Throws std::invalid_argument saying that the text is not `what` and what is accepted.
 */
double parseNoise(const std::string &text, const char *what = "a noise limit");

/** The RunSettings the options ask for. */
RunSettings runSettings(const Options &options);

/**
 * How the figures are taken, as the reports say it: "median of calls until the noise is
 * at most 0.5% (at least 10 calls and 50 ms, at most 2 s) after 1 untimed; GPU: L2
 * flushed before each, launch time out (blocking kernel)".
 */
std::string samplingText(const Options &options);

/**
 * Fills `options` from argv. Returns -1 to go on, or the exit status to stop with:
 * 0 after --help or --version, 2 after a bad flag or value (reported on stderr as one
 * line naming the flag and what it accepts), a --size past 2^31 - 1 included when no
 * sweep is asked for.
 */
int parseCommandLine(int argc, const char *const *argv, Options &options);

}  // namespace Harness
