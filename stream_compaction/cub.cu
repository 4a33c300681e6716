#include "cub.h"

#include <cstddef>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/functional>

#include "device_memory.h"
#include "errors.h"
#include "selection.h"

namespace StreamCompaction {
namespace Cub {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

namespace {

Common::Workspace temporaryStorage;  // CUB's temporary storage, grown to the largest call
Common::Workspace keptCount;         // the 64-bit API's per-chunk count, one int

// The CUB calling convention: a call with no storage only reports how many bytes the
// real call needs. That query (host work only) runs first and the bytes are reserved,
// grown only when a larger call needs more, so a repeated call does not allocate.
template <typename CubCall>
void *reserveStorage(CubCall call, std::size_t &bytes) {
    bytes = 0;
    SC_CUDA_CHECK(call(nullptr, bytes));
    return temporaryStorage.reserve<unsigned char>(bytes);
}

template <typename Count, typename CubCall>
void cubCall(Count n, CubCall call) {
    if (n <= 0) return;
    std::size_t bytes = 0;
    void *storage = reserveStorage(call, bytes);
    SC_CUDA_CHECK(call(storage, bytes));
}

// Scan and sort, each written once and templated on the count type: int for the
// course's API, long long for the 64-bit one (Backend::scan64; its compaction and partition
// are below, in chunks). A scan accumulates in the type of its initial value, Sum, so
// long long outputs get exact sums.
template <typename Count, typename Sum>
void scanOnDevice(Count n, Sum *dOut, const int *dIn) {
    cubCall(n, [&](void *storage, std::size_t &bytes) {
        return cub::DeviceScan::ExclusiveScan(storage, bytes, dIn, dOut, ::cuda::std::plus<>{}, Sum{0}, n);
    });
}

// cub::DeviceSelect::If (CUB 3.0) with 64-bit num_items fails with an illegal address
// when it keeps more than 2^31 - 1 elements (on the H200 at n = 2^31 + 17 with nearly all
// kept; results/h200/perf-notes.md, "CUB and Thrust"), like Thrust's copy_if. So the 64-bit API runs
// it over chunks of at most 2^30 elements, each writing after the last, with the count
// read back after each; a stable partition is two such passes, the kept elements and
// after them the rejected ones.

template <typename Select>
auto selectChunkCall(const int *dIn, int *dOut, int *count, std::size_t items, Select select) {
    return [=](void *storage, std::size_t &bytes) {
        return cub::DeviceSelect::If(storage, bytes, dIn, dOut, count, static_cast<int>(items), select);
    };
}

// What the chunked selects use, reserved before the first chunk: temporary storage for
// a chunk of the largest size with either select, and the count each chunk writes.
struct ChunkStorage {
    void *storage = nullptr;
    std::size_t bytes = 0;
    int *count = nullptr;
};

ChunkStorage reserveChunkStorage(std::size_t n, Predicate keep) {
    ChunkStorage reserved;
    if (n == 0) return reserved;
    const std::size_t items = n < Common::kLibrarySelectChunk ? n : Common::kLibrarySelectChunk;
    std::size_t keptBytes = 0, rejectedBytes = 0;
    SC_CUDA_CHECK(selectChunkCall(nullptr, nullptr, nullptr, items, keep)(nullptr, keptBytes));
    SC_CUDA_CHECK(selectChunkCall(nullptr, nullptr, nullptr, items, Rejects{keep})(nullptr, rejectedBytes));
    reserved.bytes = keptBytes > rejectedBytes ? keptBytes : rejectedBytes;
    reserved.storage = temporaryStorage.reserve<unsigned char>(reserved.bytes);
    reserved.count = keptCount.reserve<int>(1);
    return reserved;
}

template <typename Select>
std::size_t selectIfInChunks(std::size_t n, int *dOut, const int *dIn, Select select, const ChunkStorage &reserved) {
    return Common::selectInChunks(n, Common::kLibrarySelectChunk, [&](std::size_t first, std::size_t items, std::size_t written) {
        std::size_t bytes = reserved.bytes;
        const auto call = selectChunkCall(dIn + first, dOut + written, reserved.count, items, select);
        SC_CUDA_CHECK(call(reserved.storage, bytes));
        return static_cast<std::size_t>(Common::downloadValue(reserved.count));
    });
}

template <typename Count, typename Key>
void sortOnDevice(Count n, Key *dOut, const Key *dIn) {
    cubCall(n, [&](void *storage, std::size_t &bytes) {
        return cub::DeviceRadixSort::SortKeys(storage, bytes, dIn, dOut, n);
    });
}

// CUB's radix sort is stable: equal keys keep their order, with their values.
void sortPairsDevice(int n, int *dKeysOut, int *dValuesOut, const int *dKeysIn, const int *dValuesIn) {
    Common::Operation operation("cub", "sort-pairs", n);
    cubCall(n, [&](void *storage, std::size_t &bytes) {
        return cub::DeviceRadixSort::SortPairs(storage, bytes, dKeysIn, dKeysOut, dValuesIn, dValuesOut, n);
    });
}

}  // namespace

void scanDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("cub", "scan", n);
    scanOnDevice(n, dOut, dIn);
}

void compactDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("cub", "compact", n);
    cubCall(n, [&](void *storage, std::size_t &bytes) {
        return cub::DeviceSelect::If(storage, bytes, dIn, dOut, kept, n, keep);
    });
}

void partitionDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("cub", "partition", n);
    cubCall(n, [&](void *storage, std::size_t &bytes) {
        return cub::DevicePartition::If(storage, bytes, dIn, dOut, kept, n, keep);
    });
    if (n > 0) Common::reverseTail(n, dOut, kept);  // CUB's reversed tail back into input order
}

void sortDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("cub", "sort", n);
    sortOnDevice(n, dOut, dIn);
}

void sortUnsignedDevice(int n, unsigned *dOut, const unsigned *dIn) {
    Common::Operation operation("cub", "sort-unsigned", n);
    sortOnDevice(n, dOut, dIn);
}

namespace Large {

void scan(std::size_t n, long long *dOut, const int *dIn) {
    const auto items = static_cast<long long>(n);
    Common::Operation operation("cub", "scan (64-bit)", items);
    scanOnDevice(items, dOut, dIn);
}

std::size_t compact(std::size_t n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("cub", "compact (64-bit)", static_cast<long long>(n));
    const ChunkStorage reserved = reserveChunkStorage(n, keep);
    return selectIfInChunks(n, dOut, dIn, keep, reserved);
}

std::size_t partition(std::size_t n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("cub", "partition (64-bit)", static_cast<long long>(n));
    const ChunkStorage reserved = reserveChunkStorage(n, keep);
    const std::size_t kept = selectIfInChunks(n, dOut, dIn, keep, reserved);
    selectIfInChunks(n, dOut + kept, dIn, Rejects{keep}, reserved);
    return kept;
}

void sort(std::size_t n, int *dOut, const int *dIn) {
    const auto items = static_cast<long long>(n);
    Common::Operation operation("cub", "sort (64-bit)", items);
    sortOnDevice(items, dOut, dIn);
}

}  // namespace Large

const Backend &backend() {
    static const Backend row{.name = "cub", .title = "cub", .reference = true, .timer = timer,
                             .scan = scanDevice, .compact = compactDevice, .partition = partitionDevice,
                             .sort = sortDevice, .sortPairs = sortPairsDevice, .sortUnsigned = sortUnsignedDevice,
                             .scan64 = Large::scan, .compact64 = Large::compact, .partition64 = Large::partition,
                             .sort64 = Large::sort};
    return row;
}

}  // namespace Cub
}  // namespace StreamCompaction
