#pragma once
// The work-efficient GPU back end: Blelloch's up-sweep/down-sweep scan over global
// memory, and compaction built on it (map to 0/1, scan, scatter).

#include "backends.h"
#include "common.h"

namespace StreamCompaction::Efficient {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive scan of host arrays (the course's API). */
void scan(int n, int *odata, const int *idata);

/** Keeps the non-zero elements of host arrays, in order; returns how many (the course's API). */
int compact(int n, int *odata, const int *idata);

/** The registry row: scan and compaction by any predicate, at Common::blockSize() threads. */
const Backend &backend();

}  // namespace StreamCompaction::Efficient
