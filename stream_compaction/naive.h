#pragma once
// The naive GPU back end: Hillis–Steele scan over global memory.

#include "common.h"

namespace StreamCompaction {
namespace Naive {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive scan of host arrays (the course's API). */
void scan(int n, int *odata, const int *idata);

/** Exclusive scan of device arrays; the GPU timer brackets the kernels only. */
void scanDevice(int n, int *dOut, const int *dIn);

}  // namespace Naive
}  // namespace StreamCompaction
