#pragma once
// The Onesweep back end (Adinets and Merrill, "Onesweep: A Faster Least Significant Digit
// Radix Sort for GPUs", 2022): LSD radix sort of 32-bit keys in four passes of 8-bit
// digits, each pass one kernel that reads and writes every key once. One kernel first
// counts all four passes' digit histograms in a single read of the keys, which gives
// every pass its bucket offsets up front; within a pass, each tile ranks its keys by
// digit, finds how many keys of each digit the tiles before it hold with a decoupled
// look-back per digit (Merrill and Garland 2016), and scatters its keys straight to their
// final places. Why: the split-based radix sort (radix.h) moves every key several times
// per 4-bit digit; this one moves it once per 8-bit digit, about 36 bytes per key in all
// (the histogram's read, then a read and a write per pass). The tile shape is the GPU
// family's (Common::PolicyFamily; Common::blockSize() does not apply).

#include "backends.h"
#include "launch.h"

namespace StreamCompaction::Onesweep {

/**
 * Keys per pass tile under `family`'s pass policy (Turing 3840, Hopper 6144, Blackwell
 * 6656, Ampere 7680). A sort of at most this many keys runs in one block (the
 * small-array path).
 */
int tileItems(Common::PolicyFamily family);

/**
 * The same for a sort of keys with values (Backend::sortPairs): Turing 3072, Hopper 5376,
 * else 6144.
 */
int pairTileItems(Common::PolicyFamily family);

/**
 * Keys per pass tile of a sort of n keys (with values when `pairs`) past one block: up to
 * 2^20 keys Hopper's passes take a smaller tile (3072 keys, 3840 with values), which
 * spreads them over more SMs; larger sorts, and the other families, take the full tile.
 */
int passTileItems(Common::PolicyFamily family, long long n, bool pairs);

/**
 * The registry row: ascending sort of signed ints, of unsigned ints, and of int keys
 * carrying int values (stable).
 */
const Backend &backend();

}  // namespace StreamCompaction::Onesweep
