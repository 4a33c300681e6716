#pragma once
// Independent CPU references, written with the standard library rather than the CPU
// back end's loops, so that the CPU back end is checked too. Compaction and partition
// decide what is kept with ReferencePredicate, not with the Predicate code that the back
// ends run.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <numeric>
#include <thread>
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

// The sorts verify every GPU sort, up to n = 2^30 and beyond, so from
// Detail::kParallelSortThreshold elements on they sort on every core.
namespace Detail {

/** From this many elements on, a reference sort runs on several threads. */
inline constexpr std::size_t kParallelSortThreshold = std::size_t{1} << 22;

/** Threads for a large sort: one per core, 1 to 32. */
inline unsigned sortThreads() { return std::clamp(std::thread::hardware_concurrency(), 1u, 32u); }

/** Where share p starts when [0, n) is cut into `parts` shares one apart in size at most (p = parts gives n). */
inline std::size_t shareStart(std::size_t n, std::size_t parts, std::size_t p) {
    return n / parts * p + std::min(p, n % parts);
}

/** Runs task(0) ... task(count - 1), each on a thread of its own (task 0 on this one). */
template <typename Task>
void inParallel(std::size_t count, const Task &task) {
    std::vector<std::thread> workers;
    workers.reserve(count);
    try {
        for (std::size_t i = 1; i < count; ++i) workers.emplace_back(task, i);
    } catch (...) {
        for (std::thread &worker : workers) worker.join();
        throw;
    }
    task(0);
    for (std::thread &worker : workers) worker.join();
}

/** body(i) for every i in [0, n), `threads` contiguous shares side by side. */
template <typename Body>
void forEachInParallel(std::size_t n, unsigned threads, const Body &body) {
    inParallel(threads, [&](std::size_t t) {
        for (std::size_t i = shareStart(n, threads, t); i < shareStart(n, threads, t + 1); ++i) body(i);
    });
}

/**
 * Sorts data[0, n) by `less`: below `threshold` elements with std::sort; otherwise `threads`
 * threads std::sort a contiguous chunk each, then adjacent runs of chunks are merged
 * pairwise, the left run first, in rounds whose merges run side by side, between `data`
 * and a spare buffer. Like std::sort it is not stable: callers whose equal elements
 * differ make them unequal (referenceSortPairs orders by key and position).
 */
template <typename T, typename Less>
void sortInChunks(T *data, std::size_t n, Less less, std::size_t threshold, unsigned threads) {
    if (n < threshold || threads <= 1) {
        std::sort(data, data + n, less);
        return;
    }
    const std::size_t chunks = threads;
    std::vector<std::size_t> bounds(chunks + 1);  // chunk c is [bounds[c], bounds[c + 1])
    for (std::size_t c = 0; c <= chunks; ++c) bounds[c] = shareStart(n, chunks, c);
    std::size_t rounds = 0;
    for (std::size_t width = 1; width < chunks; width *= 2) ++rounds;

    // new T[n] rather than a vector, so that no single thread zeroes it first.
    const std::unique_ptr<T[]> spare(new T[n]);
    T *from = data;
    T *to = spare.get();
    // After an odd number of rounds the chunks start in the spare buffer, so that the
    // last round writes to `data`.
    if (rounds % 2 == 1) std::swap(from, to);
    inParallel(chunks, [&](std::size_t c) {
        if (from != data) std::copy(data + bounds[c], data + bounds[c + 1], from + bounds[c]);
        std::sort(from + bounds[c], from + bounds[c + 1], less);
    });
    // Round by round, runs of `width` chunks merge two by two into runs of 2 * width; a
    // last run without a partner is copied over (merged with an empty one).
    for (std::size_t width = 1; width < chunks; width *= 2) {
        inParallel((chunks + 2 * width - 1) / (2 * width), [&, width](std::size_t m) {
            const std::size_t first = bounds[2 * m * width];
            const std::size_t middle = bounds[std::min((2 * m + 1) * width, chunks)];
            const std::size_t last = bounds[std::min((2 * m + 2) * width, chunks)];
            std::merge(from + first, from + middle, from + middle, from + last, to + first, less);
        });
        std::swap(from, to);
    }
}

/** referenceSort, with the threshold and thread count as parameters for the tests. */
inline std::vector<int> sortKeys(const std::vector<int> &input, std::size_t threshold, unsigned threads) {
    std::vector<int> sorted = input;
    sortInChunks(sorted.data(), sorted.size(), std::less<int>(), threshold, threads);
    return sorted;
}

/** referenceSortPairs, with the threshold and thread count as parameters for the tests. */
inline std::vector<int> sortPairs(const std::vector<int> &pairs, std::size_t threshold, unsigned threads) {
    const std::size_t n = pairs.size() / 2;
    threads = std::max(threads, 1u);
    if (n >= threshold && n <= (std::uint64_t{1} << 32)) {
        // One 64-bit word per pair: the key with its sign bit flipped (so that unsigned
        // order is signed order) above the pair's position. Words are distinct and order
        // as (key, position) does, so any sort of them is the stable sort, in 8 bytes a pair.
        constexpr std::uint32_t kSignBit = 0x80000000u;
        const std::unique_ptr<std::uint64_t[]> words(new std::uint64_t[n]);  // not zeroed first
        forEachInParallel(n, threads, [&](std::size_t i) {
            words[i] = (std::uint64_t{static_cast<std::uint32_t>(pairs[i]) ^ kSignBit} << 32) | i;
        });
        sortInChunks(words.get(), n, std::less<std::uint64_t>(), threshold, threads);
        // The keys come back from the words; the values are gathered by position.
        std::vector<int> sorted(2 * n);
        forEachInParallel(n, threads, [&](std::size_t i) {
            sorted[i] = static_cast<int>(static_cast<std::uint32_t>(words[i] >> 32) ^ kSignBit);
            sorted[n + i] = pairs[n + (words[i] & 0xffffffffu)];
        });
        return sorted;
    }
    // Small inputs, and those too long for 32-bit positions: (key, position, value)
    // triples, ordered by (key, position).
    struct Pair {
        int key;
        std::size_t position;
        int value;
    };
    std::vector<Pair> ordered(n);
    for (std::size_t i = 0; i < n; ++i) ordered[i] = {pairs[i], i, pairs[n + i]};
    sortInChunks(
        ordered.data(), n,
        [](const Pair &a, const Pair &b) { return a.key != b.key ? a.key < b.key : a.position < b.position; },
        threshold, threads);
    std::vector<int> sorted(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        sorted[i] = ordered[i].key;
        sorted[n + i] = ordered[i].value;
    }
    return sorted;
}

}  // namespace Detail

/** Ascending order. */
inline std::vector<int> referenceSort(const std::vector<int> &input) {
    return Detail::sortKeys(input, Detail::kParallelSortThreshold, Detail::sortThreads());
}

/** Ascending order of the ints' 32-bit patterns read as unsigned: -1 (0xFFFFFFFF) last. */
inline std::vector<int> referenceSortUnsigned(const std::vector<int> &input) {
    std::vector<int> sorted = input;
    const auto unsignedLess = [](int a, int b) { return static_cast<unsigned>(a) < static_cast<unsigned>(b); };
    Detail::sortInChunks(sorted.data(), sorted.size(), unsignedLess, Detail::kParallelSortThreshold,
                         Detail::sortThreads());
    return sorted;
}

/**
 * A stable sort of pairs by key, from `pairs` = n keys then their n values; the result
 * the same way round. Each pair is ordered by (key, input position), which is what a
 * stable sort gives, with an unstable sort.
 */
inline std::vector<int> referenceSortPairs(const std::vector<int> &pairs) {
    return Detail::sortPairs(pairs, Detail::kParallelSortThreshold, Detail::sortThreads());
}

}  // namespace TestingHelpers
