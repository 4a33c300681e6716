#pragma once
// What a sweep measures: for each op, its back ends in report order; for each size, its
// inputs (the size, and SIZE - 3 for a power of two); for each input, its cells (a back
// end at a block size); and which cells cannot run at all.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace Harness {

/**
 * Why a cell of n elements cannot run on the back end, or "" when it can: first
 * "n > 2^31 - 1" when the back end has no 64-bit entry point for the op and n needs
 * one (decided from the registry alone, on any machine); then, for a GPU back end,
 * "no CUDA device" or why the device was lost. Memory is checked apart from this.
 */
std::string cellSkipReason(const StreamCompaction::Backend &backend, Op op, long long n);

/**
 * The chosen back ends offering `op`: the CPU first and the reference (Backend::reference)
 * next, so that every other row can be compared with them when it is written; the rest
 * in the registry's order.
 */
std::vector<const StreamCompaction::Backend *> sweepBackends(const Options &options, Op op);

/**
 * How many block sizes a back end is measured at: each of --block-sizes when its kernels
 * run at the block size, else one (the CPU, and GPU back ends with fixed tile shapes).
 */
std::size_t blockSizesFor(const StreamCompaction::Backend &backend, const Options &options);

/** The inputs of one size, as companion flags: the size itself, then SIZE - 3 for a power of two. */
std::vector<bool> variants(const Options &options, long long size);

/** One cell of an input: a back end, and its block size where it takes one. */
struct PlannedCell {
    const StreamCompaction::Backend *backend;
    std::optional<int> block;
};

/**
 * The cells of one input, in report order: the CPU first, once; then the GPU back ends
 * with fixed tile shapes, once, the reference first; then those that run at the block
 * size, at every block size.
 */
std::vector<PlannedCell> planCells(const Options &options, const std::vector<const StreamCompaction::Backend *> &backends);

/** How many cells the sweep `options` describe has, for the progress line. */
long long cellCount(const Options &options);

}  // namespace Harness
