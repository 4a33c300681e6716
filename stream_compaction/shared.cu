#include "shared.h"

#include "block_scan.cuh"
#include "device_memory.h"
#include "device_primitives.cuh"
#include "errors.h"
#include "launch.h"

namespace StreamCompaction {
namespace Shared {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

namespace {

// Each thread owns kItemsPerThread consecutive elements of its block's tile: it scans
// them serially in registers, so the shared-memory tree has one leaf per thread rather
// than one per element (fewer levels, fewer barriers; CUDPP's scan did the same). The
// block size is the run's (Common::blockSize()); a tile of B threads takes about
// 4.2 * B * kItemsPerThread bytes of shared memory. One policy per GPU family
// (Common::PolicyFamily); only the H200's was timed. SC_SHARED_ITEMS_PER_THREAD is a
// tuning knob for measurements of the Hopper policy (results/h200/perf-notes.md: 16
// measured fastest of 4, 8, 16 and 32).
#ifndef SC_SHARED_ITEMS_PER_THREAD
#define SC_SHARED_ITEMS_PER_THREAD 16
#endif
template <int ItemsPerThread>
struct TilePolicy {
    static constexpr int kItemsPerThread = ItemsPerThread;
};

struct TilePolicies {
    // sm_90 (227 KiB a block): 16 items, 70 KiB at 1024 threads. The H200's measured shape.
    using Hopper = TilePolicy<SC_SHARED_ITEMS_PER_THREAD>;
    // sm_80 to sm_89 and sm_120 (99 KiB a block or more): 16 items fit every block size.
    using Ampere = Hopper;
    using Blackwell = Hopper;
    // sm_75 (64 KiB a block and per SM, 1024 threads per SM): 16 items leave 1024-thread
    // blocks unable to run (70 KiB) and fit one 512-thread block per SM (35 KiB); 8 items
    // run every block size and fit two 512-thread blocks, all of the SM's threads.
    using Turing = TilePolicy<8>;
};

Common::Workspace tileSums;  // every recursion level's tile sums, then the total

// GPU Gems 3, section 39.2.3: one padding word after every 32, so that the tree's
// strided accesses and the threads' runs of kItemsPerThread fall in distinct banks.
__host__ __device__ constexpr int padded(int index) { return index + (index >> 5); }

// The tree scan's leaf index with that padding (Common::treeExclusiveScan).
struct PaddedTree {
    __device__ __forceinline__ int operator()(int index) const { return padded(index); }
};

// What a tile scans: the elements themselves, or compaction's 0/1 keep flags.
enum class Input { Values, KeepFlags };

template <Input In>
__device__ inline unsigned scanned(int value, Predicate keep) {
    if constexpr (In == Input::Values) return static_cast<unsigned>(value);
    else return keep(value) ? 1u : 0u;
}

// Pass 1 of reduce-then-scan: the sum of each tile (of values or keep flags). Coalesced
// loads, a per-thread sum, then a block reduction with warp shuffles. Reading the input
// once here and once in kernTileScan moves 12 bytes per element in all, against 16 for
// scan-then-add (GPU Gems 3, 39.2.4), which writes and re-reads the scanned array.
template <typename P, Input In>
__global__ void kernTileSums(int n, int *sums, const int *in, Predicate keep) {
    __shared__ unsigned warpTotals[32];
    const long long tileBase = static_cast<long long>(blockIdx.x) * blockDim.x * P::kItemsPerThread;
    unsigned sum = 0;
#pragma unroll
    for (int r = 0; r < P::kItemsPerThread; ++r) {
        const long long i = tileBase + r * blockDim.x + threadIdx.x;
        if (i < n) sum += scanned<In>(in[i], keep);
    }
    sum = Common::warpSum(sum);
    if ((threadIdx.x & 31) == 0) warpTotals[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < blockDim.x / 32 ? warpTotals[threadIdx.x] : 0u;
        sum = Common::warpSum(sum);
        if (threadIdx.x == 0) sums[blockIdx.x] = static_cast<int>(sum);
    }
}

// Pass 2: the GPU Gems 3 scan of one tile in shared memory. The tile is loaded with
// coalesced reads into a padded buffer; each thread scans its kItemsPerThread
// consecutive elements serially, the thread sums go through the up-sweep/down-sweep
// tree, and each thread's elements get their exclusive prefixes plus the tile's offset
// (its entry in the scanned tile sums). Values: the prefixes are stored through the
// shared buffer, coalesced. KeepFlags: each kept element is staged at its rank and the
// tile's kept elements are stored coalesced at offset + rank (map, scan and scatter in
// one kernel). A lone tile (no offsets) writes the grand total to *total.
template <typename P, Input In>
__global__ void kernTileScan(int n, int *out, const int *in, const int *tileOffsets, int *total, int treeSize,
                             Predicate keep) {
    constexpr int kItemsPerThread = P::kItemsPerThread;
    extern __shared__ unsigned shared[];
    __shared__ unsigned tileTotal;
    const int tileItems = blockDim.x * kItemsPerThread;
    unsigned *stage = shared;                    // the tile's elements, padded
    unsigned *tree = shared + padded(tileItems);  // one leaf per thread, padded
    const long long tileBase = static_cast<long long>(blockIdx.x) * tileItems;

    for (int i = threadIdx.x; i < tileItems; i += blockDim.x) {
        const long long g = tileBase + i;
        stage[padded(i)] = g < n ? static_cast<unsigned>(in[g]) : 0u;
    }
    __syncthreads();

    const int first = threadIdx.x * kItemsPerThread;
    int items[kItemsPerThread];
    unsigned values[kItemsPerThread];
    unsigned threadSum = 0;
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
        items[k] = static_cast<int>(stage[padded(first + k)]);
        values[k] = tileBase + first + k < n ? scanned<In>(items[k], keep) : 0u;
        threadSum += values[k];
    }
    tree[padded(threadIdx.x)] = threadSum;
    for (int leaf = blockDim.x + threadIdx.x; leaf < treeSize; leaf += blockDim.x) tree[padded(leaf)] = 0;

    Common::treeExclusiveScan(tree, treeSize, 1, &tileTotal, PaddedTree{});
    if (threadIdx.x == 0 && total) *total = static_cast<int>(tileTotal);

    const unsigned offset = tileOffsets ? static_cast<unsigned>(tileOffsets[blockIdx.x]) : 0u;
    unsigned running = tree[padded(threadIdx.x)];
    if constexpr (In == Input::Values) {
#pragma unroll
        for (int k = 0; k < kItemsPerThread; ++k) {
            stage[padded(first + k)] = offset + running;
            running += values[k];
        }
        __syncthreads();
        for (int i = threadIdx.x; i < tileItems; i += blockDim.x) {
            const long long g = tileBase + i;
            if (g < n) out[g] = static_cast<int>(stage[padded(i)]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < kItemsPerThread; ++k) {
            if (values[k]) stage[padded(running)] = static_cast<unsigned>(items[k]);
            running += values[k];
        }
        __syncthreads();
        for (unsigned i = threadIdx.x; i < tileTotal; i += blockDim.x) {
            out[offset + i] = static_cast<int>(stage[padded(static_cast<int>(i))]);
        }
    }
}

struct Shape {
    Common::PolicyFamily family;  // whose tile policy the kernels take
    int threads;
    int tileItems;
    int treeSize;        // threads rounded up to a power of two
    size_t sharedBytes;  // kernTileScan's dynamic shared memory
};

Shape currentShape() {
    Shape shape;
    shape.family = Common::policyFamily();
    shape.threads = Common::blockSize();
    shape.tileItems = shape.threads * itemsPerThread(shape.family);
    shape.treeSize = 1 << ilog2ceil(shape.threads);
    shape.sharedBytes = sizeof(unsigned) * static_cast<size_t>(padded(shape.tileItems) + padded(shape.treeSize));
    // Past 48 KiB (512 threads and more) a kernel must opt in to its dynamic shared memory,
    // up to the device's limit.
    Common::requireSharedMemory(shape.sharedBytes);
    const int bytes = static_cast<int>(shape.sharedBytes);
    Common::withPolicy<TilePolicies>(shape.family, [bytes](auto policy) {
        using P = decltype(policy);
        SC_CUDA_CHECK(cudaFuncSetAttribute(kernTileScan<P, Input::Values>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           bytes));
        SC_CUDA_CHECK(cudaFuncSetAttribute(kernTileScan<P, Input::KeepFlags>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    });
    return shape;
}

int tilesFor(int count, const Shape &shape) { return static_cast<int>(Common::blocksFor(count, shape.tileItems)); }

// Scratch words that scanValues() needs below a scan of `count` values: each level's
// tile sums.
size_t levelWords(int count, const Shape &shape) {
    if (count <= shape.tileItems) return 0;
    const int tiles = tilesFor(count, shape);
    return static_cast<size_t>(tiles) + levelWords(tiles, shape);
}

// Exclusive scan of `count` values (in may be out), any count, with policy P: one tile
// is scanned in place; more are reduced, their sums scanned recursively, and each tile
// scanned with its offset. `scratch` holds levelWords(count) ints; *total gets the sum
// of all.
template <typename P>
void scanValuesWith(int count, int *out, const int *in, int *scratch, int *total, const Shape &shape) {
    if (count <= shape.tileItems) {
        kernTileScan<P, Input::Values><<<1, shape.threads, shape.sharedBytes>>>(count, out, in, nullptr, total,
                                                                               shape.treeSize, Predicate::nonZero());
        SC_CHECK_LAUNCH("kernTileScan<values>");
        return;
    }
    const int tiles = tilesFor(count, shape);
    kernTileSums<P, Input::Values><<<tiles, shape.threads>>>(count, scratch, in, Predicate::nonZero());
    SC_CHECK_LAUNCH("kernTileSums<values>");
    scanValuesWith<P>(tiles, scratch, scratch, scratch + tiles, total, shape);
    kernTileScan<P, Input::Values><<<tiles, shape.threads, shape.sharedBytes>>>(count, out, in, scratch, nullptr,
                                                                               shape.treeSize, Predicate::nonZero());
    SC_CHECK_LAUNCH("kernTileScan<values>");
}

// The same with the shape's policy.
void scanValues(int count, int *out, const int *in, int *scratch, int *total, const Shape &shape) {
    Common::withPolicy<TilePolicies>(shape.family, [&](auto policy) {
        scanValuesWith<decltype(policy)>(count, out, in, scratch, total, shape);
    });
}

// Compaction of n > 0 elements into dOut with the shape's policy: each tile's kept count
// into tileCounts, their exclusive scan in place (*keptTotal gets the sum), then each
// tile's kept elements at its offset. `scratch` holds levelWords(tiles) ints.
void compactTiles(int n, int *dOut, const int *dIn, Predicate keep, int *tileCounts, int *scratch, int *keptTotal,
                  const Shape &shape) {
    const int tiles = tilesFor(n, shape);
    Common::withPolicy<TilePolicies>(shape.family, [&](auto policy) {
        using P = decltype(policy);
        kernTileSums<P, Input::KeepFlags><<<tiles, shape.threads>>>(n, tileCounts, dIn, keep);
        SC_CHECK_LAUNCH("kernTileSums<flags>");
        scanValuesWith<P>(tiles, tileCounts, tileCounts, scratch, keptTotal, shape);
        kernTileScan<P, Input::KeepFlags><<<tiles, shape.threads, shape.sharedBytes>>>(n, dOut, dIn, tileCounts, nullptr,
                                                                                      shape.treeSize, keep);
        SC_CHECK_LAUNCH("kernTileScan<flags>");
    });
}

}  // namespace

int itemsPerThread(Common::PolicyFamily family) {
    return Common::withPolicy<TilePolicies>(family, [](auto policy) { return decltype(policy)::kItemsPerThread; });
}

void scanDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("shared", "scan", n);
    const Shape shape = currentShape();
    int *scratch = tileSums.reserve<int>(levelWords(n, shape) + 1);
    int *total = scratch + levelWords(n, shape);
    if (n > 0) scanValues(n, dOut, dIn, scratch, total, shape);
}

void compactDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("shared", "compact", n);
    const Shape shape = currentShape();
    const int tiles = tilesFor(n, shape);
    const size_t words = static_cast<size_t>(tiles) + levelWords(tiles, shape);
    int *tileCounts = tileSums.reserve<int>(words);  // kept per tile, then their scan
    int *scratch = tileCounts + tiles;
    if (n > 0) compactTiles(n, dOut, dIn, keep, tileCounts, scratch, kept, shape);  // the scan's total is the count
}

const Backend &backend() {
    static const Backend row{.name = "shared", .title = "shared-memory", .honoursBlockSize = true, .timer = timer,
                             .scan = scanDevice, .compact = compactDevice};
    return row;
}

}  // namespace Shared
}  // namespace StreamCompaction
