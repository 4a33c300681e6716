#pragma once
// LSD radix sort on the GPU, built on the textbook's split (textbook.h): one stable split
// of the keys per digit, least significant digit first. Stability is what makes it work:
// keys that tie on this pass's digit keep the order the earlier passes gave them.
// The course's version splits on one bit per pass (32 passes); the fast one on 4-bit
// digits (8 passes of 16 buckets: per-block digit counts, one exclusive scan of the
// counts digit-major, a stable local scatter through shared memory, a stitch).

#include "backends.h"
#include "common.h"

namespace StreamCompaction {
namespace Radix {

StreamCompaction::Common::PerformanceTimer &timer();

/** The fast version's digit width: 16 buckets per pass, the split's limit. */
constexpr int kDigitBits = 4;

/**
 * The registry row: ascending sort of device signed ints, 4-bit digits, negative values
 * first; of unsigned ints (sortUnsignedDevice); of key-value pairs (sortPairsDevice).
 */
const Backend &backend();

/** The same sort one bit per pass, the course's split by bit. */
void sortOneBitDevice(int n, int *dOut, const int *dIn);

/** Ascending sort of device unsigned keys, digitBits (1 to 4) bits per pass. */
void sortUnsignedDevice(int n, unsigned int *dOut, const unsigned int *dIn, int digitBits = kDigitBits);

/**
 * Stable ascending sort of device signed keys, carrying a value with each key: valuesOut[i]
 * is the value that came in with keysOut[i], and equal keys keep their input order.
 */
void sortPairsDevice(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn,
                     int digitBits = kDigitBits);

}  // namespace Radix
}  // namespace StreamCompaction
