#pragma once
// Launch shapes: the run-time block size of the GPU back ends that take one, grid sizes,
// and the device's multiprocessor count for grids sized to fill the GPU once.

namespace StreamCompaction {
namespace Common {

/** Threads per block used by every GPU back end (default 128). */
int blockSize();
/** Sets the block size; throws std::invalid_argument unless a multiple of 32 in [32, 1024]. */
void setBlockSize(int threads);
/** Whether `threads` is an accepted block size. */
bool validBlockSize(int threads);

/** Blocks needed to give one thread to each of `items` items. */
inline unsigned int blocksFor(long long items, int threads) {
    return static_cast<unsigned int>((items + threads - 1) / threads);
}

/**
 * The current device's multiprocessor count, for grids sized to fill the GPU once.
 * Queried once, by the first Operation on a device, so never inside a timed region.
 */
int multiprocessorCount();

}  // namespace Common
}  // namespace StreamCompaction
