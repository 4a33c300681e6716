#pragma once
// Block-level exclusive scans, written once for every kernel that scans a tile:
//  - blockExclusiveScan: values in registers, scanned with warp shuffles within each
//    warp, then across the warps through their totals in shared memory (the decoupled
//    tiles, Onesweep's digit counts).
// Device code only: included by .cu files.

#include "common.h"

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
template <int BlockWarps, int Warps, int Count, typename T, typename Warp0 = NoBlockPrefix>
__device__ __forceinline__ T blockExclusiveScan(T (&values)[Count], T (&warpPrefix)[Warps], Warp0 warp0 = {}) {
    static_assert(Warps >= 1 && Warps <= BlockWarps && BlockWarps <= 32, "warp 0 scans one total per lane");
    constexpr bool kAllWarps = Warps == BlockWarps;
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    const bool scanning = kAllWarps || warp < Warps;
    const T warpTotal = warpExclusiveScan(values, lane);
    if (lane == 0 && scanning) warpPrefix[warp] = warpTotal;
    __syncthreads();
    if (warp == 0) {
        T totals[1] = {lane < Warps ? warpPrefix[lane] : T{0}};
        const T aggregate = warpExclusiveScan(totals, lane);
        if (lane < Warps) warpPrefix[lane] = totals[0];
        warp0(aggregate);
    }
    __syncthreads();
    return scanning ? warpPrefix[warp] : T{0};
}

}  // namespace Common
}  // namespace StreamCompaction
