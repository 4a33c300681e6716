#pragma once
// The shared-memory GPU back end: the work-efficient scan of GPU Gems 3, chapter 39,
// done in shared memory with padding against bank conflicts, for any n: each tile's
// sum is scanned recursively (reduce, then scan), and compaction is built on it with
// the map and scatter steps fused into the tile kernels.

#include "backends.h"
#include "launch.h"

namespace StreamCompaction::Shared {

/** Elements per thread under `family`'s tile policy: a tile is Common::blockSize() times this. */
int itemsPerThread(Common::PolicyFamily family);

/**
 * The registry row: scan and compaction, at Common::blockSize() threads per tile.
 */
const Backend &backend();

}  // namespace StreamCompaction::Shared
