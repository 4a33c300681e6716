#pragma once
// The CPU back end: the sequential references every GPU result is checked against.
// The course's functions keep the course's exact types (a predicate form is an overload,
// not a default argument), so that `&CPU::compactWithoutScan` converts to
// `int (*)(int, int *, const int *)` as in the course's own code.

#include "backends.h"
#include "common.h"
#include "predicate.h"

namespace StreamCompaction::CPU {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive prefix sum, one loop (sums wrap modulo 2^32, as on the GPU). */
void scan(int n, int *odata, const int *idata);

/** Keeps the non-zero elements, in order; returns how many. One loop, no scan (the course's). */
int compactWithoutScan(int n, int *odata, const int *idata);
/** The same for the elements matching `keep`. */
int compactWithoutScan(int n, int *odata, const int *idata, Predicate keep);

/** The same result built the GPU way: map to 0/1, exclusive scan, scatter (the course's). */
int compactWithScan(int n, int *odata, const int *idata);
/** The same for the elements matching `keep`. */
int compactWithScan(int n, int *odata, const int *idata, Predicate keep);

/** Stable partition, one loop per group: the elements matching `keep`, then the rest; returns how many kept. */
int partition(int n, int *odata, const int *idata, Predicate keep = Predicate::nonZero());

/** Ascending sort of signed ints: LSD radix sort, four counting-sort passes of 8-bit digits. */
void sort(int n, int *odata, const int *idata);

/** The same sort with each key's value carried along; stable (equal keys keep their order). */
void sortPairs(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn);

/** The sort of unsigned ints: the same passes without the sign bit's flip. */
void sortUnsigned(int n, unsigned *odata, const unsigned *idata);

/** The registry row: these on host arrays, for the course's `int n` and for 64-bit counts. */
const Backend &backend();

}  // namespace StreamCompaction::CPU
