#pragma once
// A sweep's reports: tables for people (text, markdown), rows for programs (CSV, JSON).
// Text, markdown and JSON open with the run's context; CSV is plain (its header on the
// first line, then one row per cell, each naming its run, date, GPU and mode), its
// context in a JSON file beside it (contextPathFor). CSV and JSON rows are written and
// flushed as they arrive, tables when an operation's rows are complete.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "measure/device_info.h"
#include "measure/explain.h"
#include "measure/gpu_state.h"
#include "measure/runner.h"
#include "measure/statistics.h"

namespace Harness {

enum class Format { Text, Markdown, Csv, Json };

/** "text", "markdown", "csv", "json"; throws std::invalid_argument naming them. */
Format parseFormat(const std::string &name);

/** The format a file name's extension stands for (.txt, .md, .csv, .json, in any case), if any. */
std::optional<Format> formatForPath(const std::string &path);

/** What a report says about how and where it was made. */
struct Context {
    std::string runId;           // tells runs apart when their rows are joined: "20250131T120000Z-3fa2"
    std::string date;            // when the run started, UTC: "2025-01-31T12:00:00Z"
    std::string mode = "cold";   // "cold": the L2 cache flushed before every timed GPU call ("hot": left warm)
    std::string sampling;        // how the figures are taken (samplingText)
    std::string commandLine;
    std::string version;
    std::optional<DeviceInfo> gpu;  // none without a CUDA device
    double copyBandwidthGBs = 0;  // measured device-to-device copy: 2 x bytes / time; 0 without a GPU
    double copyNoise = 0;         // that measurement's standard deviation / mean
    double copyBandwidthEndGBs = 0;  // the same, measured again after the last cell; 0 until then
    std::size_t copyBytes = 0;    // bytes per copy it was measured with
    int copyReps = 0;
    std::string launchFloors;     // each GPU back end's empty call (n = 0): "cub scan 0.0031 ms, ..."
    double launchGapUs = 0;       // the GPU's time per launch of empty kernels in a row (measureLaunchGap); 0 without a GPU
    std::string launchGapMethod;  // how it was measured
    int processes = 1;            // how many processes measure each figure at least (--processes)
    std::string l2Flush;          // what the flush before a cold call writes
    std::string hostCpu;
    std::string hostCpus;           // the CPUs the process may run on: "0-15 (16 CPUs)" (cpuListText)
    std::string buildType;
    std::string gitRevision;
    std::string nvccVersion;        // the CUDA compiler's: "13.0.88"
    std::string cudaFlags;          // CMAKE_CUDA_FLAGS and the build type's: "-O3 -DNDEBUG"
    std::string cudaArchitectures;  // "90", "75-real,80-real,120", "native (90-real)"
    std::string ccclVersion;        // "CCCL 3.0.1 (CUB 3.0.1, Thrust 3.0.1)"
    GpuState gpuStateAtStart;       // read before the copy measurement; empty without NVML
    std::uint64_t seed = 0;
    int reps = 0;
    int warmup = 0;
    std::string keep;  // the predicate's name
};

/** One measured cell: an op on one back end, size and block size. */
struct Row {
    enum class Status { Passed, Failed, Skipped };

    Op op = Op::Scan;
    std::string backend;
    long long size = 0;
    bool npot = false;             // the SIZE - 3 companion of the power of two size + 3
    std::optional<int> blockSize;  // none for the CPU, where it does not apply
    Status status = Status::Passed;
    std::string note;                    // why it failed or was skipped
    Timing timing;                       // when not skipped
    std::optional<long long> kept;       // compact and partition
    std::optional<double> bandwidthGBs;  // bytes read + written / median time
    std::optional<double> copyFraction;  // bandwidth / measured copy bandwidth
    std::optional<double> speedupVsCpu;  // cpu median / this median
    std::optional<double> speedupVsCub;  // cub median / this median
    // The 95% intervals of the three ratios above (statistics.h): a speed-up whose
    // interval covers 1 is a tie.
    std::optional<Interval> copyFractionRange;
    std::optional<Interval> speedupVsCpuRange;
    std::optional<Interval> speedupVsCubRange;
    // --rounds > 1 or --processes > 1: the spread of the rounds' medians (every process's),
    // the largest over the smallest less 1 (PooledRounds); the median is the mean of the
    // rounds' medians, the other figures pool every round's calls.
    std::optional<double> roundSpread;
    // Each round's readings, in ms, as the sweep pooled them (a child process's record of
    // the cell, processes.h); empty for a cell that did not run.
    std::vector<std::vector<double>> roundSamplesMs;
    bool launchBound = false;  // within 1.5x of the back end's empty-call time: launch overhead, not work
    bool interleaved = false;  // its calls took turns with the other back ends' of the same input
    // The GPU's state (NVML, gpu_state.h) after the cell's last call, and whether a clock
    // limit slowed the GPU before or after it; none without NVML.
    std::optional<unsigned> smClockMHz;
    std::optional<unsigned> temperatureC;
    std::optional<double> powerW;
    bool throttled = false;
    // --explain: what one more call, traced after the timed ones, ran and what bounds it.
    std::optional<Explanation> explanation;
};

/** Receives a sweep's context, then its rows op by op. */
class Reporter {
public:
    virtual ~Reporter() = default;
    virtual void begin(const Context &context) = 0;
    virtual void add(const Row &row) = 0;
    /** Every row of the current op has been added. */
    virtual void endOp() = 0;
    /**
     * The report is cut short, `why` ("stopped by SIGINT"): called before end(). JSON
     * then ends with "complete": false and the reason, text and markdown with a line.
     */
    virtual void stop(const std::string &why) = 0;
    /** A warning about the whole run ("the copy bandwidth moved by 4%"), before end(). */
    virtual void warn(const std::string &) {}
    /** The context as it stands after the last row (the copy measured again), before end(). */
    virtual void closingContext(const Context &) {}
    virtual void end() = 0;
};

/**
 * The exit statuses of the program, which --help lists: every test or cell verified (or
 * some skipped), one failed, a bad command line or output (nothing run), nothing could
 * run (every one skipped); an interrupted sweep exits 128 + the signal (130, 143).
 */
enum ExitStatus : int { kExitVerified = 0, kExitFailed = 1, kExitBadInput = 2, kExitNothingRan = 3 };

/** How many tests or cells passed, failed and were skipped. */
struct Tally {
    long long passed = 0;
    long long failed = 0;
    long long skipped = 0;

    void count(Row::Status status);
    /** kExitFailed when one failed, kExitNothingRan when every one was skipped, else kExitVerified. */
    int exitStatus() const;
    /** The course run's last line: "10 passed, 0 failed, 30 skipped". */
    std::string courseSummary() const;
    /** A sweep's last line, on stderr: "24 cells verified, 0 failed, 6 skipped". */
    std::string sweepSummary() const;
};

/**
 * A reporter writing `format` to `out` (not owned), flushing what it writes. A write
 * that fails throws std::runtime_error naming `where` ("stdout", "'sweep.csv'").
 */
std::unique_ptr<Reporter> makeReporter(Format format, std::FILE *out, const std::string &where);

/**
 * A reporter writing only the context, as one JSON object, to `out` (not owned): the
 * FILE.context.json beside a CSV report FILE.csv.
 */
std::unique_ptr<Reporter> makeContextReporter(std::FILE *out, const std::string &where);

/** Where the context of the CSV report `csvPath` goes: "a/sweep.csv" -> "a/sweep.context.json". */
std::string contextPathFor(const std::string &csvPath);

/** "2^20", "2^20 - 3" for the companion (npot) of a power of two, or the plain number. */
std::string sizeLabel(long long size, bool npot);

/** `text` as one CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line break. */
std::string csvField(const std::string &text);

/** `text` on one line: every control character (line breaks, tabs) a space. */
std::string oneLine(std::string text);

}  // namespace Harness
