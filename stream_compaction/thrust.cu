#include "thrust.h"

#include <cstddef>
#include <map>

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/partition.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/system/system_error.h>

#include "device_memory.h"
#include "errors.h"
#include "selection.h"

namespace StreamCompaction {
namespace Thrust {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

namespace {

// Thrust's temporary-allocation hook: blocks handed back are kept on a free list and
// reused by the next call that fits, so after a warm-up call a repeated call does no
// cudaMalloc or cudaFree.
// It is registered cached device memory: releaseWorkspaces() frees its free blocks.
class CachingAllocator : public Common::CachedDeviceMemory {
public:
    using value_type = char;

    CachingAllocator() = default;
    ~CachingAllocator() override { release(); }

    char *allocate(std::ptrdiff_t bytes) {
        auto block = freeBlocks_.lower_bound(static_cast<std::size_t>(bytes));
        char *ptr;
        std::size_t size;
        if (block != freeBlocks_.end()) {
            size = block->first;
            ptr = block->second;
            freeBlocks_.erase(block);
        } else {
            size = static_cast<std::size_t>(bytes);
            ptr = static_cast<char *>(Common::deviceAllocate(size));
        }
        blocksInUse_.emplace(ptr, size);
        return ptr;
    }

    void deallocate(char *ptr, std::size_t) {
        auto block = blocksInUse_.find(ptr);
        if (block == blocksInUse_.end()) return;  // not a block this cache handed out
        freeBlocks_.emplace(block->second, ptr);
        blocksInUse_.erase(block);
    }

    void release() noexcept override {
        for (auto &block : freeBlocks_) Common::deviceFree(block.second);
        freeBlocks_.clear();
    }

    std::size_t bytesHeld() const noexcept override {
        std::size_t bytes = 0;
        for (const auto &block : freeBlocks_) bytes += block.first;
        for (const auto &block : blocksInUse_) bytes += block.second;
        return bytes;
    }

private:
    std::multimap<std::size_t, char *> freeBlocks_;  // by size, for a best fit
    std::map<char *, std::size_t> blocksInUse_;
};

CachingAllocator temporaryStorage;

// Runs one Thrust call; Thrust's exceptions become CudaError with the operation's name.
template <typename Call>
auto thrustCall(Call call) {
    try {
        return call();
    } catch (const thrust::system_error &e) {
        throw CudaError(Common::Operation::describeCurrent() + ": " + e.what(),
                        static_cast<cudaError_t>(e.code().value()));
    }
}

// The policies. Scans and sorts only enqueue their work (par_nosync: no wait for the
// device before they return), as every GPU back end's calls do. copy_if and
// stable_partition return an iterator, so they wait for the device whatever the policy
// (Backend::countsOnHost).
auto enqueueOnly() { return thrust::cuda::par_nosync(temporaryStorage); }
auto waitingForTheCount() { return thrust::cuda::par(temporaryStorage); }

// Scan and sort, each written once and templated on the count type: int for the
// course's API, std::size_t for the 64-bit one (Backend::scan64; its compaction and partition
// are below, in chunks). A scan accumulates in the type of its initial value, Sum, so
// long long outputs get exact sums.
template <typename Count, typename Sum>
void scanOnDevice(Count n, Sum *dOut, const int *dIn) {
    thrustCall([&] { return thrust::exclusive_scan(enqueueOnly(), dIn, dIn + n, dOut, Sum{0}); });
}

// thrust::copy_if (CCCL 3.0) fails with an illegal address when it keeps more than
// 2^31 - 1 elements: on the H200 at n = 2^31 + 17 with nearly all kept, while the same n
// with a quarter dropped passed (results/h200/perf-notes.md, "CUB and Thrust"; its int offsets are
// NVIDIA/cccl#747). So the 64-bit API runs it over chunks of at most 2^30 elements; a
// stable partition is then two such passes, the kept elements and after them the
// rejected ones.

template <typename Select>
std::size_t copyIfInChunks(std::size_t n, int *dOut, const int *dIn, Select select) {
    return Common::selectInChunks(n, Common::kLibrarySelectChunk, [&](std::size_t first, std::size_t count, std::size_t written) {
        int *end = thrust::copy_if(waitingForTheCount(), dIn + first, dIn + first + count,
                                   dOut + written, select);
        return static_cast<std::size_t>(end - (dOut + written));
    });
}

template <typename Count, typename Key>
void sortOnDevice(Count n, Key *dOut, const Key *dIn) {
    thrustCall([&] {
        if (n == 0) return dOut;
        SC_CUDA_CHECK(cudaMemcpyAsync(dOut, dIn, n * sizeof(Key), cudaMemcpyDeviceToDevice));
        thrust::sort(enqueueOnly(), dOut, dOut + n);
        return dOut;
    });
}

// thrust::stable_sort_by_key sorts in place: the keys and values are copied to the
// outputs first, as for sort.
void sortPairsDevice(int n, int *dKeysOut, int *dValuesOut, const int *dKeysIn, const int *dValuesIn) {
    Common::Operation operation("thrust", "sort-pairs", n);
    thrustCall([&] {
        if (n == 0) return dKeysOut;
        SC_CUDA_CHECK(cudaMemcpyAsync(dKeysOut, dKeysIn, n * sizeof(int), cudaMemcpyDeviceToDevice));
        SC_CUDA_CHECK(cudaMemcpyAsync(dValuesOut, dValuesIn, n * sizeof(int), cudaMemcpyDeviceToDevice));
        thrust::stable_sort_by_key(enqueueOnly(), dKeysOut, dKeysOut + n, dValuesOut);
        return dKeysOut;
    });
}

// Thrust returns a compaction's end to the host; the count is copied to *kept from there.
// A copy this small from pageable memory returns once the driver has staged it. A
// one-thread kernel writing the count instead read 1.3–2.3 us more a call, within the
// drift between runs (results/h200/perf-notes.md, "CUB and Thrust").
void storeKept(int count, int *kept) { SC_CUDA_CHECK(cudaMemcpy(kept, &count, sizeof(int), cudaMemcpyHostToDevice)); }

}  // namespace

void scanDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("thrust", "scan", n);
    scanOnDevice(n, dOut, dIn);
}

void compactDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("thrust", "compact", n);
    if (n == 0) return;
    int *end = thrustCall([&] { return thrust::copy_if(waitingForTheCount(), dIn, dIn + n, dOut, keep); });
    storeKept(static_cast<int>(end - dOut), kept);
}

void partitionDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("thrust", "partition", n);
    if (n == 0) return;
    int *firstRejected = thrustCall([&] {
        SC_CUDA_CHECK(cudaMemcpyAsync(dOut, dIn, n * sizeof(int), cudaMemcpyDeviceToDevice));
        return thrust::stable_partition(waitingForTheCount(), dOut, dOut + n, keep);
    });
    storeKept(static_cast<int>(firstRejected - dOut), kept);
}

void sortDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("thrust", "sort", n);
    sortOnDevice(n, dOut, dIn);
}

void sortUnsignedDevice(int n, unsigned *dOut, const unsigned *dIn) {
    Common::Operation operation("thrust", "sort-unsigned", n);
    sortOnDevice(n, dOut, dIn);
}

namespace Large {

void scan(std::size_t n, long long *dOut, const int *dIn) {
    Common::Operation operation("thrust", "scan (64-bit)", static_cast<long long>(n));
    scanOnDevice(n, dOut, dIn);
}

std::size_t compact(std::size_t n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("thrust", "compact (64-bit)", static_cast<long long>(n));
    return thrustCall([&] { return copyIfInChunks(n, dOut, dIn, keep); });
}

std::size_t partition(std::size_t n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("thrust", "partition (64-bit)", static_cast<long long>(n));
    return thrustCall([&] {
        const std::size_t kept = copyIfInChunks(n, dOut, dIn, keep);
        copyIfInChunks(n, dOut + kept, dIn, Rejects{keep});
        return kept;
    });
}

void sort(std::size_t n, int *dOut, const int *dIn) {
    Common::Operation operation("thrust", "sort (64-bit)", static_cast<long long>(n));
    sortOnDevice(n, dOut, dIn);
}

}  // namespace Large

const Backend &backend() {
    static const Backend row{.name = "thrust", .title = "thrust", .countsOnHost = true, .timer = timer,
                             .scan = scanDevice, .compact = compactDevice, .partition = partitionDevice,
                             .sort = sortDevice, .sortPairs = sortPairsDevice, .sortUnsigned = sortUnsignedDevice,
                             .scan64 = Large::scan, .compact64 = Large::compact, .partition64 = Large::partition,
                             .sort64 = Large::sort};
    return row;
}

void scan(int n, int *odata, const int *idata) { hostScan(backend(), n, odata, idata); }

}  // namespace Thrust
}  // namespace StreamCompaction
