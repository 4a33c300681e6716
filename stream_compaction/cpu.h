#pragma once
// The CPU back end: the sequential references every GPU result is checked against.

#include "backends.h"
#include "common.h"
#include "predicate.h"

namespace StreamCompaction {
namespace CPU {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive prefix sum, one loop (sums wrap modulo 2^32, as on the GPU). */
void scan(int n, int *odata, const int *idata);

/** Keeps the elements matching `keep`, in order; returns how many. One loop, no scan. */
int compactWithoutScan(int n, int *odata, const int *idata, Predicate keep = Predicate::nonZero());

/** The same result built the GPU way: map to 0/1, exclusive scan, scatter. */
int compactWithScan(int n, int *odata, const int *idata, Predicate keep = Predicate::nonZero());

/** Stable partition, one loop per group: the elements matching `keep`, then the rest; returns how many kept. */
int partition(int n, int *odata, const int *idata, Predicate keep = Predicate::nonZero());

/** Ascending sort of signed ints: LSD radix sort, four counting-sort passes of 8-bit digits. */
void sort(int n, int *odata, const int *idata);

/** The registry row: these on host arrays, for the course's `int n` and for 64-bit counts. */
const Backend &backend();

}  // namespace CPU
}  // namespace StreamCompaction
