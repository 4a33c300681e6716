#pragma once
// The work-efficient GPU back end: Blelloch's up-sweep/down-sweep scan over global
// memory, and compaction built on it (map to 0/1, scan, scatter).

#include "common.h"
#include "predicate.h"

namespace StreamCompaction {
namespace Efficient {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive scan of host arrays (the course's API). */
void scan(int n, int *odata, const int *idata);

/** Keeps the non-zero elements of host arrays, in order; returns how many. */
int compact(int n, int *odata, const int *idata);

/** Exclusive scan of device arrays; the GPU timer brackets the kernels only. */
void scanDevice(int n, int *dOut, const int *dIn);

/** Compaction of device arrays by any predicate; returns how many were kept. */
int compactDevice(int n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());

}  // namespace Efficient
}  // namespace StreamCompaction
