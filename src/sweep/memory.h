#pragma once
// Whether a sweep's cells fit in memory: the GPU's for the largest cell before anything
// runs, the host's for each input's CPU side, the GPU's again before a cell that runs alone.

#include <cstddef>
#include <string>

#include "cli/cli.h"

namespace Harness {

/**
 * Device memory a cell of n ints may need: input, output and up to 2n ints of workspace;
 * past 2^31 - 1, 4n bytes more, for a scan's int64 sums (counted for every op); twice
 * that for sort-pairs, whose values need as much again.
 */
std::size_t cellDeviceBytes(long long n, bool pairs = false);

/**
 * The one-line error for a sweep whose largest cell needs more than `freeBytes` of GPU
 * memory ("--sizes: 2^30 needs 16.0 GiB of GPU memory, 9.5 GiB free"), or "" when it fits.
 */
std::string memoryShortfall(long long largestSize, std::size_t freeBytes, bool pairs = false);

/** "needs 16.0 GiB of `where` memory, 9.5 GiB free" when `needed` exceeds `freeBytes`, else "". */
std::string shortfall(std::size_t needed, std::size_t freeBytes, const char *where);

/**
 * Why the CPU side of an input of `size` for `op` does not fit in available host memory
 * (the input, the expected result, a back end's output and the CPU back ends' scratch:
 * 6n ints, 8n bytes more past 2^31 - 1, twice that for sort-pairs), or "". Not checked
 * where the system does not say (outside Linux).
 */
std::string hostShortfall(Op op, long long size);

/** Why a GPU cell of `op` on n elements does not fit in free GPU memory now, or "". */
std::string gpuShortfall(Op op, long long n);

/**
 * Whether the largest cell a chosen GPU back end can run (cellSkipReason) fits in free
 * GPU memory; returns memoryShortfall's line, or "" (also without a GPU).
 */
std::string checkMemory(const Options &options);

}  // namespace Harness
