#include "cub.h"

#include <cstddef>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "decoupled.h"

namespace StreamCompaction {
namespace Cub {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() {
    static PerformanceTimer timer;
    return timer;
}

namespace {

Common::Workspace temporaryStorage;  // CUB's temporary storage, grown to the largest call
Common::Workspace keptCount;         // DeviceSelect's and DevicePartition's count, one int

// The CUB calling convention: a call with no storage only reports how many bytes the
// real call needs. That query runs here, before the timer, and the bytes are reserved,
// so the timed call neither allocates nor queries.
template <typename CubCall>
void *reserveStorage(CubCall call, std::size_t &bytes) {
    bytes = 0;
    SC_CUDA_CHECK(call(nullptr, bytes));
    return temporaryStorage.reserve<unsigned char>(bytes);
}

template <typename CubCall>
void timedCubCall(int n, CubCall call) {
    std::size_t bytes = 0;
    void *storage = n > 0 ? reserveStorage(call, bytes) : nullptr;
    timer().startGpuTimer();
    if (n > 0) SC_CUDA_CHECK(call(storage, bytes));
    timer().endGpuTimer();
}

int downloadCount(const int *dCount) {
    int count = 0;
    SC_CUDA_CHECK(cudaMemcpy(&count, dCount, sizeof(int), cudaMemcpyDeviceToHost));
    return count;
}

}  // namespace

void scanDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("cub", "scan", n);
    timedCubCall(n, [&](void *storage, std::size_t &bytes) {
        return cub::DeviceScan::ExclusiveSum(storage, bytes, dIn, dOut, n);
    });
}

int compactDevice(int n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("cub", "compact", n);
    int *count = keptCount.reserve<int>(1);
    timedCubCall(n, [&](void *storage, std::size_t &bytes) {
        return cub::DeviceSelect::If(storage, bytes, dIn, dOut, count, n, keep);
    });
    return n > 0 ? downloadCount(count) : 0;
}

int partitionDevice(int n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("cub", "partition", n);
    int *count = keptCount.reserve<int>(1);
    auto call = [&](void *storage, std::size_t &bytes) {
        return cub::DevicePartition::If(storage, bytes, dIn, dOut, count, n, keep);
    };
    std::size_t bytes = 0;
    void *storage = n > 0 ? reserveStorage(call, bytes) : nullptr;
    timer().startGpuTimer();
    if (n > 0) {
        SC_CUDA_CHECK(call(storage, bytes));
        Decoupled::reverseRejected(n, dOut, count);  // CUB's reversed tail back into input order
    }
    timer().endGpuTimer();
    return n > 0 ? downloadCount(count) : 0;
}

void sortDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("cub", "sort", n);
    timedCubCall(n, [&](void *storage, std::size_t &bytes) {
        return cub::DeviceRadixSort::SortKeys(storage, bytes, dIn, dOut, n);
    });
}

void scan(int n, int *odata, const int *idata) {
    Common::Operation operation("cub", "scan", n);
    Common::onDeviceCopies(n, odata, idata, [n](int *dOut, const int *dIn) { scanDevice(n, dOut, dIn); });
}

int compact(int n, int *odata, const int *idata) {
    Common::Operation operation("cub", "compact", n);
    return Common::onDeviceCopies(n, odata, idata,
                                  [n](int *dOut, const int *dIn) { return compactDevice(n, dOut, dIn); });
}

}  // namespace Cub
}  // namespace StreamCompaction
