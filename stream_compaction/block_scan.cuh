#pragma once
// Block-level exclusive scans, written once for every kernel that scans a tile:
//  - blockExclusiveScan: values in registers, scanned with warp shuffles within each
//    warp, then across the warps through their totals in shared memory (the decoupled
//    tiles), and blockExclusiveScanSerialTotals, its one-barrier form for a few warps
//    (Onesweep's digit counts).
//  - treeExclusiveScan: the work-efficient up-sweep/down-sweep tree in shared memory
//    (Blelloch; GPU Gems 3, 39.2.2), one leaf per thread (the shared-memory back end's
//    tiles and the textbook's splits, whose point is that algorithm).
// Device code only: included by .cu files.

#include "device_primitives.cuh"

namespace StreamCompaction {
namespace Common {

/**
 * Exclusive scan across the warp of Count values per lane, in striped order: value j of
 * lane l comes after every value j' < j of every lane and after value j of the lanes
 * below l (with Count = 1, lane order). Each value becomes the sum of the values before
 * it; returns the warp's total, in every lane.
 */
template <int Count, typename T>
__device__ __forceinline__ T warpExclusiveScan(T (&values)[Count], unsigned lane) {
    T inclusive[Count];
#pragma unroll
    for (int j = 0; j < Count; ++j) inclusive[j] = values[j];
    warpInclusiveScan(inclusive, lane);
    T total = 0;
#pragma unroll
    for (int j = 0; j < Count; ++j) {
        values[j] = total + inclusive[j] - values[j];
        total += __shfl_sync(kFullMask, inclusive[j], 31);
    }
    return total;
}

/** blockExclusiveScan's default step for warp 0: nothing. */
struct NoBlockPrefix {
    template <typename T>
    __device__ __forceinline__ void operator()(T) const {}
};

/**
 * Exclusive scan of Count values per thread over the first Warps warps of a block of
 * BlockWarps warps: striped order within each warp (warpExclusiveScan), warp order
 * across warps. Each value becomes the sum of the values before it within its warp;
 * returns the sum of the warps before this thread's, so that value + the returned
 * prefix is the value's exclusive prefix in the block.
 *
 * The warps scan their values; lane 0 writes each warp's total to warpPrefix[warp]; a
 * barrier; warp 0 scans the totals in place, making them the warps' exclusive prefixes,
 * and calls warp0(aggregate) with the block's total in every lane (the decoupled tile
 * looks back there, before any other warp needs the result); a barrier. Every thread
 * of the block calls it; the warps past the first Warps scan their own values too, but
 * take no part in the block's scan and get 0. warpPrefix may be written again only
 * after another barrier.
 */
/**
 * The first step of both block scans below: every warp scans its values
 * (warpExclusiveScan); lane 0 of each of the first Warps warps writes its warp's total to
 * totals[warp]; a barrier. Returns whether this thread's warp is one of those Warps.
 */
template <int BlockWarps, int Warps, int Count, typename T>
__device__ __forceinline__ bool scanWarpsAndShareTotals(T (&values)[Count], T (&totals)[Warps]) {
    static_assert(Warps >= 1 && Warps <= BlockWarps && BlockWarps <= 32, "warp 0 scans one total per lane");
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    const bool scanning = Warps == BlockWarps || warp < Warps;
    const T warpTotal = warpExclusiveScan(values, lane);
    if (lane == 0 && scanning) totals[warp] = warpTotal;
    __syncthreads();
    return scanning;
}

template <int BlockWarps, int Warps, int Count, typename T, typename Warp0 = NoBlockPrefix>
__device__ __forceinline__ T blockExclusiveScan(T (&values)[Count], T (&warpPrefix)[Warps], Warp0 warp0 = {}) {
    const bool scanning = scanWarpsAndShareTotals<BlockWarps>(values, warpPrefix);
    const unsigned lane = threadIdx.x & 31;
    if (threadIdx.x < 32) {
        T totals[1] = {lane < Warps ? warpPrefix[lane] : T{0}};
        const T aggregate = warpExclusiveScan(totals, lane);
        if (lane < Warps) warpPrefix[lane] = totals[0];
        warp0(aggregate);
    }
    __syncthreads();
    return scanning ? warpPrefix[threadIdx.x >> 5] : T{0};
}

/**
 * blockExclusiveScan with one barrier instead of two, for a few warps whose caller needs
 * no block total in warp 0: after the warps share their totals, each thread adds up the
 * totals of the warps before its own (at most Warps - 1 shared loads). Onesweep's digit
 * counts (8 warps) take this form: with the second warp pass and barrier the sort ran
 * about 3% slower on the H200 (results/h200/perf-notes.md). Returns what
 * blockExclusiveScan returns; warpTotals may be written again only after another barrier.
 */
template <int BlockWarps, int Warps, int Count, typename T>
__device__ __forceinline__ T blockExclusiveScanSerialTotals(T (&values)[Count], T (&warpTotals)[Warps]) {
    T prefix = 0;
    if (scanWarpsAndShareTotals<BlockWarps>(values, warpTotals)) {
        for (unsigned w = 0; w < (threadIdx.x >> 5); ++w) prefix += warpTotals[w];
    }
    return prefix;
}

/** treeExclusiveScan's leaf index: leaf i at i. */
struct DenseTree {
    __device__ __forceinline__ int operator()(int index) const { return index; }
};

/**
 * Work-efficient exclusive scan in shared memory (Blelloch; GPU Gems 3, 39.2.2) of
 * `count` trees of `size` leaves each, size a power of two: tree b's leaf i is at
 * trees[at(b * size + i)], with `at` the identity (DenseTree) or a padding that keeps
 * the strided accesses in distinct banks. Up-sweep: at each level a node adds its left
 * child's sum into its right child. The root then holds the tree's total, which goes
 * to totals[b] and is replaced by 0. Down-sweep: each node hands its prefix to its left
 * child and prefix + left child's sum to its right child. Leaves end as the exclusive
 * scan of what they held. One barrier per level serves all trees at once.
 *
 * Every thread of the block calls it, and the block has at least `count` threads; it
 * synchronises before its first read and after its last write (totals included).
 */
template <typename T, typename Index = DenseTree>
__device__ __forceinline__ void treeExclusiveScan(T *trees, int size, int count, T *totals, Index at = {}) {
    int offset = 1;
    for (int nodes = size >> 1; nodes > 0; nodes >>= 1, offset <<= 1) {
        __syncthreads();
        for (int t = threadIdx.x; t < nodes; t += blockDim.x) {
            const int left = offset * (2 * t + 1) - 1;
            for (int b = 0; b < count; ++b) trees[at(b * size + left + offset)] += trees[at(b * size + left)];
        }
    }
    __syncthreads();
    const int tree = threadIdx.x;  // the tree whose root this thread handles
    if (tree < count) {
        T &root = trees[at(tree * size + size - 1)];
        totals[tree] = root;
        root = 0;
    }
    for (int nodes = 1, half = size >> 1; nodes < size; nodes <<= 1, half >>= 1) {
        __syncthreads();
        for (int t = threadIdx.x; t < nodes; t += blockDim.x) {
            const int left = half * (2 * t + 1) - 1;
            for (int b = 0; b < count; ++b) {
                T &leftLeaf = trees[at(b * size + left)];
                T &rightLeaf = trees[at(b * size + left + half)];
                const T leftSum = leftLeaf;
                leftLeaf = rightLeaf;
                rightLeaf += leftSum;
            }
        }
    }
    __syncthreads();
}

}  // namespace Common
}  // namespace StreamCompaction
