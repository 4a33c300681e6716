#include "radix.h"

#include <stdexcept>
#include <string>

#include "device_memory.h"
#include "errors.h"
#include "textbook.h"

namespace StreamCompaction {
namespace Radix {

using StreamCompaction::Common::PerformanceTimer;
using Textbook::BucketFunction;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

namespace {

Common::Workspace keysBetweenPasses;    // the keys after every other pass
Common::Workspace valuesBetweenPasses;  // the values carried with them

int passesFor(int digitBits) { return (32 + digitBits - 1) / digitBits; }

// Reserves everything the passes need, before the timer starts.
void reserveSort(int n, int digitBits, bool withValues) {
    if (digitBits < 1 || (1 << digitBits) > Textbook::kMaxBuckets) {
        throw std::invalid_argument(Common::Operation::describeCurrent() + ": " + std::to_string(digitBits) +
                                    "-bit digits; the split takes up to " +
                                    std::to_string(Textbook::kMaxBuckets) + " buckets");
    }
    Textbook::reserveSplit(n, 1 << digitBits, withValues);
    keysBetweenPasses.reserve<int>(n);
    if (withValues) valuesBetweenPasses.reserve<int>(n);
}

// LSD radix sort, untimed: one stable split per digit, from the lowest. The passes
// alternate between the output and the scratch, so that the last lands in the output;
// the input is only read. Signed keys are split on their digits with the sign bit
// flipped, which orders negative values first with no pass of its own.
void sortPasses(int n, int *keysOut, const int *keysIn, int *valuesOut, const int *valuesIn, int digitBits,
                bool signedKeys) {
    if (n == 0) return;
    const bool withValues = valuesIn != nullptr;
    int *keyScratch = keysBetweenPasses.reserve<int>(n);
    int *valueScratch = withValues ? valuesBetweenPasses.reserve<int>(n) : nullptr;
    const int passes = passesFor(digitBits);
    const int *keysFrom = keysIn;
    const int *valuesFrom = valuesIn;
    for (int pass = 0; pass < passes; ++pass) {
        const bool toOutput = (passes - 1 - pass) % 2 == 0;
        int *keysTo = toOutput ? keysOut : keyScratch;
        int *valuesTo = toOutput ? valuesOut : valueScratch;
        const int shift = pass * digitBits;
        const BucketFunction digit =
            signedKeys ? BucketFunction::signedDigit(shift, digitBits) : BucketFunction::digit(shift, digitBits);
        Textbook::splitDevice(n, keysTo, keysFrom, valuesTo, valuesFrom, digit);
        keysFrom = keysTo;
        valuesFrom = valuesTo;
    }
}

// A sort of keys alone, with its buffers reserved first.
void sortKeys(int n, int *dOut, const int *dIn, int digitBits, bool signedKeys) {
    reserveSort(n, digitBits, false);
    sortPasses(n, dOut, dIn, nullptr, nullptr, digitBits, signedKeys);
}

}  // namespace

void sortDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("radix", "sort", n);
    sortKeys(n, dOut, dIn, kDigitBits, true);
}

void sortOneBitDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("radix", "one-bit sort", n);
    sortKeys(n, dOut, dIn, 1, true);
}

void sortUnsignedDevice(int n, unsigned int *dOut, const unsigned int *dIn, int digitBits) {
    Common::Operation operation("radix", "sort-unsigned", n);
    // The split moves 32-bit patterns; only the digits read them as unsigned.
    sortKeys(n, reinterpret_cast<int *>(dOut), reinterpret_cast<const int *>(dIn), digitBits, false);
}

void sortPairsDevice(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn, int digitBits) {
    Common::Operation operation("radix", "key-value sort", n);
    reserveSort(n, digitBits, true);
    sortPasses(n, keysOut, keysIn, valuesOut, valuesIn, digitBits, true);
}

const Backend &backend() {
    static const Backend row{.name = "radix", .title = "radix", .honoursBlockSize = true, .timer = timer,
                             .sort = sortDevice,
                             .sortPairs = [](int n, int *keysOut, int *valuesOut, const int *keysIn,
                                             const int *valuesIn) {
                                 sortPairsDevice(n, keysOut, valuesOut, keysIn, valuesIn, kDigitBits);
                             },
                             .sortUnsigned = [](int n, unsigned *out, const unsigned *in) {
                                 sortUnsignedDevice(n, out, in, kDigitBits);
                             }};
    return row;
}

}  // namespace Radix
}  // namespace StreamCompaction
