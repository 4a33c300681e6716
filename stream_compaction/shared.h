#pragma once
// The shared-memory GPU back end: the work-efficient scan of GPU Gems 3, chapter 39,
// done in shared memory with padding against bank conflicts, for any n: each tile's
// sum is scanned recursively (reduce, then scan), and compaction is built on it with
// the map and scatter steps fused into the tile kernels.

#include "common.h"
#include "predicate.h"

namespace StreamCompaction {
namespace Shared {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive scan of host arrays (the course's API). */
void scan(int n, int *odata, const int *idata);

/** Keeps the non-zero elements of host arrays, in order; returns how many. */
int compact(int n, int *odata, const int *idata);

/** Exclusive scan of device arrays; the GPU timer brackets the kernels only. */
void scanDevice(int n, int *dOut, const int *dIn);

/** Compaction of device arrays by any predicate; returns how many were kept. */
int compactDevice(int n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());

}  // namespace Shared
}  // namespace StreamCompaction
