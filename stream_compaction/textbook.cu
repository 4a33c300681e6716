#include "textbook.h"

#include <stdexcept>

#include "block_scan.cuh"
#include "device_memory.h"
#include "device_primitives.cuh"
#include "errors.h"
#include "launch.h"

namespace StreamCompaction {
namespace Textbook {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

namespace {

// What a split does with one value: the bucket it joins, or `buckets` when it joins none.
// Compaction is a split into one bucket that drops the rest; partition, into the kept
// bucket and the rejected one; the multi-way partition and the radix sort take their
// buckets from a BucketFunction.
struct Split {
    enum class Kind { ByPredicate, ByBucketFunction };

    Kind kind;
    int buckets;
    Predicate keep;
    BucketFunction bucketOf;

    static Split compaction(Predicate keep) { return {Kind::ByPredicate, 1, keep, {}}; }
    static Split partition(Predicate keep) { return {Kind::ByPredicate, 2, keep, {}}; }
    static Split multiWay(BucketFunction bucketOf) {
        return {Kind::ByBucketFunction, bucketOf.count(), Predicate::nonZero(), bucketOf};
    }

    __device__ int operator()(int v) const {
        if (kind == Kind::ByPredicate) return keep(v) ? 0 : 1;
        return bucketOf(v);
    }
};

// The smallest power of two holding one element per thread of a block.
int scanSizeFor(int threads) { return 1 << ilog2ceil(threads); }

// Kernel 1 of 6.2, generalised to several buckets: each block splits its own tile of
// blockDim * kItemsPerThread values. The tile is loaded coalesced into shared memory and
// each thread takes a run of kItemsPerThread consecutive values, counting them per bucket
// in its own column of threadCounts. One shared-memory scan per bucket over those columns
// gives each thread where its run starts inside every bucket (the chapter's flag scan,
// with one flag per thread-run instead of per value, so eight values share each barrier);
// the thread then ranks its values in order, and a stable local scatter through shared
// memory puts the tile in bucket order, written out coalesced to the block's own segment
// of tileKeys. Records each bucket's count at bucketCounts[bucket * tiles + block]:
// bucket-major, so that one exclusive scan of the whole table gives every block its
// place in every bucket. A value that joins no bucket (compaction's rejects) is dropped.
template <bool WithValues>
__global__ void kernSplitTiles(int n, Split split, int scanSize, const int *keysIn, const int *valuesIn,
                               int *tileKeys, int *tileValues, int *bucketCounts, int tiles) {
    extern __shared__ int shared[];
    const int lanes = split.buckets;
    const int tileSize = blockDim.x * kItemsPerThread;
    int *threadCounts = shared;                          // lanes x scanSize: per bucket, each thread's count
    int *bucketTotals = threadCounts + lanes * scanSize;  // lanes
    int *bucketStarts = bucketTotals + lanes;             // lanes: where each bucket begins in the tile
    int *stagedKeys = bucketStarts + lanes;               // tileSize
    int *stagedValues = stagedKeys + tileSize;            // tileSize, WithValues only

    const int t = threadIdx.x;
    const long long tileBase = static_cast<long long>(blockIdx.x) * tileSize;
    const int tileCount = static_cast<int>(min(static_cast<long long>(tileSize), n - tileBase));

    for (int j = t; j < tileCount; j += blockDim.x) {
        stagedKeys[j] = keysIn[tileBase + j];
        if (WithValues) stagedValues[j] = valuesIn[tileBase + j];
    }
    for (int lane = 0; lane < lanes; ++lane) {
        threadCounts[lane * scanSize + t] = 0;
        if (blockDim.x + t < scanSize) threadCounts[lane * scanSize + blockDim.x + t] = 0;  // padding
    }
    __syncthreads();

    int keys[kItemsPerThread], values[kItemsPerThread], buckets[kItemsPerThread];
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
        const int j = t * kItemsPerThread + k;
        const bool present = j < tileCount;
        keys[k] = present ? stagedKeys[j] : 0;
        values[k] = WithValues && present ? stagedValues[j] : 0;
        buckets[k] = present ? split(keys[k]) : lanes;
        if (buckets[k] < lanes) ++threadCounts[buckets[k] * scanSize + t];
    }
    // Blelloch's work-efficient scan (GPU Gems 3, 39.2.2; the chapter's 6.1) of every
    // bucket's column at once: "one scan per group", as 6.3 asks, costs one set of
    // barriers however many groups there are. Leaves each bucket's total in bucketTotals.
    Common::treeExclusiveScan(threadCounts, scanSize, lanes, bucketTotals);

    if (t < lanes) {
        int start = 0;
        for (int earlier = 0; earlier < t; ++earlier) start += bucketTotals[earlier];
        bucketStarts[t] = start;
        bucketCounts[static_cast<long long>(t) * tiles + blockIdx.x] = bucketTotals[t];
    }
    __syncthreads();
    // Every thread read its run before the scan's first barrier, so the staging can be reused.
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
        if (buckets[k] < lanes) {
            int &nextInBucket = threadCounts[buckets[k] * scanSize + t];
            const int rank = bucketStarts[buckets[k]] + nextInBucket++;
            stagedKeys[rank] = keys[k];
            if (WithValues) stagedValues[rank] = values[k];
        }
    }
    __syncthreads();
    const int tileKept = bucketStarts[lanes - 1] + bucketTotals[lanes - 1];
    for (int j = t; j < tileKept; j += blockDim.x) {
        tileKeys[tileBase + j] = stagedKeys[j];
        if (WithValues) tileValues[tileBase + j] = stagedValues[j];
    }
}

// Kernel 3 of 6.2, the stitch: a block moves its tile's staged values to their final
// places. The j-th value of bucket b in block k goes to bucketOffsets[b * tiles + k] + j;
// its bucket is recomputed from the value, and j is its position past the bucket's
// start inside the tile.
template <bool WithValues>
__global__ void kernStitchTiles(Split split, const int *tileKeys, const int *tileValues, int *keysOut,
                                int *valuesOut, const int *bucketCounts, const int *bucketOffsets, int tiles) {
    __shared__ int localStarts[kMaxBuckets + 1];  // [lanes]: how many the tile kept
    __shared__ int globalStarts[kMaxBuckets];
    const int lanes = split.buckets;
    const int t = threadIdx.x;
    if (t <= lanes) {
        int start = 0;
        for (int earlier = 0; earlier < t; ++earlier) start += bucketCounts[static_cast<long long>(earlier) * tiles + blockIdx.x];
        localStarts[t] = start;
        if (t < lanes) globalStarts[t] = bucketOffsets[static_cast<long long>(t) * tiles + blockIdx.x];
    }
    __syncthreads();
    const long long tileBase = static_cast<long long>(blockIdx.x) * blockDim.x * kItemsPerThread;
    for (int j = t; j < localStarts[lanes]; j += blockDim.x) {
        const int key = tileKeys[tileBase + j];
        const int bucket = split(key);
        const long long to = globalStarts[bucket] + (j - localStarts[bucket]);
        keysOut[to] = key;
        if (WithValues) valuesOut[to] = tileValues[tileBase + j];
    }
}

// Kernel 2 of 6.2 is Chapter 5.3's scan of any length; this is its first step: each block
// scans its tile in shared memory with the same block scan, and records the tile's sum.
// `in` may be `out`.
__global__ void kernScanTiles(int count, int scanSize, const int *in, int *out, int *tileSums) {
    extern __shared__ int scan[];  // scanSize, then the total
    const int t = threadIdx.x;
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + t;
    scan[t] = i < count ? in[i] : 0;
    if (blockDim.x + t < scanSize) scan[blockDim.x + t] = 0;
    Common::treeExclusiveScan(scan, scanSize, 1, scan + scanSize);
    if (i < count) out[i] = scan[t];
    if (t == 0 && tileSums) tileSums[blockIdx.x] = scan[scanSize];
}

// Chapter 5.3's last step: every element adds the scanned sum of the tiles before its own.
__global__ void kernAddTileOffsets(int count, int *data, const int *tileOffsets) {
    const long long i = Common::threadIndex();
    if (i < count) data[i] += tileOffsets[blockIdx.x];
}

// How many tile sums each level of the recursive scan keeps, all levels together.
std::size_t scanScratchFor(long long count, int threads) {
    std::size_t total = 0;
    for (long long tiles = Common::blocksFor(count, threads); tiles > 1; tiles = Common::blocksFor(tiles, threads)) {
        total += static_cast<std::size_t>(tiles);
    }
    return total;
}

// Exclusive scan of `count` ints of any length (Chapter 5.3): scan the tiles, scan the
// tile sums the same way, add each tile's offset back. tileSums holds scanScratchFor().
void exclusiveScan(int count, const int *in, int *out, int *tileSums) {
    const int threads = Common::blockSize();
    const int scanSize = scanSizeFor(threads);
    const unsigned int tiles = Common::blocksFor(count, threads);
    const std::size_t sharedBytes = (scanSize + 1) * sizeof(int);
    kernScanTiles<<<tiles, threads, sharedBytes>>>(count, scanSize, in, out, tiles > 1 ? tileSums : nullptr);
    SC_CHECK_LAUNCH("kernScanTiles");
    if (tiles == 1) return;
    exclusiveScan(static_cast<int>(tiles), tileSums, tileSums, tileSums + tiles);
    kernAddTileOffsets<<<tiles, threads>>>(count, out, tileSums);
    SC_CHECK_LAUNCH("kernAddTileOffsets");
}

// A split's scratch, kept across calls so that a timed call never allocates.
Common::Workspace tileKeysSpace;      // each block's values, staged in bucket order
Common::Workspace tileValuesSpace;    // the values carried alongside, likewise
Common::Workspace bucketCountsSpace;  // buckets x blocks counts, then a zero
Common::Workspace bucketOffsetsSpace; // their exclusive scan; the last entry is the total
Common::Workspace scanTileSumsSpace;  // the count scan's tile sums, every level

struct SplitBuffers {
    int tiles;  // blocks of Common::blockSize() * kItemsPerThread values
    int *tileKeys;
    int *tileValues;
    int *bucketCounts;
    int *bucketOffsets;
    int *scanTileSums;
};

std::size_t splitSharedBytes(int threads, int buckets, bool withValues) {
    return (static_cast<std::size_t>(buckets) * scanSizeFor(threads) + 2 * buckets +
            (withValues ? 2 : 1) * static_cast<std::size_t>(threads) * kItemsPerThread) * sizeof(int);
}

// Lets kernSplitTiles take `bytes` of shared memory: a large block with many buckets
// needs more than the default 48 KiB.
template <bool WithValues>
void allowSplitSharedBytes(int bytes) {
    static int allowed = 48 * 1024;
    if (bytes <= allowed) return;
    SC_CUDA_CHECK(cudaFuncSetAttribute(kernSplitTiles<WithValues>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    allowed = bytes;
}

SplitBuffers reserveSplitBuffers(int n, int buckets, bool withValues) {
    if (buckets < 1 || buckets > kMaxBuckets) {
        throw std::invalid_argument(Common::Operation::describeCurrent() + ": " + std::to_string(buckets) +
                                    " buckets; a split takes 1 to " + std::to_string(kMaxBuckets));
    }
    const int threads = Common::blockSize();
    const std::size_t splitBytes = splitSharedBytes(threads, buckets, withValues);
    Common::requireSharedMemory(splitBytes);  // before any allocation: a split that cannot run changes nothing
    SplitBuffers buffers{};
    buffers.tiles = static_cast<int>(Common::blocksFor(n, threads * kItemsPerThread));
    const std::size_t tableSize = static_cast<std::size_t>(buckets) * buffers.tiles + 1;
    buffers.tileKeys = tileKeysSpace.reserve<int>(n);
    buffers.tileValues = withValues ? tileValuesSpace.reserve<int>(n) : nullptr;
    buffers.bucketCounts = bucketCountsSpace.reserve<int>(tableSize);
    buffers.bucketOffsets = bucketOffsetsSpace.reserve<int>(tableSize);
    buffers.scanTileSums = scanTileSumsSpace.reserve<int>(scanScratchFor(static_cast<long long>(tableSize), threads));
    const int sharedBytes = static_cast<int>(splitBytes);
    if (withValues) {
        allowSplitSharedBytes<true>(sharedBytes);
    } else {
        allowSplitSharedBytes<false>(sharedBytes);
    }
    return buffers;
}

// The three kernels of 6.2 for any split, untimed; n > 0 and the buffers reserved. One
// block needs no stitch: it splits straight into the output (6.1). Afterwards
// bucketOffsets[b * tiles] is where bucket b starts, for b = 0..buckets.
template <bool WithValues>
void runSplit(int n, const Split &split, int *keysOut, const int *keysIn, int *valuesOut, const int *valuesIn,
              const SplitBuffers &buffers) {
    const int threads = Common::blockSize();
    const int tiles = buffers.tiles;
    const bool oneTile = tiles == 1;
    int *stagedKeys = oneTile ? keysOut : buffers.tileKeys;
    int *stagedValues = oneTile ? valuesOut : buffers.tileValues;
    const int tableSize = split.buckets * tiles;

    // The zero past the last count makes the scan's last entry the total.
    SC_CUDA_CHECK(cudaMemsetAsync(buffers.bucketCounts + tableSize, 0, sizeof(int)));
    kernSplitTiles<WithValues><<<tiles, threads, splitSharedBytes(threads, split.buckets, WithValues)>>>(
        n, split, scanSizeFor(threads), keysIn, valuesIn, stagedKeys, stagedValues, buffers.bucketCounts, tiles);
    SC_CHECK_LAUNCH("kernSplitTiles");
    exclusiveScan(tableSize + 1, buffers.bucketCounts, buffers.bucketOffsets, buffers.scanTileSums);
    if (oneTile) return;
    kernStitchTiles<WithValues><<<tiles, threads>>>(split, buffers.tileKeys, buffers.tileValues, keysOut, valuesOut,
                                                    buffers.bucketCounts, buffers.bucketOffsets, tiles);
    SC_CHECK_LAUNCH("kernStitchTiles");
}

// Where each bucket starts, and the total: buckets + 1 entries, bucket-major rows apart.
std::vector<int> downloadBucketStarts(int buckets, const SplitBuffers &buffers) {
    std::vector<int> starts(static_cast<std::size_t>(buckets) + 1);
    SC_CUDA_CHECK(cudaMemcpy2D(starts.data(), sizeof(int), buffers.bucketOffsets, buffers.tiles * sizeof(int),
                               sizeof(int), starts.size(), cudaMemcpyDeviceToHost));
    return starts;
}

// A split of device keys alone, device work only; returns its buffers, which hold where
// each bucket starts (bucketOffsets, a row of `tiles` per bucket).
SplitBuffers splitKeys(int n, int *dOut, const int *dIn, const Split &split) {
    const SplitBuffers buffers = reserveSplitBuffers(n, split.buckets, false);
    if (n > 0) runSplit<false>(n, split, dOut, dIn, nullptr, nullptr, buffers);
    return buffers;
}

// A split's bucket starts read back, or all zeros for n == 0.
std::vector<int> splitWithStarts(int n, int *dOut, const int *dIn, const Split &split, SplitBuffers *used = nullptr) {
    const SplitBuffers buffers = splitKeys(n, dOut, dIn, split);
    if (used) *used = buffers;
    if (n == 0) return std::vector<int>(static_cast<std::size_t>(split.buckets) + 1, 0);
    return downloadBucketStarts(split.buckets, buffers);
}

// A two-way split (compaction, partition) with the kept count, where bucket 1 starts,
// copied to *kept on the device.
void splitWithCount(int n, int *dOut, const int *dIn, const Split &split, int *kept) {
    const SplitBuffers buffers = splitKeys(n, dOut, dIn, split);
    if (n > 0) {
        SC_CUDA_CHECK(cudaMemcpyAsync(kept, buffers.bucketOffsets + buffers.tiles, sizeof(int), cudaMemcpyDeviceToDevice));
    }
}

}  // namespace

void compactDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("textbook", "compact", n);
    splitWithCount(n, dOut, dIn, Split::compaction(keep), kept);
}

CompactionSteps compactDeviceSteps(int n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("textbook", "compact", n);
    SplitBuffers buffers{};
    CompactionSteps steps;
    steps.kept = splitWithStarts(n, dOut, dIn, Split::compaction(keep), &buffers)[1];
    if (n == 0) return steps;
    steps.blockCounts.resize(buffers.tiles);
    steps.blockOffsets.resize(buffers.tiles);
    SC_CUDA_CHECK(cudaMemcpy(steps.blockCounts.data(), buffers.bucketCounts, buffers.tiles * sizeof(int),
                             cudaMemcpyDeviceToHost));
    SC_CUDA_CHECK(cudaMemcpy(steps.blockOffsets.data(), buffers.bucketOffsets, buffers.tiles * sizeof(int),
                             cudaMemcpyDeviceToHost));
    return steps;
}

void partitionDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("textbook", "partition", n);
    splitWithCount(n, dOut, dIn, Split::partition(keep), kept);
}

std::vector<int> multiPartitionDevice(int n, int *dOut, const int *dIn, BucketFunction bucketOf) {
    Common::Operation operation("textbook", "multi-way partition", n);
    if (bucketOf.kind == BucketFunction::Kind::Modulo && bucketOf.operand < 1) {
        throw std::invalid_argument("textbook multi-way partition: " + bucketOf.name() + " needs k >= 1");
    }
    return splitWithStarts(n, dOut, dIn, Split::multiWay(bucketOf));
}

void reserveSplit(int n, int buckets, bool withValues) { reserveSplitBuffers(n, buckets, withValues); }

void splitDevice(int n, int *keysOut, const int *keysIn, int *valuesOut, const int *valuesIn, BucketFunction bucketOf) {
    if (n <= 0) return;
    const Split split = Split::multiWay(bucketOf);
    const bool withValues = valuesIn != nullptr;
    const SplitBuffers buffers = reserveSplitBuffers(n, split.buckets, withValues);
    if (withValues) {
        runSplit<true>(n, split, keysOut, keysIn, valuesOut, valuesIn, buffers);
    } else {
        runSplit<false>(n, split, keysOut, keysIn, nullptr, nullptr, buffers);
    }
}

const Backend &backend() {
    static const Backend row{.name = "textbook", .title = "textbook", .honoursBlockSize = true, .timer = timer,
                             .compact = compactDevice, .partition = partitionDevice};
    return row;
}

}  // namespace Textbook
}  // namespace StreamCompaction
