#pragma once
// The Thrust back end: the library's own scan and compaction, for comparison.
// Timed calls never allocate: Thrust's temporary storage comes from a cache kept across
// calls, so a figure is the algorithm's device work alone.

#include "backends.h"
#include "common.h"

namespace StreamCompaction::Thrust {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive scan of host arrays (the course's API). */
void scan(int n, int *odata, const int *idata);

/**
 * The registry row: thrust::exclusive_scan, copy_if, stable_partition_copy and sort on
 * device arrays, for the course's `int n` and for 64-bit counts; stable_sort_by_key and
 * sort of unsigned keys for the course's `int n`.
 */
const Backend &backend();

}  // namespace StreamCompaction::Thrust
