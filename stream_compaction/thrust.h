#pragma once
// The Thrust back end: the library's own scan and compaction, for comparison.
// Timed calls never allocate: Thrust's temporary storage comes from a cache kept across
// calls, so a figure is the algorithm's device work alone.

#include "common.h"
#include "predicate.h"

namespace StreamCompaction {
namespace Thrust {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive scan of host arrays (the course's API), with thrust::exclusive_scan. */
void scan(int n, int *odata, const int *idata);

/** Keeps the non-zero elements of host arrays with thrust::copy_if; returns how many. */
int compact(int n, int *odata, const int *idata);

/** Exclusive scan of device arrays; the GPU timer brackets the Thrust call only. */
void scanDevice(int n, int *dOut, const int *dIn);

/** Compaction of device arrays by any predicate; returns how many were kept. */
int compactDevice(int n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());

/**
 * Stable partition of device arrays with thrust::stable_partition (on a copy of the
 * input, the copy timed too): kept elements first, then the rest. Returns how many were kept.
 */
int partitionDevice(int n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());

/** Ascending sort of device arrays with thrust::sort (on a copy of the input, the copy timed too). */
void sortDevice(int n, int *dOut, const int *dIn);

}  // namespace Thrust
}  // namespace StreamCompaction
