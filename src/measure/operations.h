#pragma once
// The operations the harness runs, each described in one place (operations.cpp): its
// name, the course section it prints, how a back end offers and runs it, its input
// generator, its CPU reference and the bytes counted for its bandwidth. Adding an
// operation is one description there, plus its entry points in backends.h.

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include <stream_compaction/backends.h>

namespace Harness {

enum class Op { Scan, Compact, Partition, Sort, SortPairs, SortUnsigned };
constexpr Op kAllOps[] = {Op::Scan, Op::Compact, Op::Partition, Op::Sort, Op::SortPairs, Op::SortUnsigned};
/** What a sweep runs when --ops is not given: the course's operations and its radix sort. */
constexpr Op kDefaultOps[] = {Op::Scan, Op::Compact, Op::Partition, Op::Sort};

/** One input of a sweep: an op at a size (its SIZE - 3 companion goes with it). */
struct SweepInput {
    Op op = Op::Scan;
    long long size = 0;

    bool operator==(const SweepInput &other) const { return op == other.op && size == other.size; }
};

/** Whether n is past the course's `int n` (2^31 - 1), so that only the 64-bit entry points take it. */
constexpr bool pastIntSizes(long long n) { return n > std::numeric_limits<int>::max(); }

struct Result;  // runner.h: what an operation wrote, or should have

/**
 * The value sort-pairs gives the key at index i: the index times an odd constant, modulo
 * 2^32, so that every value is distinct and says which input position it came from, and
 * a sort that is not stable, or moves a value without its key, cannot pass.
 */
constexpr int pairValue(long long i) { return static_cast<int>(static_cast<unsigned>(i) * 2654435761u); }

/** The keys followed by their values (pairValue): a sort-pairs call's input as its arrays hold it. */
std::vector<int> withPairValues(const std::vector<int> &keys);

struct Operation {
    Op op;
    const char *name;           // as on the command line and in reports: "scan"
    const char *courseSection;  // the course run's banner: "SCAN TESTS"; nullptr: not in the course run
    const char *bytesCounted;   // how trafficBytes counts, as the reports say it
    bool returnsCount;          // compact and partition say how many they kept
    bool keptOnly;              // compact: only the kept elements are defined in the output
    // Sort-pairs: each of the n keys carries a value (pairValue(i)); the call's input and
    // output arrays hold the n keys, then the n values, and a result's output does too.
    // The harness's inputs (randomInput) stay n keys; the runner adds the values.
    bool pairs = false;

    /** Whether the back end offers it, through the 64-bit entry points when `wide`. */
    bool (*offeredBy)(const StreamCompaction::Backend &backend, bool wide);

    /**
     * One call with int outputs (all but the 64-bit scan, below). A compaction or
     * partition through the 32-bit entry points writes its count to *kept (device memory
     * for a GPU back end) and returns -1; through the 64-bit ones it returns the count.
     * Every other call returns n.
     */
    long long (*call)(const StreamCompaction::Backend &backend, bool wide, long long n, int *out, const int *in,
                      StreamCompaction::Predicate keep, int *kept);

    /** The 64-bit entry point whose outputs are int64 sums (scan only; else nullptr). */
    void (*callInt64Sums)(const StreamCompaction::Backend &backend, std::size_t n, long long *out,
                          const int *in) = nullptr;

    /** Bytes read and written, as counted for effective bandwidth. */
    double (*trafficBytes)(long long n, long long kept);

    /**
     * A random input from the seeded generator (TestingHelpers::setSeed). Operations with
     * the same generator share one input in the course run, as the course's do.
     */
    std::vector<int> (*randomInput)(long long size);

    /** The expected result, from independent CPU references; int64 sums when `int64Sums`. */
    Result (*expected)(const std::vector<int> &input, StreamCompaction::Predicate keep, bool int64Sums);
};

/** The description of `op`. */
const Operation &describe(Op op);

/** "scan", "compact", "partition", "sort", "sort-pairs", "sort-unsigned". */
inline const char *opName(Op op) { return describe(op).name; }

/** Whether the back end offers the operation for the course's `int n`. */
inline bool offers(const StreamCompaction::Backend &backend, Op op) { return describe(op).offeredBy(backend, false); }

/** Whether the back end offers the operation for std::size_t counts (Backend::scan64, ...). */
inline bool offers64(const StreamCompaction::Backend &backend, Op op) { return describe(op).offeredBy(backend, true); }

/**
 * The course run's inputs at SIZE `size` from `seed`, drawn as its sections draw them:
 * the generator seeded once, then each course operation's input in the course's order
 * (scan's, compaction's, ...), an operation with the same generator as the one before it
 * taking the same input. Calls `each(op, input)` for every course operation in turn,
 * until it returns false. The course run and the grade's course cases both take them.
 */
void forEachCourseInput(long long size, std::uint64_t seed,
                        const std::function<bool(Op, const std::vector<int> &)> &each);

/** The back ends named (command-line names) that offer the operation, in the order named. */
std::vector<const StreamCompaction::Backend *> offering(const std::vector<std::string> &names, Op op);

}  // namespace Harness
