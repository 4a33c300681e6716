#pragma once
// The CUB back end: the CUDA toolkit's own device-wide primitives, the reference that
// every other GPU back end is measured against in the same run. Temporary storage is
// sized and reserved before the GPU timer starts, so a timed call never allocates.

#include "common.h"
#include "predicate.h"

namespace StreamCompaction {
namespace Cub {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive scan of host arrays (the course's API). */
void scan(int n, int *odata, const int *idata);

/** Keeps the non-zero elements of host arrays, in order; returns how many. */
int compact(int n, int *odata, const int *idata);

/** Exclusive scan of device arrays with cub::DeviceScan::ExclusiveScan (plus, initial value 0). */
void scanDevice(int n, int *dOut, const int *dIn);

/** Compaction of device arrays with cub::DeviceSelect::If; returns how many were kept. */
int compactDevice(int n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());

/**
 * Stable partition of device arrays: kept elements first, then the rejected ones, each
 * group in input order; returns how many were kept. cub::DevicePartition::If writes the
 * rejected elements from the back, in reverse order; a second kernel reverses them in
 * place (8 bytes moved per rejected element), and the timed figure includes both.
 */
int partitionDevice(int n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());

/** Ascending sort of signed ints with cub::DeviceRadixSort::SortKeys. */
void sortDevice(int n, int *dOut, const int *dIn);

}  // namespace Cub
}  // namespace StreamCompaction
