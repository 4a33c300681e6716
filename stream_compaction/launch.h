#pragma once
// Launch shapes: the run-time block size of the GPU back ends that take one, grid sizes,
// the device's multiprocessor count for grids sized to fill the GPU once, and the shared
// memory a block may take.

#include <cstddef>

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

/**
 * The shared memory one block may opt in to on the current device
 * (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on the H200, 64 KiB on sm_75, 99 KiB on
 * sm_86 and sm_89), or less while limitSharedMemoryForTesting holds a lower limit.
 */
std::size_t sharedMemoryPerBlock();

/**
 * Throws Unsupported ("needs 98 KiB of shared memory per block, this GPU allows 64 KiB")
 * when a kernel's `bytes` of shared memory per block exceed sharedMemoryPerBlock().
 * Kernels that opt in to dynamic shared memory call it before they launch anything.
 */
void requireSharedMemory(std::size_t bytes);

/** A test hook: behave as if the GPU allowed at most `bytes` per block; 0 lifts it. */
void limitSharedMemoryForTesting(std::size_t bytes);

}  // namespace Common
}  // namespace StreamCompaction
