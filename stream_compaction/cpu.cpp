#include "cpu.h"

#include <array>
#include <vector>

namespace StreamCompaction {
namespace CPU {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() {
    static PerformanceTimer timer;
    return timer;
}

namespace {
// The untimed loop, shared by scan() and compactWithScan() so that the timer brackets
// exactly one operation.
void exclusiveScan(int n, int *odata, const int *idata) {
    unsigned int runningSum = 0;  // unsigned: wraps like the GPU's int adds, without UB
    for (int i = 0; i < n; ++i) {
        unsigned int value = static_cast<unsigned int>(idata[i]);
        odata[i] = static_cast<int>(runningSum);
        runningSum += value;
    }
}
}  // namespace

void scan(int n, int *odata, const int *idata) {
    timer().startCpuTimer();
    exclusiveScan(n, odata, idata);
    timer().endCpuTimer();
}

int compactWithoutScan(int n, int *odata, const int *idata, Predicate keep) {
    timer().startCpuTimer();
    int count = 0;
    for (int i = 0; i < n; ++i) {
        if (keep(idata[i])) odata[count++] = idata[i];
    }
    timer().endCpuTimer();
    return count;
}

int compactWithScan(int n, int *odata, const int *idata, Predicate keep) {
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
    timer().startCpuTimer();
    int kept = 0;
    for (int i = 0; i < n; ++i) {
        if (keep(idata[i])) odata[kept++] = idata[i];
    }
    int next = kept;
    for (int i = 0; i < n; ++i) {
        if (!keep(idata[i])) odata[next++] = idata[i];
    }
    timer().endCpuTimer();
    return kept;
}

void sort(int n, int *odata, const int *idata) {
    std::vector<int> scratch(n);  // allocated outside the timed region
    timer().startCpuTimer();
    // Four stable counting-sort passes, lowest byte first; the sign bit is flipped so that
    // negative values order first. Passes alternate scratch, output, scratch, output.
    const int *from = idata;
    for (int pass = 0; pass < 4; ++pass) {
        int *to = pass % 2 == 0 ? scratch.data() : odata;
        const int shift = 8 * pass;
        auto digit = [shift](int v) { return ((static_cast<unsigned int>(v) ^ 0x80000000u) >> shift) & 0xFFu; };
        std::array<int, 257> starts{};
        for (int i = 0; i < n; ++i) ++starts[digit(from[i]) + 1];
        for (int d = 0; d < 256; ++d) starts[d + 1] += starts[d];
        for (int i = 0; i < n; ++i) to[starts[digit(from[i])]++] = from[i];
        from = to;
    }
    timer().endCpuTimer();
}

}  // namespace CPU
}  // namespace StreamCompaction
