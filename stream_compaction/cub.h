#pragma once
// The CUB back end: the CUDA toolkit's own device-wide primitives, the reference that
// every other GPU back end is measured against in the same run. Temporary storage is
// sized and reserved before the GPU timer starts, so a timed call never allocates.

#include "backends.h"

namespace StreamCompaction::Cub {

/**
 * The registry row: cub::DeviceScan::ExclusiveScan, DeviceSelect::If, DevicePartition::If
 * (its rejected tail reversed in place, so that the partition is stable) and
 * DeviceRadixSort::SortKeys, for the course's `int n` and for 64-bit counts; SortPairs
 * and SortKeys of unsigned keys for the course's `int n`.
 */
const Backend &backend();

}  // namespace StreamCompaction::Cub
