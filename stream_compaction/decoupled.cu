#include "decoupled.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <cuda/atomic>

#include "block_scan.cuh"
#include "device_memory.h"
#include "device_primitives.cuh"
#include "errors.h"
#include "launch.h"
#include "selection.h"
#include "tile_status.cuh"

namespace StreamCompaction {
namespace Decoupled {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

namespace {

// Tile shapes, one policy per GPU family (Common::PolicyFamily): kThreads threads, each
// loading kVectors 16-byte vectors; a warp's vectors are laid out so that every load
// instruction of the warp reads 512 contiguous bytes. Compaction and partition stage the
// whole tile in shared memory (4 * kTileItems bytes), which is what limits how many
// tiles an SM holds at once. The figures below are ptxas's (registers of the 32-bit
// compaction kernel) and the CUDA programming guide's (per SM); only the H200's were
// timed. SC_DECOUPLED_VECTORS_PER_THREAD is a tuning knob for measurements of the
// Hopper policy (results/h200/perf-notes.md: 8 vectors, 32 items a thread, measured
// fastest).
#ifndef SC_DECOUPLED_VECTORS_PER_THREAD
#define SC_DECOUPLED_VECTORS_PER_THREAD 8
#endif
template <int Threads, int Vectors, int MinBlocks>
struct TilePolicy {
    static constexpr int kThreads = Threads;
    static constexpr int kVectors = Vectors;
    static constexpr int kMinBlocks = MinBlocks;  // __launch_bounds__'s blocks per SM; 0: no minimum
    static constexpr int kWarps = kThreads / 32;
    static constexpr int kWarpItems = kVectors * 32 * 4;
    static constexpr int kTileItems = kWarps * kWarpItems;
};

struct TilePolicies {
    // sm_90 (228 KiB of shared memory and 2048 threads per SM): 8192-item tiles, a 32 KiB
    // stage; the compaction kernel takes 64 registers, so four blocks (1024 threads) are
    // resident, six by shared memory. The H200's measured shape.
    using Hopper = TilePolicy<256, SC_DECOUPLED_VECTORS_PER_THREAD, 0>;
    // sm_75 (64 KiB, 1024 threads), sm_86/89 and sm_120 (100 KiB, 1536 threads): with
    // Hopper's 32 KiB stage one compaction block fits on sm_75 (25% of its threads) and
    // three on sm_86 (50%); a 4096-item tile (16 KiB, 47 registers on sm_86) fits
    // three on sm_75 (75%) and five on sm_86 (83%). sm_80 (164 KiB) shares the Ampere policy.
    using Turing = TilePolicy<256, 4, 0>;
    using Ampere = Turing;
    // Blackwell takes sm_120's shape, the Blackwell of the fat binary (sm_100 has
    // Hopper's SM, but the fat binary's compute_120 PTX does not load there).
    using Blackwell = Turing;
};

// Tiles for arrays of at most kSmallTileLimit items, where the full tiles are fewer than
// the SMs (2^16 items are 8 Hopper tiles on 132 SMs) and a call's time is one tile's
// latency: sm_90 takes 256 x 2 int4 (2048 items), the other families their full tile.
constexpr long long kSmallTileLimit = 1 << 18;
struct SmallTilePolicies : TilePolicies {
    using Hopper = TilePolicy<256, 2, 0>;
};

// Calls f with the tile policy of an operation on n items.
template <typename F>
decltype(auto) withTilePolicy(Common::PolicyFamily family, long long n, F &&f) {
    return Common::withPolicyBySize<SmallTilePolicies, TilePolicies>(family, n, kSmallTileLimit, std::forward<F>(f));
}

using Common::kLastEpoch;

enum class Mode { Scan, Compact, Partition };

// The tile status of the operation's sum type (tile_status.cuh): for 32-bit sums one
// word per tile packs epoch, flag and value; for 64-bit sums a 16-byte word holds the
// epoch and flag beside the value. Both carry the call's number (epoch), so the status
// array needs no clearing per call.
template <typename Sum>
using TileStatus =
    std::conditional_t<std::is_same_v<Sum, unsigned>, Common::PackedTileStatus, Common::PairedTileStatus>;

// A compaction's count as its caller takes it: an int for the course's API, a long long
// for the 64-bit one.
template <typename Sum>
using KeptCount = std::conditional_t<std::is_same_v<Sum, unsigned>, int, long long>;

template <typename Sum>
struct TileState {
    TileStatus<Sum> status;
    unsigned int *tileCounter;  // the next tile index to hand out; back to 0 after each call
    KeptCount<Sum> *keptCount;  // compact and partition: the total, written by the last tile
    unsigned int numTiles;
    Common::PolicyFamily family;  // whose tile shape numTiles counts in (host side)
};

// The block's tile index, from the counter rather than blockIdx, so that tiles start in
// index order whatever the scheduler does and a tile only ever waits on tiles that have
// started. The last index is drawn after every other block has drawn its own: the block
// that draws it rewinds the counter for the next call. Every thread calls it (a barrier).
template <typename Sum>
__device__ __forceinline__ int drawTile(const TileState<Sum> &state, unsigned &sTile) {
    if (threadIdx.x == 0) {
        const unsigned int tile = Common::drawTileIndex(state.tileCounter);
        if (tile == state.numTiles - 1) atomicExch(state.tileCounter, 0u);
        sTile = tile;
    }
    __syncthreads();
    return static_cast<int>(sTile);
}

// Four consecutive outputs with 16-byte stores.
__device__ __forceinline__ void storeVector(int *out, const int (&values)[4]) {
    *reinterpret_cast<int4 *>(out) = make_int4(values[0], values[1], values[2], values[3]);
}
__device__ __forceinline__ void storeVector(long long *out, const long long (&values)[4]) {
    reinterpret_cast<longlong2 *>(out)[0] = make_longlong2(values[0], values[1]);
    reinterpret_cast<longlong2 *>(out)[1] = make_longlong2(values[2], values[3]);
}

// One thread's part of one tile, for all three operations. Vector j of warp w's lane l
// holds the tile's items w * kWarpItems + j * 128 + 4l .. + 3, so that each vector
// instruction of a warp covers 512 contiguous bytes. Sum is unsigned for the course's
// API and unsigned long long for the 64-bit one; Out is the scan's output type (int, or
// long long with 64-bit sums); P is the tile's policy.
template <typename P, Mode M, typename Sum, typename Out>
struct TileThread {
    static constexpr int kVectors = P::kVectors;
    static constexpr int kWarpItems = P::kWarpItems;
    static constexpr int kTileItems = P::kTileItems;
    static constexpr bool kFlags = M != Mode::Scan;  // compaction and partition scan keep flags
    using Items = int[kVectors][4];

    long long n;
    Out *out;
    const int *in;
    Predicate keep;
    bool vectorAligned;  // in and out are 16-byte aligned
    long long tileBase;  // the tile's first item
    unsigned lane;
    unsigned warp;
    long long warpBase;  // the warp's first item

    __device__ __forceinline__ TileThread(long long n, Out *out, const int *in, Predicate keep, bool vectorAligned,
                                          int tile)
        : n(n),
          out(out),
          in(in),
          keep(keep),
          vectorAligned(vectorAligned),
          tileBase(static_cast<long long>(tile) * kTileItems),
          lane(threadIdx.x & 31),
          warp(threadIdx.x >> 5),
          warpBase(tileBase + warp * kWarpItems) {}

    // Where vector j starts in the input and the output.
    __device__ __forceinline__ long long first(int j) const { return warpBase + j * 128 + lane * 4; }

    // kVectors int4 loads; scalar loads past n or for unaligned arrays, 0 past n.
    __device__ __forceinline__ void loadTile(Items &items) const {
#pragma unroll
        for (int j = 0; j < kVectors; ++j) {
            const long long first = this->first(j);
            // Only the vectors reaching n, or unaligned arrays, take scalar loads: the hint
            // puts the vector loads on the straight path.
            if (__builtin_expect(vectorAligned && first + 4 <= n, 1)) {
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
    }

    // What the tile scans for item k of vector j: the item itself (sign-extended for
    // 64-bit sums), or compaction's keep flag (0 past n). Recomputed where needed rather
    // than kept, which saves 4 * kVectors registers.
    __device__ __forceinline__ Sum scanned(const Items &items, int j, int k) const {
        if constexpr (kFlags) return first(j) + k < n && keep(items[j][k]) ? Sum{1} : Sum{0};
        else return static_cast<Sum>(static_cast<long long>(items[j][k]));
    }

    // The thread's values for the block scan: each vector's sum.
    __device__ __forceinline__ void sumVectors(const Items &items, Sum (&sums)[kVectors]) const {
#pragma unroll
        for (int j = 0; j < kVectors; ++j) {
            sums[j] = 0;
#pragma unroll
            for (int k = 0; k < 4; ++k) sums[j] += scanned(items, j, k);
        }
    }

    // Scan: writes each item's exclusive prefix with 16-byte stores (scalar ones past n or
    // for unaligned arrays). Vector j's prefix is threadPrefix + warpScan[j]: the sum of
    // everything before the thread's warp, and of the warp's items before the vector.
    // 8-byte prefixes of a whole vector of the warp go through the warp's 1 KiB of `dense`
    // (kWarps x 128 of them), so that each 16-byte store instruction writes 512
    // contiguous bytes rather than 1 KiB at half density.
    __device__ __forceinline__ void storePrefixes(const Items &items, const Sum (&warpScan)[kVectors],
                                                  Sum threadPrefix, Out *dense) const {
#pragma unroll
        for (int j = 0; j < kVectors; ++j) {
            const long long first = this->first(j);
            Out prefixes[4];
            Sum running = threadPrefix + warpScan[j];
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                prefixes[k] = static_cast<Out>(running);
                running += scanned(items, j, k);
            }
            const long long vectorBase = warpBase + j * 128;
            if (sizeof(Out) == 8 && vectorAligned && vectorBase + 128 <= n) {  // the same for the whole warp
                Out *stage = dense + warp * 128;
                storeVector(stage + lane * 4, prefixes);
                __syncwarp();
                const auto *staged = reinterpret_cast<const int4 *>(stage);
                auto *to = reinterpret_cast<int4 *>(out + vectorBase);
                const int4 low = staged[lane];
                const int4 high = staged[32 + lane];
                to[lane] = low;
                to[32 + lane] = high;
                __syncwarp();  // the next vector reuses the stage
            } else if (vectorAligned && first + 4 <= n) {
                storeVector(out + first, prefixes);
            } else {
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    if (first + k < n) out[first + k] = prefixes[k];
                }
            }
        }
    }

    // Compact and Partition: stages the tile's kept items in shared memory in output
    // order, then, for Partition, its rejected ones after them; then copies them out
    // with coalesced stores: kept ones to keptBefore + rank, rejected ones to
    // n - 1 - (rejectedBefore + rank), i.e. from the back in reverse order. The kept
    // items of the tile before vector j are warpPrefix + warpScan[j]. keptBefore is read
    // after the staging's barrier. Tile-local counts are below kTileItems, so 32 bits
    // hold them for either Sum.
    __device__ __forceinline__ void stageAndStore(const Items &items, const Sum (&warpScan)[kVectors], Sum warpPrefix,
                                                  unsigned tileKept, const Sum &keptBefore, int *stage) const {
        const int warpOffset = static_cast<int>(warp) * kWarpItems;
#pragma unroll
        for (int j = 0; j < kVectors; ++j) {
            unsigned rank = static_cast<unsigned>(warpPrefix + warpScan[j]);  // kept items before this one in the tile
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int local = warpOffset + j * 128 + static_cast<int>(lane) * 4 + k;
                const unsigned kept = static_cast<unsigned>(scanned(items, j, k));
                if (kept) {
                    stage[rank] = items[j][k];
                } else if (M == Mode::Partition && tileBase + local < n) {
                    stage[tileKept + (local - rank)] = items[j][k];
                }
                rank += kept;
            }
        }
        __syncthreads();
        const long long keptBeforeTile = static_cast<long long>(keptBefore);
        for (unsigned s = threadIdx.x; s < tileKept; s += P::kThreads) out[keptBeforeTile + s] = stage[s];
        if constexpr (M == Mode::Partition) {
            const long long tileItems = n - tileBase < kTileItems ? n - tileBase : kTileItems;
            const long long rejectedBefore = tileBase - keptBeforeTile;
            for (long long s = tileKept + threadIdx.x; s < tileItems; s += P::kThreads) {
                out[n - 1 - (rejectedBefore + (s - tileKept))] = stage[s];
            }
        }
    }
};

// One tile of the single-pass algorithm (Merrill and Garland, section 4), for all three
// operations; CUB's AgentScan::ConsumeTile reads the same way:
//   1. Draw the tile's index and load kVectors int4 per thread.
//   2. Block scan of the values (Scan) or the 0/1 keep flags (Compact, Partition) in
//      registers: per vector in each thread, across the warp with shuffles, across the
//      warps through shared memory. Within it, warp 0 publishes the tile's aggregate,
//      looks back for the sum of the tiles before this one, and publishes the inclusive
//      prefix (tile_status.cuh).
//   3. Scan: store the prefixes. Compact/Partition: stage the kept (and rejected) items
//      in shared memory in output order and store them coalesced.
template <typename P, Mode M, typename Sum, typename Out>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocks)
    kernDecoupledTile(long long n, Out *out, const int *in, Predicate keep, TileState<Sum> state, bool vectorAligned) {
    using Thread = TileThread<P, M, Sum, Out>;
    __shared__ unsigned int sTile;
    __shared__ Sum sWarpPrefix[P::kWarps];  // each warp's total, then its exclusive prefix in the tile
    __shared__ Sum sTilePrefix;             // the sum of the tiles before this one
    __shared__ Sum sTileAggregate;          // this tile's sum
    __shared__ int sStage[Thread::kFlags ? P::kTileItems : 1];
    __shared__ __align__(16) Out sDense[!Thread::kFlags && sizeof(Out) == 8 ? P::kWarps * 128 : 1];

    const int tile = drawTile(state, sTile);
    const Thread thread(n, out, in, keep, vectorAligned, tile);
    int items[P::kVectors][4];
    thread.loadTile(items);

    Sum warpScan[P::kVectors];  // each vector's sum, then the sum of the warp's items before it
    thread.sumVectors(items, warpScan);
    const Sum warpPrefix = Common::blockExclusiveScan<P::kWarps>(warpScan, sWarpPrefix, [&](Sum aggregate) {
        const Sum prefix = Common::publishAndLookBack(state.status, tile, aggregate, thread.lane);
        if (thread.lane == 0) {
            sTilePrefix = prefix;
            sTileAggregate = aggregate;
            if (Thread::kFlags && tile == static_cast<int>(state.numTiles) - 1) {
                *state.keptCount = static_cast<KeptCount<Sum>>(prefix + aggregate);
            }
        }
    });

    if constexpr (M == Mode::Scan) {
        thread.storePrefixes(items, warpScan, sTilePrefix + warpPrefix, sDense);
    } else {
        thread.stageAndStore(items, warpScan, warpPrefix, static_cast<unsigned>(sTileAggregate), sTilePrefix, sStage);
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

// The host-side preparation: picks the device's tile policy, grows and clears the tile
// words when needed, and takes this call's epoch. A clear happens on growth (also after
// releaseWorkspaces() emptied the storage) and once every 2^30 - 1 calls. The count goes
// to `kept`, or, when that is null, to a word of the storage.
template <typename Sum>
TileState<Sum> prepareTiles(long long n, KeptCount<Sum> *kept = nullptr) {
    const Common::PolicyFamily family = Common::policyFamily();
    const long long items = tileItemsFor(family, n);
    const auto numTiles = static_cast<unsigned int>((n + items - 1) / items);
    const std::size_t words = 2 + TileStatus<Sum>::kWordsPerTile * static_cast<std::size_t>(numTiles);
    TileStorage &storage = tileStorage<Sum>();
    if (words > storage.words.size() || storage.epoch == kLastEpoch) {
        storage.words.reserve(words < 4096 ? 4096 : words);
        storage.words.fillBytes(0, storage.words.size());
        storage.epoch = 0;
    }
    ++storage.epoch;
    unsigned long long *base = storage.words.get();
    auto *ownWord = reinterpret_cast<KeptCount<Sum> *>(base + 1);
    return {{base + 2, storage.epoch}, reinterpret_cast<unsigned int *>(base), kept ? kept : ownWord, numTiles, family};
}

bool aligned16(const void *ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; }

template <Mode M, typename Sum, typename Out>
void launchTiles(long long n, Out *dOut, const int *dIn, Predicate keep, const TileState<Sum> &state) {
    const bool vectorAligned = aligned16(dIn) && aligned16(dOut);
    withTilePolicy(state.family, n, [&](auto policy) {
        using P = decltype(policy);
        kernDecoupledTile<P, M><<<state.numTiles, P::kThreads>>>(n, dOut, dIn, keep, state, vectorAligned);
    });
    SC_CHECK_LAUNCH("kernDecoupledTile");
}

// The three operations, each written once: Sum = unsigned for the course's API,
// unsigned long long for the 64-bit one. The caller names the operation. Only device
// work is enqueued; a compaction's count lands in the state's keptCount.
template <typename Sum, typename Out>
void scanOnDevice(long long n, Out *dOut, const int *dIn) {
    const TileState<Sum> state = prepareTiles<Sum>(n);
    if (n > 0) launchTiles<Mode::Scan>(n, dOut, dIn, Predicate::nonZero(), state);
}

template <typename Sum>
void compactOnDevice(long long n, int *dOut, const int *dIn, Predicate keep, const TileState<Sum> &state) {
    if (n > 0) launchTiles<Mode::Compact>(n, dOut, dIn, keep, state);
}

template <typename Sum>
void partitionOnDevice(long long n, int *dOut, const int *dIn, Predicate keep, const TileState<Sum> &state) {
    if (n == 0) return;
    launchTiles<Mode::Partition>(n, dOut, dIn, keep, state);
    Common::reverseTail(n, dOut, state.keptCount);
}

// The 64-bit API's count, read back after the work.
std::size_t downloadKept(long long n, const TileState<unsigned long long> &state) {
    return n > 0 ? static_cast<std::size_t>(Common::downloadValue(state.keptCount)) : 0;
}

}  // namespace

int tileItems(Common::PolicyFamily family) {
    return Common::withPolicy<TilePolicies>(family, [](auto policy) { return decltype(policy)::kTileItems; });
}

int tileItemsFor(Common::PolicyFamily family, long long n) {
    return withTilePolicy(family, n, [](auto policy) { return decltype(policy)::kTileItems; });
}

void scanDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("decoupled", "scan", n);
    scanOnDevice<unsigned>(n, dOut, dIn);
}

void compactDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("decoupled", "compact", n);
    compactOnDevice<unsigned>(n, dOut, dIn, keep, prepareTiles<unsigned>(n, kept));
}

void partitionDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("decoupled", "partition", n);
    partitionOnDevice<unsigned>(n, dOut, dIn, keep, prepareTiles<unsigned>(n, kept));
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
    const auto state = prepareTiles<unsigned long long>(items);
    compactOnDevice(items, dOut, dIn, keep, state);
    return downloadKept(items, state);
}

std::size_t partition(std::size_t n, int *dOut, const int *dIn, Predicate keep) {
    const auto items = static_cast<long long>(n);
    Common::Operation operation("decoupled", "partition (64-bit)", items);
    const auto state = prepareTiles<unsigned long long>(items);
    partitionOnDevice(items, dOut, dIn, keep, state);
    return downloadKept(items, state);
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
