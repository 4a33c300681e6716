#pragma once
// Runs one operation of one back end on one input, times it and checks it. The runner
// calls the library; it never launches a kernel itself.

#include <string>
#include <vector>

#include <stream_compaction/backends.h>

namespace Harness {

enum class Op { Scan, Compact, Partition, Sort };
constexpr Op kAllOps[] = {Op::Scan, Op::Compact, Op::Partition, Op::Sort};

/** "scan", "compact", "partition", "sort". */
const char *opName(Op op);

/** Whether the back end offers the operation. */
bool offers(const StreamCompaction::Backend &backend, Op op);

struct Timing {
    double medianMs = 0;
    double minMs = 0;
    double maxMs = 0;
    int reps = 0;
};

struct RunSettings {
    int warmup = 1;  // untimed calls first, so start-up and allocation stay out of the figures
    int reps = 5;    // timed calls; the median is reported
    StreamCompaction::Predicate keep = StreamCompaction::Predicate::nonZero();
};

struct Run {
    Timing timing;
    std::vector<int> output;  // every output element the operation defines
    int kept = 0;             // compact and partition: how many were kept
};

/**
 * Runs `op` on a GPU back end with the input on the device, or on the CPU back end with
 * host arrays. The output is poisoned before every call, so elements a call fails to
 * write show up in the comparison. Throws CudaError when CUDA fails, after
 * Common::recoverFromError() has made the device usable again.
 */
Run run(const StreamCompaction::Backend &backend, Op op, const std::vector<int> &input,
        const RunSettings &settings);

/**
 * A random input for `op` from the seeded generator (TestingHelpers::setSeed), as the
 * course makes them: for scan, size - 1 values in [0, 50) and a 0 at the end; for
 * compact and partition the same in [0, 4), so about a quarter are zeros; for sort,
 * keys over the whole int range, negatives included.
 */
std::vector<int> randomInput(Op op, long long size);

/** The expected result of `op`, from independent CPU references. */
struct Expected {
    std::vector<int> output;
    int kept = 0;
};
Expected expected(Op op, const std::vector<int> &input, StreamCompaction::Predicate keep);

/** The outcome of comparing a run with what was expected. */
struct Verdict {
    enum class Kind { Passed, FailValue, FailCount } kind = Kind::Passed;
    std::string detail;  // e.g. "expected 5 elements, got 6" or "a[17] = 3, b[17] = 4"
    bool passed() const { return kind == Kind::Passed; }
};
Verdict verify(Op op, const Run &actual, const Expected &expected);

/** The byte value written over outputs before each call, and the int it makes. */
constexpr int kPoisonByte = 0xCD;
constexpr int kPoisonValue = static_cast<int>(0xCDCDCDCDu);

}  // namespace Harness
