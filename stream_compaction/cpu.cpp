#include "cpu.h"

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

}  // namespace CPU
}  // namespace StreamCompaction
