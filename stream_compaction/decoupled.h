#pragma once
// The decoupled look-back back end (Merrill and Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", 2016): scan, compaction and stable partition, each in
// one pass over the data. Every tile publishes its aggregate with a status flag, one
// warp looks back over its predecessors for the prefix, and the tile writes its output.
// One tile machinery serves all three operations. Tiles take their indices from an
// atomic counter, so their order does not depend on the scheduler. Nothing is cleared
// per call: status words carry the call's number (epoch) and the kernel's last tile
// resets the counter, so a timed call is the kernel launch(es) alone.

#include "backends.h"
#include "launch.h"

namespace StreamCompaction::Decoupled {

/** Items per tile under `family`'s tile policy (4096 or 8192). */
int tileItems(Common::PolicyFamily family);

/**
 * Items per tile of an operation on n items: up to 2^18 Hopper takes 2048-item tiles,
 * which spread a small array over more SMs; larger arrays, and the other families, the
 * full tile.
 */
int tileItemsFor(Common::PolicyFamily family, long long n);

/**
 * The registry row: scan, compaction and stable partition, for the course's `int n`
 * and for 64-bit counts (int64 sums).
 */
const Backend &backend();

}  // namespace StreamCompaction::Decoupled
