#pragma once
// The naive GPU back end: Hillis–Steele scan over global memory.

#include "backends.h"
#include "common.h"

namespace StreamCompaction::Naive {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive scan of host arrays (the course's API); the GPU timer brackets the kernels only. */
void scan(int n, int *odata, const int *idata);

/** The registry row: the scan, on device arrays, at Common::blockSize() threads per block. */
const Backend &backend();

}  // namespace StreamCompaction::Naive
