#pragma once
// The decoupled look-back back end (Merrill and Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", 2016): scan, compaction and stable partition, each in
// one pass over the data. Every tile publishes its aggregate with a status flag, one
// warp looks back over its predecessors for the prefix, and the tile writes its output.
// One tile machinery serves all three operations. Tiles take their indices from an
// atomic counter, so their order does not depend on the scheduler. Nothing is cleared
// per call: status words carry the call's number (epoch) and the kernel's last tile
// resets the counter, so a timed call is the kernel launch(es) alone.

#include "common.h"
#include "predicate.h"

namespace StreamCompaction {
namespace Decoupled {

StreamCompaction::Common::PerformanceTimer &timer();

/** Exclusive scan of host arrays (the course's API). */
void scan(int n, int *odata, const int *idata);

/** Keeps the non-zero elements of host arrays, in order; returns how many. */
int compact(int n, int *odata, const int *idata);

/** Exclusive scan of device arrays: one kernel launch, 8 bytes moved per element. */
void scanDevice(int n, int *dOut, const int *dIn);

/** Compaction of device arrays, one pass (4n + 4k bytes); returns how many were kept. */
int compactDevice(int n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());

/**
 * Stable partition of device arrays: kept elements first, then the rejected ones, each
 * group in input order; returns how many were kept. One pass writes the kept elements
 * in place and the rejected ones from the back in reverse order (8n bytes), then a
 * fix-up reverses the rejected tail (8 bytes per rejected element). Both are timed.
 */
int partitionDevice(int n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());

}  // namespace Decoupled
}  // namespace StreamCompaction
