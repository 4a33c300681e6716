#include "decoupled.h"

#include <cstdint>

#include <cuda/atomic>

namespace StreamCompaction {
namespace Decoupled {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() {
    static PerformanceTimer timer;
    return timer;
}

namespace {

// Tile shape. Each thread loads kVectors 16-byte vectors; a warp's vectors are laid out
// so that every load instruction of the warp reads 512 contiguous bytes.
// SC_DECOUPLED_VECTORS_PER_THREAD is a tuning knob for measurements
// (results/h200/perf-notes.md: 8 vectors, 32 items a thread, measured fastest).
#ifndef SC_DECOUPLED_VECTORS_PER_THREAD
#define SC_DECOUPLED_VECTORS_PER_THREAD 8
#endif
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kVectors = SC_DECOUPLED_VECTORS_PER_THREAD;
constexpr int kWarpItems = kVectors * 32 * 4;
constexpr int kTileItems = kWarps * kWarpItems;
constexpr unsigned kFullMask = 0xffffffffu;

enum class Mode { Scan, Compact, Partition };

// A tile's status word packs an epoch (30 bits), a flag (2 bits) and a 32-bit value, so
// that one 64-bit store publishes flag and value together. The epoch is the call's
// number: a word from an earlier call reads as "not yet published", so the status
// array needs no clearing between calls.
constexpr unsigned long long kFlagAggregate = 1;  // value: the tile's own sum
constexpr unsigned long long kFlagInclusive = 2;  // value: the sum up to and including the tile
constexpr unsigned long long kLastEpoch = (1ull << 30) - 1;

struct TileState {
    unsigned long long *tileStatus;  // one status word per tile
    unsigned int *tileCounter;       // the next tile index to hand out; back to 0 after each call
    int *keptCount;                  // compact and partition: the total, written by the last tile
    unsigned long long epoch;
    unsigned int numTiles;
};

using StatusRef = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

__device__ inline void publish(const TileState &state, unsigned int tile, unsigned long long flag, unsigned value) {
    StatusRef(state.tileStatus[tile]).store((state.epoch << 34) | (flag << 32) | value, cuda::memory_order_relaxed);
}

__device__ inline unsigned warpSum(unsigned value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(kFullMask, value, offset);
    return value;
}

// Kogge-Stone inclusive scan across the warp's lanes of `count` independent values at
// once, so that their shuffles overlap.
template <int Count>
__device__ inline void warpInclusiveScan(unsigned (&values)[Count], unsigned lane) {
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
#pragma unroll
        for (int j = 0; j < Count; ++j) {
            const unsigned below = __shfl_up_sync(kFullMask, values[j], offset);
            if (lane >= static_cast<unsigned>(offset)) values[j] += below;
        }
    }
}

// Decoupled look-back (Merrill and Garland, section 4), by one warp: lane i waits for
// the status of tile (window - i), then the warp adds up the values from the nearest
// predecessor back to the nearest inclusive prefix; without one in the window, it adds
// all 32 aggregates and slides the window 32 tiles back. Tiles before 0 read as an
// inclusive prefix of 0. Every predecessor drew its index earlier, so it is running or
// done and publishes eventually: the wait cannot deadlock. (Wider windows, several
// words per lane, and backing off with __nanosleep measured no faster: perf-notes.md.)
__device__ unsigned lookBack(const TileState &state, int tile, unsigned lane) {
    unsigned exclusive = 0;
    for (int window = tile - 1;; window -= 32) {
        const int predecessor = window - static_cast<int>(lane);
        unsigned long long word = (state.epoch << 34) | (kFlagInclusive << 32);
        if (predecessor >= 0) {
            const StatusRef status(state.tileStatus[predecessor]);
            do {
                word = status.load(cuda::memory_order_relaxed);
            } while ((word >> 34) != state.epoch);
        }
        const unsigned value = static_cast<unsigned>(word);
        const unsigned inclusiveLanes = __ballot_sync(kFullMask, ((word >> 32) & 3) == kFlagInclusive);
        if (inclusiveLanes != 0) {
            const unsigned nearest = __ffs(inclusiveLanes) - 1;
            return exclusive + warpSum(lane <= nearest ? value : 0u);
        }
        exclusive += warpSum(value);
    }
}

// What a tile scans: the item itself, or compaction's keep flag (0 past n).
template <bool Flags>
__device__ inline unsigned scannedValue(int item, bool inRange, Predicate keep) {
    if constexpr (Flags) return inRange && keep(item) ? 1u : 0u;
    else return static_cast<unsigned>(item);
}

// One tile of the single-pass algorithm, for all three operations. The tile's index
// comes from an atomic counter, not blockIdx, so tiles start in index order whatever the
// scheduler does, and a tile only ever waits on tiles that have started.
//   1. Load kVectors int4 per thread (scalar loads past n or for unaligned arrays).
//   2. Scan the values (Scan) or the 0/1 keep flags (Compact, Partition) in registers:
//      per thread, per warp with shuffles, per tile through shared memory.
//   3. Warp 0 publishes the tile's aggregate, looks back for the prefix of the tiles
//      before it, and publishes the inclusive prefix.
//   4. Scan: write the prefixes with int4 stores. Compact/Partition: stage the tile's
//      kept elements (then its rejected ones) in shared memory in output order, and copy
//      them out with coalesced stores: kept ones to keptBefore + rank, rejected ones to
//      n - 1 - (rejectedBefore + rank), i.e. from the back in reverse order.
template <Mode M>
__global__ void __launch_bounds__(kThreads)
    kernDecoupledTile(int n, int *out, const int *in, Predicate keep, TileState state, bool vectorAligned) {
    constexpr bool kFlags = M != Mode::Scan;
    __shared__ unsigned int sTile;
    __shared__ unsigned sWarpPrefix[kWarps];  // each warp's total, then its exclusive prefix in the tile
    __shared__ unsigned sTilePrefix;
    __shared__ unsigned sTileAggregate;
    __shared__ int sStage[kFlags ? kTileItems : 1];

    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) {
        const unsigned int tile = atomicAdd(state.tileCounter, 1u);
        // The last index is drawn after every other block has drawn its own: reset.
        if (tile == state.numTiles - 1) atomicExch(state.tileCounter, 0u);
        sTile = tile;
    }
    __syncthreads();
    const int tile = static_cast<int>(sTile);
    const long long tileBase = static_cast<long long>(tile) * kTileItems;
    const long long warpBase = tileBase + warp * kWarpItems;

    int items[kVectors][4];
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
        const long long first = warpBase + j * 128 + lane * 4;
        if (vectorAligned && first + 4 <= n) {
            const int4 vector = __ldg(reinterpret_cast<const int4 *>(in + first));
            items[j][0] = vector.x;
            items[j][1] = vector.y;
            items[j][2] = vector.z;
            items[j][3] = vector.w;
        } else {
#pragma unroll
            for (int k = 0; k < 4; ++k) items[j][k] = first + k < n ? in[first + k] : 0;
        }
    }
    // The scanned values are recomputed where needed rather than kept, which saves
    // 4 * kVectors registers.
    auto scanned = [&](int j, int k) {
        return scannedValue<kFlags>(items[j][k], warpBase + j * 128 + lane * 4 + k < n, keep);
    };
    unsigned laneSums[kVectors];
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
        laneSums[j] = 0;
#pragma unroll
        for (int k = 0; k < 4; ++k) laneSums[j] += scanned(j, k);
    }

    // Vector j of the warp covers 128 items; lane l holds its items 4l..4l+3. After the
    // scan, laneSums[j] is the sum of the warp's items before this lane's in vector j.
    unsigned inclusive[kVectors];
#pragma unroll
    for (int j = 0; j < kVectors; ++j) inclusive[j] = laneSums[j];
    warpInclusiveScan(inclusive, lane);
    unsigned warpTotal = 0;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
        laneSums[j] = warpTotal + inclusive[j] - laneSums[j];
        warpTotal += __shfl_sync(kFullMask, inclusive[j], 31);
    }
    if (lane == 0) sWarpPrefix[warp] = warpTotal;
    __syncthreads();

    if (warp == 0) {
        unsigned warpPrefix[1] = {lane < kWarps ? sWarpPrefix[lane] : 0u};
        const unsigned ownTotal = warpPrefix[0];
        warpInclusiveScan(warpPrefix, lane);
        const unsigned aggregate = __shfl_sync(kFullMask, warpPrefix[0], kWarps - 1);
        if (lane < kWarps) sWarpPrefix[lane] = warpPrefix[0] - ownTotal;
        unsigned prefix = 0;
        if (tile == 0) {
            if (lane == 0) publish(state, 0, kFlagInclusive, aggregate);
        } else {
            if (lane == 0) publish(state, tile, kFlagAggregate, aggregate);
            prefix = lookBack(state, tile, lane);
            if (lane == 0) publish(state, tile, kFlagInclusive, prefix + aggregate);
        }
        if (lane == 0) {
            sTilePrefix = prefix;
            sTileAggregate = aggregate;
            if (kFlags && tile == static_cast<int>(state.numTiles) - 1) *state.keptCount = static_cast<int>(prefix + aggregate);
        }
    }
    __syncthreads();

    if constexpr (M == Mode::Scan) {
        const unsigned warpPrefix = sTilePrefix + sWarpPrefix[warp];
#pragma unroll
        for (int j = 0; j < kVectors; ++j) {
            const long long first = warpBase + j * 128 + lane * 4;
            int prefixes[4];
            unsigned running = warpPrefix + laneSums[j];
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                prefixes[k] = static_cast<int>(running);
                running += scanned(j, k);
            }
            if (vectorAligned && first + 4 <= n) {
                *reinterpret_cast<int4 *>(out + first) = make_int4(prefixes[0], prefixes[1], prefixes[2], prefixes[3]);
            } else {
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    if (first + k < n) out[first + k] = prefixes[k];
                }
            }
        }
    } else {
        const unsigned tileKept = sTileAggregate;
        const int warpOffset = static_cast<int>(warp) * kWarpItems;
#pragma unroll
        for (int j = 0; j < kVectors; ++j) {
            unsigned rank = sWarpPrefix[warp] + laneSums[j];  // kept items before this one in the tile
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int local = warpOffset + j * 128 + static_cast<int>(lane) * 4 + k;
                const unsigned kept = scanned(j, k);
                if (kept) {
                    sStage[rank] = items[j][k];
                } else if (M == Mode::Partition && tileBase + local < n) {
                    sStage[tileKept + (local - rank)] = items[j][k];
                }
                rank += kept;
            }
        }
        __syncthreads();
        const long long keptBefore = sTilePrefix;
        for (unsigned s = threadIdx.x; s < tileKept; s += kThreads) out[keptBefore + s] = sStage[s];
        if constexpr (M == Mode::Partition) {
            const long long tileItems = n - tileBase < kTileItems ? n - tileBase : kTileItems;
            const long long rejectedBefore = tileBase - keptBefore;
            for (long long s = tileKept + threadIdx.x; s < tileItems; s += kThreads) {
                out[n - 1 - (rejectedBefore + (s - tileKept))] = sStage[s];
            }
        }
    }
}

// The partition fix-up: reverses data[k, n) in place, k read on the device. A
// grid-stride loop over the (n - k) / 2 swaps with a grid sized to fill the GPU once, so
// no blocks are launched only to find that their elements were kept. Count is int, or
// long long for the 64-bit API (large.h).
template <typename Count>
__global__ void kernReverseRejected(Count n, int *data, const Count *keptCount) {
    const long long kept = *keptCount;
    const long long swaps = (n - kept) / 2;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = Common::threadIndex(); i < swaps; i += stride) {
        const long long front = kept + i;
        const long long back = n - 1 - i;
        const int frontValue = data[front];
        data[front] = data[back];
        data[back] = frontValue;
    }
}

// [tile counter, kept count, one status word per tile]. Not a Common::Workspace: the
// epochs in it must survive between calls, and releaseWorkspaces() would free it
// behind this back end's back. Grows only; at most 8 bytes per tile.
Common::DeviceBuffer<unsigned long long> tileWords;
unsigned long long currentEpoch = kLastEpoch;  // forces the first call to clear the buffer

// Untimed preparation: grows and clears the tile words when needed, and takes this
// call's epoch. A clear happens on growth and once every 2^30 - 1 calls.
TileState prepareTiles(int n) {
    const unsigned int numTiles = static_cast<unsigned int>((static_cast<long long>(n) + kTileItems - 1) / kTileItems);
    const std::size_t words = 2 + static_cast<std::size_t>(numTiles);
    if (words > tileWords.size() || currentEpoch == kLastEpoch) {
        tileWords.reserve(words < 4096 ? 4096 : words);
        tileWords.fillBytes(0, tileWords.size());
        currentEpoch = 0;
    }
    ++currentEpoch;
    unsigned long long *base = tileWords.get();
    return {base + 2, reinterpret_cast<unsigned int *>(base), reinterpret_cast<int *>(base + 1), currentEpoch, numTiles};
}

bool aligned16(const void *ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; }

template <Mode M>
void launchTiles(int n, int *dOut, const int *dIn, Predicate keep, const TileState &state) {
    const bool vectorAligned = aligned16(dIn) && aligned16(dOut);
    kernDecoupledTile<M><<<state.numTiles, kThreads>>>(n, dOut, dIn, keep, state, vectorAligned);
    SC_CHECK_LAUNCH("kernDecoupledTile");
}

int downloadCount(const int *dCount) {
    int count = 0;
    SC_CUDA_CHECK(cudaMemcpy(&count, dCount, sizeof(int), cudaMemcpyDeviceToHost));
    return count;
}

int reversalBlocks(long long n) {
    static const int multiprocessors = [] {
        int device = 0, count = 0;
        SC_CUDA_CHECK(cudaGetDevice(&device));
        SC_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
        return count;
    }();
    const unsigned int needed = Common::blocksFor(n / 2 + 1, kThreads);
    const unsigned int full = static_cast<unsigned int>(multiprocessors) * 8;
    return static_cast<int>(needed < full ? needed : full);
}

template <typename Count>
void launchReversal(Count n, int *dData, const Count *dKeptCount) {
    if (n <= 1) return;
    kernReverseRejected<<<reversalBlocks(n), kThreads>>>(n, dData, dKeptCount);
    SC_CHECK_LAUNCH("kernReverseRejected");
}

}  // namespace

void reverseRejected(int n, int *dData, const int *dKeptCount) { launchReversal(n, dData, dKeptCount); }

void reverseRejected(long long n, int *dData, const long long *dKeptCount) { launchReversal(n, dData, dKeptCount); }

void scanDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("decoupled", "scan", n);
    const TileState state = prepareTiles(n);
    timer().startGpuTimer();
    if (n > 0) launchTiles<Mode::Scan>(n, dOut, dIn, Predicate::nonZero(), state);
    timer().endGpuTimer();
}

int compactDevice(int n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("decoupled", "compact", n);
    const TileState state = prepareTiles(n);
    timer().startGpuTimer();
    if (n > 0) launchTiles<Mode::Compact>(n, dOut, dIn, keep, state);
    timer().endGpuTimer();
    return n > 0 ? downloadCount(state.keptCount) : 0;
}

int partitionDevice(int n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("decoupled", "partition", n);
    const TileState state = prepareTiles(n);
    reversalBlocks(n);  // the device query, before the timer
    timer().startGpuTimer();
    if (n > 0) {
        launchTiles<Mode::Partition>(n, dOut, dIn, keep, state);
        reverseRejected(n, dOut, state.keptCount);
    }
    timer().endGpuTimer();
    return n > 0 ? downloadCount(state.keptCount) : 0;
}

void scan(int n, int *odata, const int *idata) {
    Common::Operation operation("decoupled", "scan", n);
    Common::onDeviceCopies(n, odata, idata, [n](int *dOut, const int *dIn) { scanDevice(n, dOut, dIn); });
}

int compact(int n, int *odata, const int *idata) {
    Common::Operation operation("decoupled", "compact", n);
    return Common::onDeviceCopies(n, odata, idata,
                                  [n](int *dOut, const int *dIn) { return compactDevice(n, dOut, dIn); });
}

}  // namespace Decoupled
}  // namespace StreamCompaction
