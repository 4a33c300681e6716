#pragma once
// Runs one operation of one back end on one input, times it and checks it. The runner
// calls the library; it never launches a kernel itself.

#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <stream_compaction/backends.h>

#include "measure/operations.h"
#include "measure/statistics.h"
#include "measure/trace.h"

namespace Harness {

/** How a cell's calls were timed, and what its samples came to (Statistics). */
struct Timing : Statistics {
    // For a back end timed by the implementation: what was wrong with its timer's
    // readings ("the timer read 0 ms on 5 of 5 calls"), or "". Readings that are not
    // numbers are left out of the figures.
    std::string note = {};
    bool cold = false;           // the L2 cache was flushed before every timed call
    bool held = false;           // every timed call ran with the stream held: no host launch time in it
    bool synchronizes = false;   // a GPU call that waits for the device: a host synchronisation is in it
    bool outOfTime = false;      // sampling stopped at maxTimeMs before the median was known
    bool byImplementation = false;  // the readings are a course submission's own timer's
    std::vector<double> samplesMs = {};  // the timed calls' readings, in call order (numbers only)
};

/**
 * How a cell is measured. With `reps` > 0, exactly that many timed calls; with 0, at
 * least minSamples calls, then until the noise of their median (medianNoise: the
 * half-width of its distribution-free 95% interval over it, which outliers do not widen)
 * is at most maxNoise with minTimeMs of timed work done, or until the cell's own calls
 * have taken maxTimeMs of wall time (other cells' turns between them not counted).
 */
struct RunSettings {
    int warmup = 1;  // untimed calls first, so start-up and allocation stay out of the figures
    int reps = 5;
    int minSamples = 10;
    double minTimeMs = 50;
    double maxNoise = 0.005;
    double maxTimeMs = 2000;
    bool cold = true;            // GPU: flush the L2 cache before every timed call
    bool blockingKernel = true;  // GPU: hold the stream while a call is enqueued
    StreamCompaction::Predicate keep = StreamCompaction::Predicate::nonZero();
    bool use64BitApi = false;  // a test hook: the 64-bit entry points at any n, not only past 2^31 - 1
    bool explain = false;      // run(): one more call after the timed ones, traced (Measurement::trace)
};

/** Whether a run of n elements calls the 64-bit entry points: past 2^31 - 1, or when settings ask. */
bool uses64BitApi(long long n, const RunSettings &settings);

/**
 * What an operation wrote, or should have: every output element it defines in `output`,
 * except for a scan through the 64-bit entry points, whose int64 sums are in `sums64`.
 */
struct Result {
    std::vector<int> output;
    std::vector<long long> sums64;
    long long kept = 0;  // compact and partition: how many were kept
};

struct Run : Result {
    Timing timing;
    // What the checks around the calls found, "" when nothing: the first write past the
    // output (into the guard elements after it, after any call), the first change a call
    // made to its input, and, after the last call, the first element a compaction wrote
    // past the count it returned but inside n (at index writtenPastCountAt).
    std::string outsideWrite;
    std::string inputChange;
    std::string writtenPastCount;
    long long writtenPastCountAt = -1;
    // The last call wrote no element of its output: every one still holds the poison.
    bool untouched = false;
    std::optional<Trace> trace;  // with RunSettings::explain: the traced call's
};

/** Elements after the output that every call must leave as poison. */
constexpr std::size_t kGuardElements = 4096;

/**
 * One cell's measurement, call by call, so that a sweep can take turns between cells
 * (interleaving): warmUp(), then sample() until done(), then finish().
 *
 * A GPU back end runs with the input on the device, a back end that takes host arrays
 * (StreamCompaction::takesHostArrays: the CPU, a course submission, whose own timer
 * gives the times) on host arrays, through the 64-bit entry points when uses64BitApi().
 * A GPU call is timed by CUDA events on the default stream around it, after an L2 flush
 * when settings.cold, with the stream held by a blocking kernel while it is enqueued
 * when settings.blockingKernel and the call does not wait for the device (a compaction's
 * or partition's count returned to the host: Backend::countsOnHost, or the 64-bit API;
 * a call found waiting, whose sample is dropped and whose later samples go without the
 * hold). A compaction's count is read after the stop event.
 * The output and kGuardElements after it are poisoned before every call, so that
 * elements a call fails to write show up in the comparison; after every call the guard
 * must still be poison, after the first and the last the input unchanged, and after the
 * last, every output element past those the call defines must be poison too
 * (Run::outsideWrite, Run::inputChange).
 * Every call is in an NVTX range named after the back end, the operation and the size
 * ("thrust scan, n = 1048576"), so that a profiler's timeline labels it.
 * Throws std::invalid_argument when the back end does not offer that entry point, and
 * CudaError when CUDA fails; after an error, call Common::afterError() once the
 * measurement is destroyed.
 */
class Measurement {
public:
    Measurement(const StreamCompaction::Backend &backend, Op op, const std::vector<int> &input,
                const RunSettings &settings);
    ~Measurement();
    Measurement(const Measurement &) = delete;
    Measurement &operator=(const Measurement &) = delete;

    void warmUp();
    bool done() const;
    void sample();
    Run finish();
    /** Where the cell's device output lies; nullptr for a back end that takes host arrays. */
    const void *deviceOutput() const;
    /**
     * One more call after finish(), traced (tracer.h) and never timed or checked, made as
     * the timed calls were: on a GPU back end's device buffers after the L2 flush (when
     * cold), with the stream held (when the timed calls were); on host arrays for a
     * submission, whose own timer's window the trace then explains. An untraced call with
     * CUPTI attached comes first, so that CUPTI's set-up is not in the traced one. A CPU
     * back end is not traced (Trace::hostOnly). Where CUPTI cannot trace, the trace says why.
     */
    Trace trace();

    struct Cell;

private:
    std::unique_ptr<Cell> cell_;
};

/**
 * A whole measurement of one cell (Measurement), and with settings.explain its traced
 * call (Run::trace). Throws as Measurement does, after
 * Common::afterError() has cleared the error (or marked the device lost, after a sticky
 * one).
 */
Run run(const StreamCompaction::Backend &backend, Op op, const std::vector<int> &input,
        const RunSettings &settings);

/**
 * A random input for `op` from the seeded generator (TestingHelpers::setSeed), as the
 * course makes them: for scan, size - 1 values in [0, 50) and a 0 at the end; for
 * compact and partition the same in [0, 4), so about a quarter are zeros; for sort,
 * keys over the whole int range, negatives included.
 */
inline std::vector<int> randomInput(Op op, long long size) { return describe(op).randomInput(size); }

/**
 * The expected result of `op`, from independent CPU references; a scan's sums in
 * `sums64` when `int64Sums` (for a run through the 64-bit entry points), else in `output`.
 */
using Expected = Result;
inline Expected expected(Op op, const std::vector<int> &input, StreamCompaction::Predicate keep,
                         bool int64Sums = false) {
    return describe(op).expected(input, keep, int64Sums);
}

/** The outcome of comparing a run with what was expected. */
struct Verdict {
    enum class Kind { Passed, FailValue, FailCount } kind = Kind::Passed;
    std::string detail;    // e.g. "expected 5 elements, got 6" or "a[17] = 3, expected 4"
    long long index = -1;  // the output index the detail names, -1 when it names none
    // Passed by the course's rules (Rules::Course): what the harness's stricter checks found.
    std::string note;
    // A failure's likely cause, for the student (failureHint, hints.h); "" when none is known.
    std::string hint;
    bool passed() const { return kind == Kind::Passed; }
};

/**
 * How strictly a run is judged. Strict: every check. Course: as the course's own
 * main.cpp judges a submission, which zeroes the output before each call and compares a
 * compaction's first `count` elements only; what only the stricter checks find (an
 * element left unwritten where the expected value is 0, a write past the count but inside
 * n) passes, with a Verdict::note.
 */
enum class Rules { Strict, Course };

/** The rules a back end is judged by: Course for a submission's (timedByImplementation), else Strict. */
Rules rulesFor(const StreamCompaction::Backend &backend);

/**
 * Compares a run with what was expected, in this order: a changed input (FailValue), a
 * compaction's or partition's count (FailCount), a write past the output (FailValue), a
 * write past the count (FailValue; a note under Rules::Course), then the output elements,
 * the first difference named (FailValue). A failure carries its hint (failureHint).
 */
Verdict verify(Op op, const Run &actual, const Expected &expected, Rules rules = Rules::Strict);

/** The byte written over every output byte before each call. */
constexpr int kPoisonByte = 0xCD;

/** A T whose bytes are all kPoisonByte: what an element holds until a call writes it. */
template <typename T>
T poisonValue() {
    T value;
    std::memset(&value, kPoisonByte, sizeof value);
    return value;
}

}  // namespace Harness
