#pragma once
// Independent CPU references, written with the standard library rather than the CPU
// back end's loops, so that the CPU back end is checked too. Compaction and partition
// decide what is kept with ReferencePredicate, not with the Predicate code that the back
// ends run.

#include <algorithm>
#include <iterator>
#include <numeric>
#include <vector>

#include <stream_compaction/predicate.h>

#include "reference_predicate.hpp"

namespace TestingHelpers {

/** Exclusive prefix sum; sums wrap modulo 2^32 like the GPU's int adds. */
inline std::vector<int> referenceScan(const std::vector<int> &input) {
    std::vector<unsigned int> sums(input.begin(), input.end());
    std::exclusive_scan(sums.begin(), sums.end(), sums.begin(), 0u);
    return std::vector<int>(sums.begin(), sums.end());
}

/** Exclusive prefix sum into int64: exact for up to 2^32 int32 values (the 64-bit API's scan). */
inline std::vector<long long> referenceScanInt64(const std::vector<int> &input) {
    std::vector<long long> sums(input.size());
    std::exclusive_scan(input.begin(), input.end(), sums.begin(), 0LL);  // accumulates in long long
    return sums;
}

// The compaction, partition and sort references below hold any size, so they serve the
// 64-bit API (large.h) as they are.

/** The elements that `keep` accepts, in order. */
inline std::vector<int> referenceCompact(const std::vector<int> &input, StreamCompaction::Predicate keep) {
    std::vector<int> kept;
    std::copy_if(input.begin(), input.end(), std::back_inserter(kept), ReferencePredicate{keep});
    return kept;
}

/** Kept elements first, then the rest, each group in input order. */
inline std::vector<int> referencePartition(const std::vector<int> &input, StreamCompaction::Predicate keep) {
    std::vector<int> partitioned = input;
    std::stable_partition(partitioned.begin(), partitioned.end(), ReferencePredicate{keep});
    return partitioned;
}

/** How many elements `keep` accepts. */
inline long long referenceKeptCount(const std::vector<int> &input, StreamCompaction::Predicate keep) {
    return static_cast<long long>(std::count_if(input.begin(), input.end(), ReferencePredicate{keep}));
}

/** Ascending order. */
inline std::vector<int> referenceSort(const std::vector<int> &input) {
    std::vector<int> sorted = input;
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

}  // namespace TestingHelpers
