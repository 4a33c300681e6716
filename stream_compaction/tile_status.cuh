#pragma once
// The tile status protocol of the decoupled look-back (Merrill and Garland, "Single-pass
// Parallel Prefix Scan with Decoupled Look-back", 2016), shared by the decoupled back end
// (one status per tile) and Onesweep (one per tile and digit). A tile publishes its own
// sum (an aggregate) as soon as it knows it, and the sum of itself and every tile before
// it (an inclusive prefix) once it has looked back: read its predecessors' statuses,
// nearest first, waiting on any not yet published, adding aggregates up to the nearest
// inclusive prefix. Tiles take their indices from a counter (drawTileIndex), so every
// predecessor is running or done: the wait cannot deadlock.
//
// Three status layouts share one interface (publish; load, one poll; ready; flagOf;
// valueOf): PackedTileStatus (32-bit sums), PairedTileStatus (64-bit sums) and
// ClearedTileStatus (Onesweep's counts). A status in one 4- or 8-byte word is published
// with atomicExch, PairedTileStatus's 16-byte word with one volatile vector store, and
// each is polled with volatile loads: on the H200 that ran the decoupled scan at
// 94% of copy bandwidth, against 70% with cuda::atomic_ref's relaxed store and load
// (results/h200/perf-notes.md); one word needs no ordering with other memory. An epoch
// (the call's number) in a status makes one of an earlier call read as unpublished, so
// those need no clearing per call. Device code only: included by .cu files.

#include "device_primitives.cuh"

namespace StreamCompaction {
namespace Common {

constexpr unsigned kStatusAggregate = 1;  // a published status holds the tile's own sum,
constexpr unsigned kStatusInclusive = 2;  // or the sum up to and including the tile

constexpr unsigned long long kLastEpoch = (1ull << 30) - 1;  // the largest, in 30 bits

/** By one thread of the block: the block's tile index, the next the counter hands out. */
__device__ __forceinline__ unsigned drawTileIndex(unsigned *counter) { return atomicAdd(counter, 1u); }

/** 32-bit sums: one 64-bit word per tile, epoch (30 bits) | flag (2) | value (32), so
 * that one store publishes flag and value together and one load reads both. */
struct PackedTileStatus {
    using Value = unsigned;
    using Word = unsigned long long;
    static constexpr int kWordsPerTile = 1;
    unsigned long long *words;
    unsigned long long epoch;

    __device__ __forceinline__ void publish(long long tile, unsigned flag, Value value) const {
        atomicExch(&words[tile], (epoch << 34) | (static_cast<unsigned long long>(flag) << 32) | value);
    }
    __device__ __forceinline__ Word load(long long tile) const {
        return *static_cast<const volatile unsigned long long *>(&words[tile]);
    }
    __device__ __forceinline__ bool ready(Word word) const { return (word >> 34) == epoch; }
    __device__ __forceinline__ unsigned flagOf(Word word) const { return static_cast<unsigned>(word >> 32) & 3; }
    __device__ __forceinline__ Value valueOf(long long, Word w, unsigned) const { return static_cast<Value>(w); }
};

/** 64-bit sums, beside which a flag does not fit in 64 bits: 16 bytes per tile, [epoch << 2
 * | flag, value], published by one 16-byte volatile store and polled by one 16-byte load,
 * so flag and value travel together (as CUB's status of 8-byte sums, which relies on an
 * aligned 16-byte access being one transaction). */
struct PairedTileStatus {
    using Value = unsigned long long;
    using Word = ulonglong2;
    static constexpr int kWordsPerTile = 2;
    unsigned long long *words;
    unsigned long long epoch;

    __device__ __forceinline__ void publish(long long tile, unsigned flag, Value value) const {
        const unsigned long long tag = (epoch << 2) | flag;
        asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(words + 2 * tile), "l"(tag), "l"(value)
                     : "memory");
    }
    __device__ __forceinline__ Word load(long long tile) const {
        Word word;
        asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                     : "=l"(word.x), "=l"(word.y)
                     : "l"(words + 2 * tile)
                     : "memory");
        return word;
    }
    __device__ __forceinline__ bool ready(Word word) const { return (word.x >> 2) == epoch; }
    __device__ __forceinline__ unsigned flagOf(Word word) const { return static_cast<unsigned>(word.x & 3); }
    __device__ __forceinline__ Value valueOf(long long, Word word, unsigned) const { return word.y; }
};

/**
 * Onesweep's counts: one 32-bit word, kAggregateBit | count or kInclusiveBit | prefix, in
 * column `words` of a [tile][Stride] array. 0 is not published yet (what clearing
 * leaves), which a published word never is. A count is at most a tile's keys, far below
 * bit 30; a prefix at most n <= 2^31 - 1, which fits the 31 bits below kInclusiveBit.
 */
template <int Stride>
struct ClearedTileStatus {
    using Value = unsigned;
    using Word = unsigned;
    static constexpr unsigned kInclusiveBit = 1u << 31;
    static constexpr unsigned kAggregateBit = 1u << 30;
    unsigned *words;

    __device__ __forceinline__ void publish(long long tile, unsigned flag, Value value) const {
        atomicExch(&words[tile * Stride], (flag == kStatusInclusive ? kInclusiveBit : kAggregateBit) | value);
    }
    __device__ __forceinline__ Word load(long long tile) const {
        return *static_cast<const volatile unsigned *>(&words[tile * Stride]);
    }
    __device__ __forceinline__ bool ready(Word word) const { return word != 0; }
    __device__ __forceinline__ unsigned flagOf(Word word) const {
        return (word & kInclusiveBit) ? kStatusInclusive : kStatusAggregate;
    }
    __device__ __forceinline__ Value valueOf(long long, Word word, unsigned flag) const {
        return word & ~(flag == kStatusInclusive ? kInclusiveBit : kAggregateBit);
    }
    /** What threadLookBack takes for the tiles before 0: an inclusive prefix of 0. */
    __device__ __forceinline__ Word beforeFirst() const { return kInclusiveBit; }
};

/** Waits until `tile` has published; returns its flag, and its value in `value`. */
template <typename Status>
__device__ __forceinline__ unsigned waitForStatus(const Status &status, long long tile,
                                                  typename Status::Value &value) {
    typename Status::Word word;
    do {
        word = status.load(tile);
    } while (!status.ready(word));
    const unsigned flag = status.flagOf(word);
    value = status.valueOf(tile, word, flag);
    return flag;
}

/**
 * The look-back by one warp, 32 predecessors at a time: lane i waits for tile window - i,
 * then the warp adds the values from the nearest predecessor to the nearest inclusive
 * prefix; without one, it adds all 32 aggregates and slides the window back. Tiles
 * before 0 read as an inclusive prefix of 0. Returns the sum of the tiles before `tile`,
 * in every lane. (Wider windows, several words per lane, and backing off with
 * __nanosleep measured no faster: perf-notes.md.)
 */
template <typename Status>
__device__ __forceinline__ typename Status::Value warpLookBack(const Status &status, int tile, unsigned lane) {
    using Value = typename Status::Value;
    Value exclusive = 0;
    for (int window = tile - 1;; window -= 32) {
        const int predecessor = window - static_cast<int>(lane);
        Value value = 0;
        const unsigned flag = predecessor >= 0 ? waitForStatus(status, predecessor, value) : kStatusInclusive;
        const unsigned inclusiveLanes = __ballot_sync(kFullMask, flag == kStatusInclusive);
        if (inclusiveLanes != 0) {
            const unsigned nearest = __ffs(inclusiveLanes) - 1;
            return exclusive + warpSum(lane <= nearest ? value : Value{0});
        }
        exclusive += warpSum(value);
    }
}

/**
 * By one warp: publishes the tile's aggregate, looks back, publishes the inclusive
 * prefix (tile 0: its aggregate as one, at once). Returns the sum of the tiles before
 * `tile`, in every lane.
 */
template <typename Status>
__device__ __forceinline__ typename Status::Value publishAndLookBack(const Status &status, int tile,
                                                                     typename Status::Value aggregate, unsigned lane) {
    using Value = typename Status::Value;
    Value prefix = 0;
    if (tile == 0) {
        if (lane == 0) status.publish(0, kStatusInclusive, aggregate);
    } else {
        if (lane == 0) status.publish(tile, kStatusAggregate, aggregate);
        prefix = warpLookBack(status, tile, lane);
        if (lane == 0) status.publish(tile, kStatusInclusive, prefix + aggregate);
    }
    return prefix;
}

/**
 * The look-back by one thread (Onesweep's, per digit), Window predecessors at a time:
 * loads their words at once (one memory round trip for several tiles), then uses them
 * nearest first, spinning on any unpublished, up to an inclusive prefix. Returns the sum
 * of the tiles before `tile` > 0. Tiles before 0 read as beforeFirst(), never reached.
 */
template <int Window, typename Status>
__device__ __forceinline__ typename Status::Value threadLookBack(const Status &status, long long tile) {
    using Value = typename Status::Value;
    Value before = 0;
    for (long long nearest = tile - 1;; nearest -= Window) {
        typename Status::Word words[Window];
#pragma unroll
        for (int k = 0; k < Window; ++k) words[k] = nearest - k >= 0 ? status.load(nearest - k) : status.beforeFirst();
#pragma unroll
        for (int k = 0; k < Window; ++k) {
            while (!status.ready(words[k])) words[k] = status.load(nearest - k);
            if (status.flagOf(words[k]) == kStatusInclusive) {
                return before + status.valueOf(nearest - k, words[k], kStatusInclusive);
            }
            before += status.valueOf(nearest - k, words[k], kStatusAggregate);
        }
    }
}

}  // namespace Common
}  // namespace StreamCompaction
