#pragma once
// The textbook's compaction chapter on the GPU, for any n: single-block compaction
// (6.1: flags, a shared-memory exclusive scan, a scatter), the three-kernel multi-block
// compaction (6.2: compact each block locally and count, scan the counts, stitch), stable
// partition (6.3: one scan per group) and its generalisation to k buckets.
//
// All four are one primitive, a stable split: each value joins one of a few buckets (or
// none, when compaction drops it); every block ranks its values inside their buckets with
// one shared-memory scan per bucket and stages them bucket by bucket; an exclusive scan of
// the per-block bucket counts, bucket-major, gives every block's place in every bucket;
// a stitch kernel moves the staged values there. The radix sort (radix.h) is this split
// once per digit.

#include <string>
#include <vector>

#include "backends.h"
#include "common.h"
#include "predicate.h"

namespace StreamCompaction {
namespace Textbook {

StreamCompaction::Common::PerformanceTimer &timer();

/** The most buckets one split takes: shared memory holds one scan per bucket. */
constexpr int kMaxBuckets = 16;

/**
 * Values per thread: a block splits a tile of Common::blockSize() * kItemsPerThread
 * values, each thread a run of consecutive ones, so that the scan's barriers are shared.
 */
constexpr int kItemsPerThread = 8;

/**
 * Which of count() buckets a value belongs to: the multi-way partition's analogue of
 * Predicate, evaluated the same way on host and device.
 */
struct BucketFunction {
    enum class Kind { Modulo, Digit, SignedDigit };

    Kind kind = Kind::Modulo;
    int operand = 1;  // k for Modulo; the digit's lowest bit for Digit and SignedDigit
    int bits = 0;     // the digit's width for Digit and SignedDigit

    /** v mod k as 0..k-1, negative v included (-1 mod 4 is bucket 3). */
    static BucketFunction modulo(int k) { return {Kind::Modulo, k, 0}; }
    /** Bits [shift, shift + bits) of v read as unsigned: 2^bits buckets. */
    static BucketFunction digit(int shift, int bits) { return {Kind::Digit, shift, bits}; }
    /** The same digit of v with its sign bit flipped, so negative values take the lower buckets. */
    static BucketFunction signedDigit(int shift, int bits) { return {Kind::SignedDigit, shift, bits}; }

    int count() const { return kind == Kind::Modulo ? operand : 1 << bits; }

    SC_HOST_DEVICE int operator()(int v) const {
        switch (kind) {
            case Kind::Digit: return static_cast<int>((static_cast<unsigned>(v) >> operand) & ((1u << bits) - 1));
            case Kind::SignedDigit:
                return static_cast<int>(((static_cast<unsigned>(v) ^ 0x80000000u) >> operand) & ((1u << bits) - 1));
            default: {
                int remainder = v % operand;
                return remainder < 0 ? remainder + operand : remainder;
            }
        }
    }

    /** "mod:4", "digit:8+4", "sdigit:28+4". */
    std::string name() const {
        switch (kind) {
            case Kind::Digit: return "digit:" + std::to_string(operand) + "+" + std::to_string(bits);
            case Kind::SignedDigit: return "sdigit:" + std::to_string(operand) + "+" + std::to_string(bits);
            default: return "mod:" + std::to_string(operand);
        }
    }
};

/**
 * The registry row: compaction (6.1's single block when n fits in one block, 6.2's three
 * kernels otherwise) and stable partition (6.3: the kept elements, then the rest, each
 * group in input order), at Common::blockSize() threads.
 */
const Backend &backend();

/** 6.2's intermediate figures, as the chapter prints them. */
struct CompactionSteps {
    int kept = 0;
    std::vector<int> blockCounts;   // kernel 1: how many elements each block kept
    std::vector<int> blockOffsets;  // kernel 2: the exclusive scan of blockCounts
};

/**
 * The compaction, also returning the per-block counts and offsets (one block per
 * Common::blockSize() * kItemsPerThread elements), copied back after the timer stops.
 */
CompactionSteps compactDeviceSteps(int n, int *dOut, const int *dIn, Predicate keep);

/**
 * Stable multi-way partition of device arrays into bucketOf.count() buckets (at most
 * kMaxBuckets): bucket 0's elements, then bucket 1's, ..., each in input order. Returns
 * count() + 1 offsets: bucket b occupies [offsets[b], offsets[b + 1]), offsets[count()] = n.
 */
std::vector<int> multiPartitionDevice(int n, int *dOut, const int *dIn, BucketFunction bucketOf);

// ---- The split primitive itself, for other back ends (the radix sort) ----

/**
 * Reserves the scratch that a split of n values into `buckets` buckets needs, with or
 * without values carried alongside the keys. Call it before starting a timer: a split
 * never allocates.
 */
void reserveSplit(int n, int buckets, bool withValues);

/**
 * One stable split of n device keys by bucketOf, untimed: keysOut gets bucket 0's keys,
 * then bucket 1's, ..., each in input order. When valuesIn is not null, valuesOut gets
 * each key's value at the key's new position. Inputs and outputs must not overlap.
 */
void splitDevice(int n, int *keysOut, const int *keysIn, int *valuesOut, const int *valuesIn,
                 BucketFunction bucketOf);

}  // namespace Textbook
}  // namespace StreamCompaction
