#include "cpu.h"

#include <array>
#include <type_traits>
#include <vector>

#include "errors.h"

namespace StreamCompaction {
namespace CPU {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

// Each operation is written once, templated on the count type: int for the course's
// API, std::size_t for the 64-bit one (large.h).
namespace {
// The untimed loop, shared by the scans and compactWithScan() so that the timer brackets
// exactly one operation. Sums are accumulated unsigned so that they wrap without UB:
// modulo 2^32 into int outputs (like the GPU's int adds), exactly into long long ones.
template <typename Count, typename Sum>
void exclusiveScan(Count n, Sum *odata, const int *idata) {
    std::make_unsigned_t<Sum> runningSum = 0;
    for (Count i = 0; i < n; ++i) {
        const auto value = static_cast<std::make_unsigned_t<Sum>>(idata[i]);  // sign-extends
        odata[i] = static_cast<Sum>(runningSum);  // after the read: odata may be idata
        runningSum += value;
    }
}

template <typename Count, typename Sum>
void timedScan(Count n, Sum *odata, const int *idata) {
    timer().startCpuTimer();
    exclusiveScan(n, odata, idata);
    timer().endCpuTimer();
}

// Copies the elements `test` accepts, in order, to odata[written], odata[written + 1], ...;
// returns where the next one would go.
template <typename Count, typename Test>
Count copyIf(Count n, int *odata, Count written, const int *idata, Test test) {
    for (Count i = 0; i < n; ++i) {
        if (test(idata[i])) odata[written++] = idata[i];
    }
    return written;
}

template <typename Count>
Count timedCompact(Count n, int *odata, const int *idata, Predicate keep) {
    timer().startCpuTimer();
    const Count count = copyIf(n, odata, Count{0}, idata, keep);
    timer().endCpuTimer();
    return count;
}

// The kept elements, then the rejected ones after them: two passes, each stable.
template <typename Count>
Count timedPartition(Count n, int *odata, const int *idata, Predicate keep) {
    timer().startCpuTimer();
    const Count kept = copyIf(n, odata, Count{0}, idata, keep);
    copyIf(n, odata, kept, idata, Rejects{keep});
    timer().endCpuTimer();
    return kept;
}

// The sign flip of a sort of signed keys: with the sign bit flipped, negative values
// order first. A sort of unsigned keys flips nothing.
constexpr unsigned kSignBit = 0x80000000u;

// Four stable counting-sort passes, lowest byte first, of the keys' 32-bit patterns with
// `signFlip` applied. Passes alternate scratch, output, scratch, output. With `values`
// (sort-pairs), each key's value moves with it.
template <typename Count>
void timedSort(Count n, int *odata, const int *idata, unsigned signFlip, int *valuesOut = nullptr,
               const int *valuesIn = nullptr) {
    const bool pairs = valuesOut != nullptr;
    std::vector<int> scratch(n), valuesScratch(pairs ? n : 0);  // allocated outside the timed region
    timer().startCpuTimer();
    const int *from = idata;
    const int *valuesFrom = valuesIn;
    for (int pass = 0; pass < 4; ++pass) {
        int *to = pass % 2 == 0 ? scratch.data() : odata;
        int *valuesTo = pass % 2 == 0 ? valuesScratch.data() : valuesOut;
        const int shift = 8 * pass;
        auto digit = [shift, signFlip](int v) { return ((static_cast<unsigned int>(v) ^ signFlip) >> shift) & 0xFFu; };
        std::array<Count, 257> starts{};
        for (Count i = 0; i < n; ++i) ++starts[digit(from[i]) + 1];
        for (int d = 0; d < 256; ++d) starts[d + 1] += starts[d];
        for (Count i = 0; i < n; ++i) {
            const Count at = starts[digit(from[i])]++;
            to[at] = from[i];
            if (pairs) valuesTo[at] = valuesFrom[i];
        }
        from = to;
        valuesFrom = valuesTo;
    }
    timer().endCpuTimer();
}
}  // namespace

void scan(int n, int *odata, const int *idata) {
    Common::requireNonNegative("cpu", "scan", n);
    timedScan(n, odata, idata);
}

int compactWithoutScan(int n, int *odata, const int *idata, Predicate keep) {
    Common::requireNonNegative("cpu", "compact", n);
    return timedCompact(n, odata, idata, keep);
}

int compactWithoutScan(int n, int *odata, const int *idata) {
    return compactWithoutScan(n, odata, idata, Predicate::nonZero());
}

int compactWithScan(int n, int *odata, const int *idata) { return compactWithScan(n, odata, idata, Predicate::nonZero()); }

int compactWithScan(int n, int *odata, const int *idata, Predicate keep) {
    Common::requireNonNegative("cpu", "compact", n);
    std::vector<int> flags(n), positions(n);  // allocated outside the timed region
    timer().startCpuTimer();
    for (int i = 0; i < n; ++i) flags[i] = keep(idata[i]) ? 1 : 0;
    exclusiveScan(n, positions.data(), flags.data());
    for (int i = 0; i < n; ++i) {
        if (flags[i]) odata[positions[i]] = idata[i];
    }
    int count = n > 0 ? positions[n - 1] + flags[n - 1] : 0;
    timer().endCpuTimer();
    return count;
}

int partition(int n, int *odata, const int *idata, Predicate keep) {
    Common::requireNonNegative("cpu", "partition", n);
    return timedPartition(n, odata, idata, keep);
}

void sort(int n, int *odata, const int *idata) {
    Common::requireNonNegative("cpu", "sort", n);
    timedSort(n, odata, idata, kSignBit);
}

void sortUnsigned(int n, unsigned *odata, const unsigned *idata) {
    Common::requireNonNegative("cpu", "sort-unsigned", n);
    timedSort(n, reinterpret_cast<int *>(odata), reinterpret_cast<const int *>(idata), 0u);
}

void sortPairs(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn) {
    Common::requireNonNegative("cpu", "sort-pairs", n);
    timedSort(n, keysOut, keysIn, kSignBit, valuesOut, valuesIn);
}

namespace Large {

void scan(std::size_t n, long long *odata, const int *idata) { timedScan(n, odata, idata); }

std::size_t compact(std::size_t n, int *odata, const int *idata, Predicate keep) {
    return timedCompact(n, odata, idata, keep);
}

std::size_t partition(std::size_t n, int *odata, const int *idata, Predicate keep) {
    return timedPartition(n, odata, idata, keep);
}

void sort(std::size_t n, int *odata, const int *idata) { timedSort(n, odata, idata, kSignBit); }

}  // namespace Large

const Backend &backend() {
    static const Backend row{.name = "cpu", .title = "cpu", .onGpu = false, .timer = timer, .scan = scan,
                             .compact = [](int n, int *out, const int *in, Predicate keep,
                                           int *kept) { *kept = compactWithoutScan(n, out, in, keep); },
                             .partition = [](int n, int *out, const int *in, Predicate keep,
                                             int *kept) { *kept = partition(n, out, in, keep); },
                             .sort = sort, .sortPairs = sortPairs, .sortUnsigned = sortUnsigned,
                             .scan64 = Large::scan, .compact64 = Large::compact, .partition64 = Large::partition,
                             .sort64 = Large::sort};
    return row;
}

}  // namespace CPU
}  // namespace StreamCompaction
