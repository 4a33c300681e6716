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

/**
 * A stable sort of pairs by key, from `pairs` = n keys then their n values; the result
 * the same way round. Each pair is ordered by (key, input position), which is what a
 * stable sort gives, with std::sort rather than std::stable_sort.
 */
inline std::vector<int> referenceSortPairs(const std::vector<int> &pairs) {
    const std::size_t n = pairs.size() / 2;
    struct Pair {
        int key;
        std::size_t position;
        int value;
    };
    std::vector<Pair> ordered(n);
    for (std::size_t i = 0; i < n; ++i) ordered[i] = {pairs[i], i, pairs[n + i]};
    std::sort(ordered.begin(), ordered.end(), [](const Pair &a, const Pair &b) {
        return a.key != b.key ? a.key < b.key : a.position < b.position;
    });
    std::vector<int> sorted(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        sorted[i] = ordered[i].key;
        sorted[n + i] = ordered[i].value;
    }
    return sorted;
}

}  // namespace TestingHelpers
