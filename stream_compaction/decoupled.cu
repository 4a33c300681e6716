#include "decoupled.h"

#include <cstddef>
#include <cstdint>

#include <cuda/atomic>

#include "device_memory.h"
#include "device_primitives.cuh"
#include "errors.h"
#include "selection.h"

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
using Common::kFullMask;
using Common::warpInclusiveScan;
using Common::warpSum;

enum class Mode { Scan, Compact, Partition };

// What a published status says: the tile's own sum, or the sum of every tile up to and
// including it. Status words carry the call's number (epoch): a word from an earlier
// call reads as "not yet published", so the status array needs no clearing per call.
constexpr unsigned kFlagAggregate = 1;
constexpr unsigned kFlagInclusive = 2;
constexpr unsigned long long kLastEpoch = (1ull << 30) - 1;

using StatusRef = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

// The tile status array, for the sum type of the operation.
template <typename Sum>
struct TileStatus;

// 32-bit sums (the course's API): one 64-bit word per tile packs the epoch (30 bits),
// the flag (2 bits) and the value (32 bits), so one store publishes flag and value
// together and one load reads both. The word is published with atomicExch and polled
// with volatile loads: on the H200 that ran the scan at 94% of copy bandwidth, against
// 70% with cuda::atomic_ref's relaxed store and load (results/h200/perf-notes.md). One
// word carries everything, so no ordering with other memory is needed.
template <>
struct TileStatus<unsigned> {
    static constexpr int kWordsPerTile = 1;
    unsigned long long *words;
    unsigned long long epoch;

    __device__ void publish(int tile, unsigned flag, unsigned value) const {
        atomicExch(&words[tile], (epoch << 34) | (static_cast<unsigned long long>(flag) << 32) | value);
    }
    // Waits until the tile has published in this call; returns its flag and value.
    __device__ unsigned wait(int tile, unsigned &value) const {
        const volatile unsigned long long *status = &words[tile];
        unsigned long long word;
        do {
            word = *status;
        } while ((word >> 34) != epoch);
        value = static_cast<unsigned>(word);
        return static_cast<unsigned>(word >> 32) & 3;
    }
};

// 64-bit sums (the 64-bit API, large.h): a value does not fit beside a flag in one word.
// Each tile has three words, [flag, aggregate, inclusive prefix]: the value is written
// to its own word, each written once per call, and then the flag word (epoch << 2 | flag)
// is stored with release order; a reader loads the flag with acquire order and only
// then the value it names. Values never sit where a flag word of another call's layout
// could be, whatever the number of tiles, so a stale value never reads as a flag.
template <>
struct TileStatus<unsigned long long> {
    static constexpr int kWordsPerTile = 3;
    unsigned long long *words;
    unsigned long long epoch;

    __device__ void publish(int tile, unsigned flag, unsigned long long value) const {
        unsigned long long *own = words + 3 * static_cast<long long>(tile);
        own[flag] = value;
        StatusRef(own[0]).store((epoch << 2) | flag, cuda::memory_order_release);
    }
    __device__ unsigned wait(int tile, unsigned long long &value) const {
        unsigned long long *own = words + 3 * static_cast<long long>(tile);
        const StatusRef status(own[0]);
        unsigned long long word;
        do {
            word = status.load(cuda::memory_order_acquire);
        } while ((word >> 2) != epoch);
        const unsigned flag = static_cast<unsigned>(word & 3);
        value = own[flag];
        return flag;
    }
};

template <typename Sum>
struct TileState {
    TileStatus<Sum> status;
    unsigned int *tileCounter;  // the next tile index to hand out; back to 0 after each call
    long long *keptCount;       // compact and partition: the total, written by the last tile
    unsigned int numTiles;
};

// Decoupled look-back (Merrill and Garland, section 4), by one warp: lane i waits for
// the status of tile (window - i), then the warp adds up the values from the nearest
// predecessor back to the nearest inclusive prefix; without one in the window, it adds
// all 32 aggregates and slides the window 32 tiles back. Tiles before 0 read as an
// inclusive prefix of 0. Every predecessor drew its index earlier, so it is running or
// done and publishes eventually: the wait cannot deadlock. (Wider windows, several
// words per lane, and backing off with __nanosleep measured no faster: perf-notes.md.)
template <typename Sum>
__device__ Sum lookBack(const TileStatus<Sum> &status, int tile, unsigned lane) {
    Sum exclusive = 0;
    for (int window = tile - 1;; window -= 32) {
        const int predecessor = window - static_cast<int>(lane);
        Sum value = 0;
        const unsigned flag = predecessor >= 0 ? status.wait(predecessor, value) : kFlagInclusive;
        const unsigned inclusiveLanes = __ballot_sync(kFullMask, flag == kFlagInclusive);
        if (inclusiveLanes != 0) {
            const unsigned nearest = __ffs(inclusiveLanes) - 1;
            return exclusive + warpSum(lane <= nearest ? value : Sum{0});
        }
        exclusive += warpSum(value);
    }
}

// What a tile scans: the item itself (sign-extended for 64-bit sums), or compaction's
// keep flag (0 past n).
template <bool Flags, typename Sum>
__device__ inline Sum scannedValue(int item, bool inRange, Predicate keep) {
    if constexpr (Flags) return inRange && keep(item) ? Sum{1} : Sum{0};
    else return static_cast<Sum>(static_cast<long long>(item));
}

// Four consecutive outputs with 16-byte stores.
__device__ inline void storeVector(int *out, const int (&values)[4]) {
    *reinterpret_cast<int4 *>(out) = make_int4(values[0], values[1], values[2], values[3]);
}
__device__ inline void storeVector(long long *out, const long long (&values)[4]) {
    reinterpret_cast<longlong2 *>(out)[0] = make_longlong2(values[0], values[1]);
    reinterpret_cast<longlong2 *>(out)[1] = make_longlong2(values[2], values[3]);
}

// One tile of the single-pass algorithm, for all three operations. The tile's index
// comes from an atomic counter, not blockIdx, so tiles start in index order whatever the
// scheduler does, and a tile only ever waits on tiles that have started.
//   1. Load kVectors int4 per thread (scalar loads past n or for unaligned arrays).
//   2. Scan the values (Scan) or the 0/1 keep flags (Compact, Partition) in registers:
//      per thread, per warp with shuffles, per tile through shared memory.
//   3. Warp 0 publishes the tile's aggregate, looks back for the prefix of the tiles
//      before it, and publishes the inclusive prefix.
//   4. Scan: write the prefixes with 16-byte stores. Compact/Partition: stage the tile's
//      kept elements (then its rejected ones) in shared memory in output order, and copy
//      them out with coalesced stores: kept ones to keptBefore + rank, rejected ones to
//      n - 1 - (rejectedBefore + rank), i.e. from the back in reverse order.
// Sum is unsigned for the course's API and unsigned long long for the 64-bit one; Out
// is the scan's output type (int, or long long with 64-bit sums).
template <Mode M, typename Sum, typename Out>
__global__ void __launch_bounds__(kThreads)
    kernDecoupledTile(long long n, Out *out, const int *in, Predicate keep, TileState<Sum> state, bool vectorAligned) {
    constexpr bool kFlags = M != Mode::Scan;
    __shared__ unsigned int sTile;
    __shared__ Sum sWarpPrefix[kWarps];  // each warp's total, then its exclusive prefix in the tile
    __shared__ Sum sTilePrefix;
    __shared__ Sum sTileAggregate;
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
        return scannedValue<kFlags, Sum>(items[j][k], warpBase + j * 128 + lane * 4 + k < n, keep);
    };
    Sum laneSums[kVectors];
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
        laneSums[j] = 0;
#pragma unroll
        for (int k = 0; k < 4; ++k) laneSums[j] += scanned(j, k);
    }

    // Vector j of the warp covers 128 items; lane l holds its items 4l..4l+3. After the
    // scan, laneSums[j] is the sum of the warp's items before this lane's in vector j.
    Sum inclusive[kVectors];
#pragma unroll
    for (int j = 0; j < kVectors; ++j) inclusive[j] = laneSums[j];
    warpInclusiveScan(inclusive, lane);
    Sum warpTotal = 0;
#pragma unroll
    for (int j = 0; j < kVectors; ++j) {
        laneSums[j] = warpTotal + inclusive[j] - laneSums[j];
        warpTotal += __shfl_sync(kFullMask, inclusive[j], 31);
    }
    if (lane == 0) sWarpPrefix[warp] = warpTotal;
    __syncthreads();

    if (warp == 0) {
        Sum warpPrefix[1] = {lane < kWarps ? sWarpPrefix[lane] : Sum{0}};
        const Sum ownTotal = warpPrefix[0];
        warpInclusiveScan(warpPrefix, lane);
        const Sum aggregate = __shfl_sync(kFullMask, warpPrefix[0], kWarps - 1);
        if (lane < kWarps) sWarpPrefix[lane] = warpPrefix[0] - ownTotal;
        Sum prefix = 0;
        if (tile == 0) {
            if (lane == 0) state.status.publish(0, kFlagInclusive, aggregate);
        } else {
            if (lane == 0) state.status.publish(tile, kFlagAggregate, aggregate);
            prefix = lookBack(state.status, tile, lane);
            if (lane == 0) state.status.publish(tile, kFlagInclusive, prefix + aggregate);
        }
        if (lane == 0) {
            sTilePrefix = prefix;
            sTileAggregate = aggregate;
            if (kFlags && tile == static_cast<int>(state.numTiles) - 1) {
                *state.keptCount = static_cast<long long>(prefix + aggregate);
            }
        }
    }
    __syncthreads();

    if constexpr (M == Mode::Scan) {
        const Sum warpPrefix = sTilePrefix + sWarpPrefix[warp];
#pragma unroll
        for (int j = 0; j < kVectors; ++j) {
            const long long first = warpBase + j * 128 + lane * 4;
            Out prefixes[4];
            Sum running = warpPrefix + laneSums[j];
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                prefixes[k] = static_cast<Out>(running);
                running += scanned(j, k);
            }
            if (vectorAligned && first + 4 <= n) {
                storeVector(out + first, prefixes);
            } else {
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    if (first + k < n) out[first + k] = prefixes[k];
                }
            }
        }
    } else {
        // Tile-local counts are below kTileItems, so 32 bits hold them for either Sum.
        const unsigned tileKept = static_cast<unsigned>(sTileAggregate);
        const int warpOffset = static_cast<int>(warp) * kWarpItems;
#pragma unroll
        for (int j = 0; j < kVectors; ++j) {
            unsigned rank = static_cast<unsigned>(sWarpPrefix[warp] + laneSums[j]);  // kept items before this one in the tile
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int local = warpOffset + j * 128 + static_cast<int>(lane) * 4 + k;
                const unsigned kept = static_cast<unsigned>(scanned(j, k));
                if (kept) {
                    sStage[rank] = items[j][k];
                } else if (M == Mode::Partition && tileBase + local < n) {
                    sStage[tileKept + (local - rank)] = items[j][k];
                }
                rank += kept;
            }
        }
        __syncthreads();
        const long long keptBefore = static_cast<long long>(sTilePrefix);
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

// [tile counter, kept count, the tile status words] for one sum type. Grows only, and the
// epochs in it survive from call to call. It is registered cached device memory:
// releaseWorkspaces() frees it; it is then empty, so the next call allocates and clears
// it again.
struct TileStorage : Common::CachedDeviceMemory {
    Common::DeviceBuffer<unsigned long long> words;
    unsigned long long epoch = kLastEpoch;  // forces the first call to clear the buffer

    void release() noexcept override { words = {}; }
    std::size_t bytesHeld() const noexcept override { return words.size() * sizeof(unsigned long long); }
};

template <typename Sum>
TileStorage &tileStorage() {
    static TileStorage storage;
    return storage;
}

// Untimed preparation: grows and clears the tile words when needed, and takes this
// call's epoch. A clear happens on growth (also after releaseWorkspaces() emptied the
// storage) and once every 2^30 - 1 calls.
template <typename Sum>
TileState<Sum> prepareTiles(long long n) {
    const auto numTiles = static_cast<unsigned int>((n + kTileItems - 1) / kTileItems);
    const std::size_t words = 2 + TileStatus<Sum>::kWordsPerTile * static_cast<std::size_t>(numTiles);
    TileStorage &storage = tileStorage<Sum>();
    if (words > storage.words.size() || storage.epoch == kLastEpoch) {
        storage.words.reserve(words < 4096 ? 4096 : words);
        storage.words.fillBytes(0, storage.words.size());
        storage.epoch = 0;
    }
    ++storage.epoch;
    unsigned long long *base = storage.words.get();
    return {{base + 2, storage.epoch}, reinterpret_cast<unsigned int *>(base), reinterpret_cast<long long *>(base + 1),
            numTiles};
}

bool aligned16(const void *ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; }

template <Mode M, typename Sum, typename Out>
void launchTiles(long long n, Out *dOut, const int *dIn, Predicate keep, const TileState<Sum> &state) {
    const bool vectorAligned = aligned16(dIn) && aligned16(dOut);
    kernDecoupledTile<M><<<state.numTiles, kThreads>>>(n, dOut, dIn, keep, state, vectorAligned);
    SC_CHECK_LAUNCH("kernDecoupledTile");
}

// The three operations, each written once: Sum = unsigned for the course's API,
// unsigned long long for the 64-bit one. The caller names the operation.
template <typename Sum, typename Out>
void scanOnDevice(long long n, Out *dOut, const int *dIn) {
    const TileState<Sum> state = prepareTiles<Sum>(n);
    timer().startGpuTimer();
    if (n > 0) launchTiles<Mode::Scan>(n, dOut, dIn, Predicate::nonZero(), state);
    timer().endGpuTimer();
}

template <typename Sum>
long long compactOnDevice(long long n, int *dOut, const int *dIn, Predicate keep) {
    const TileState<Sum> state = prepareTiles<Sum>(n);
    timer().startGpuTimer();
    if (n > 0) launchTiles<Mode::Compact>(n, dOut, dIn, keep, state);
    timer().endGpuTimer();
    return n > 0 ? Common::downloadValue(state.keptCount) : 0;
}

template <typename Sum>
long long partitionOnDevice(long long n, int *dOut, const int *dIn, Predicate keep) {
    const TileState<Sum> state = prepareTiles<Sum>(n);
    timer().startGpuTimer();
    if (n > 0) {
        launchTiles<Mode::Partition>(n, dOut, dIn, keep, state);
        Common::reverseTail(n, dOut, state.keptCount);
    }
    timer().endGpuTimer();
    return n > 0 ? Common::downloadValue(state.keptCount) : 0;
}

}  // namespace

void scanDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("decoupled", "scan", n);
    scanOnDevice<unsigned>(n, dOut, dIn);
}

int compactDevice(int n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("decoupled", "compact", n);
    return static_cast<int>(compactOnDevice<unsigned>(n, dOut, dIn, keep));
}

int partitionDevice(int n, int *dOut, const int *dIn, Predicate keep) {
    Common::Operation operation("decoupled", "partition", n);
    return static_cast<int>(partitionOnDevice<unsigned>(n, dOut, dIn, keep));
}

namespace Large {

void scan(std::size_t n, long long *dOut, const int *dIn) {
    const auto items = static_cast<long long>(n);
    Common::Operation operation("decoupled", "scan (64-bit)", items);
    scanOnDevice<unsigned long long>(items, dOut, dIn);
}

std::size_t compact(std::size_t n, int *dOut, const int *dIn, Predicate keep) {
    const auto items = static_cast<long long>(n);
    Common::Operation operation("decoupled", "compact (64-bit)", items);
    return static_cast<std::size_t>(compactOnDevice<unsigned long long>(items, dOut, dIn, keep));
}

std::size_t partition(std::size_t n, int *dOut, const int *dIn, Predicate keep) {
    const auto items = static_cast<long long>(n);
    Common::Operation operation("decoupled", "partition (64-bit)", items);
    return static_cast<std::size_t>(partitionOnDevice<unsigned long long>(items, dOut, dIn, keep));
}

}  // namespace Large

const Backend &backend() {
    static const Backend row{.name = "decoupled", .title = "decoupled look-back", .timer = timer,
                             .scan = scanDevice, .compact = compactDevice, .partition = partitionDevice,
                             .scan64 = Large::scan, .compact64 = Large::compact, .partition64 = Large::partition};
    return row;
}

}  // namespace Decoupled
}  // namespace StreamCompaction
