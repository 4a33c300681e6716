#include "onesweep.h"

#include <cstddef>
#include <type_traits>
#include <utility>

#include "block_scan.cuh"
#include "dependent_launch.cuh"
#include "device_memory.h"
#include "device_primitives.cuh"
#include "errors.h"
#include "launch.h"
#include "tile_status.cuh"

namespace StreamCompaction {
namespace Onesweep {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

namespace {

constexpr int kDigitBits = 8;
constexpr int kRadix = 1 << kDigitBits;  // buckets per pass
constexpr unsigned kDigitMask = kRadix - 1;
constexpr int kPasses = 32 / kDigitBits;
// A sort's sign flip: kSignBit for signed keys (with it flipped, signed order is unsigned
// order), 0 for unsigned keys, which are in that order already.
constexpr unsigned kSignBit = 0x80000000u;
using Common::kFullMask;

constexpr int kDigitWarps = kRadix / 32;  // the warps of the digit threads

// A pass's tile: kThreads threads of kItems keys each; warp w holds the tile's keys
// [w * kWarpItems, (w + 1) * kWarpItems). Threads 0..kRadix-1 also do the per-digit work,
// one digit each. kMinBlocks is __launch_bounds__'s blocks per SM (0: no minimum).
template <int Threads, int Items, int MinBlocks>
struct PassPolicy {
    static constexpr int kThreads = Threads;
    static constexpr int kItems = Items;
    static constexpr int kMinBlocks = MinBlocks;
    // kMinBlocks on the architecture being compiled, or no minimum where that many blocks
    // hold more threads than an SM does (sm_75's 1024: Hopper's three 384-thread blocks),
    // which ptxas would ignore with a warning. The passes' __launch_bounds__ takes it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    static constexpr int kMinBlocksHere = Threads * MinBlocks > 1024 ? 0 : MinBlocks;
#else
    static constexpr int kMinBlocksHere = MinBlocks;
#endif
    // Read here too: the small-array tiles leave it out of their __launch_bounds__.
    static_assert(kMinBlocks >= 0 && kMinBlocksHere >= 0, "blocks per SM: 0 for no minimum");
    static constexpr int kWarps = kThreads / 32;
    static constexpr int kWarpItems = 32 * kItems;
    static constexpr int kTileItems = kThreads * kItems;
    static_assert(kThreads % 32 == 0 && kThreads >= kRadix && kThreads <= 1024, "one thread per digit, whole warps");
};

// One pass policy per GPU family (Common::PolicyFamily). Registers and spills are
// ptxas's for kernOnesweepPass, shared memory sizeof(PassStorage), the per-SM limits
// the CUDA programming guide's; only the H200's shape was timed.
struct PassPolicies {
    // sm_90 (228 KiB of shared memory, 2048 threads per SM): 384 x 16 (6144-key tiles,
    // 26 KiB) at three blocks per SM, CUB's 36 warps an SM, which holds the kernel to 56
    // registers (no spills; 384 x 18 and 384 x 20 spill at three blocks).
    using Hopper = PassPolicy<384, 16, 3>;
    // sm_80 to sm_89 (164 or 100 KiB, 2048 or 1536 threads): 512 x 15, two blocks per SM
    // (2 x 33 KiB of shared memory), at 64 registers without spills.
    using Ampere = PassPolicy<512, 15, 2>;
    // sm_75 (64 KiB, 1024 threads): two of Ampere's 33 KiB blocks do not fit, so the
    // register cap for a second block buys nothing (one block, 512 threads); half the
    // tile (256 threads, 18 KiB, 79 registers without a cap) fits three blocks (768
    // threads, 61,440 of the 65,536 registers).
    using Turing = PassPolicy<256, 15, 0>;
    // sm_120 (100 KiB, 1536 threads): 13 keys a thread (6656-key tiles, 29 KiB) fit two
    // blocks (1024 threads) in 64 registers without spills, with shared memory to spare.
    // Ampere's tile compiles there at two blocks without spills as well; neither shape
    // has been timed on a Blackwell GPU.
    using Blackwell = PassPolicy<512, 13, 2>;
};

// Pass policies for keys with values. A value is loaded after its key has been ranked
// and lives in a register until it is staged, beside the key's place and its digit, so a
// thread takes fewer keys than for keys alone. sm_90 keeps the keys' three blocks per SM
// at 384 x 14 (56 registers without spills; 384 x 16 spills 40 bytes); the others take
// 512 x 12 at two blocks per SM (64 registers, no spills). Turing keeps its one-block
// shape.
struct PairPassPolicies {
    using Hopper = PassPolicy<384, 14, 3>;
    using Ampere = PassPolicy<512, 12, 2>;
    using Turing = PassPolicy<256, 12, 0>;
    using Blackwell = Ampere;
};

// Pass policies up to kMidTileLimit keys, where a pass of the full tile has too few tiles to fill
// the GPU (2^20 keys are 171 Hopper tiles on 132 SMs): sm_90 takes 384 x 8 keys (384 x 10 with
// values, whose pass spills 8 bytes at 56 registers) at three blocks per SM, the other families
// their full tile. On an H100 against 384 x 16 (384 x 14): 14-22% faster from 2^14 to 2^18, a tie
// at 2^20, slower from 2^22; with values 11-16% faster to 2^18 and 7% at 2^20.
constexpr int kMidTileLimit = 1 << 20;
struct MidPassPolicies : PassPolicies {
    using Hopper = PassPolicy<384, 8, 3>;
};
struct MidPairPassPolicies : PairPassPolicies {
    using Hopper = PassPolicy<384, 10, 3>;
};

// The histogram kernel's chunk: kHistogramThreads threads of kHistogramItems keys.
constexpr int kHistogramThreads = 256;
constexpr int kHistogramItems = 16;
constexpr int kHistogramChunk = kHistogramThreads * kHistogramItems;

// A tile's status for one digit (tile_status.cuh): one 32-bit word, the digit's count in
// this tile alone or in this tile and every tile before it, 0 until published. The
// look-back words are [kPasses][numTiles][kRadix]: digit d's column has stride kRadix.
using DigitStatus = Common::ClearedTileStatus<kRadix>;

// Where each pass's pieces live in one workspace of 32-bit words. The memset at the start
// of a sort clears everything from globalHistogram on; the bucket offsets are written
// whole by kernBucketOffsets.
struct SortState {
    unsigned *bucketOffsets;      // [kPasses][kRadix]: where each digit's bucket starts in the output
    unsigned *globalHistogram;    // [kPasses][kRadix]: keys per digit, counted before the passes
    unsigned *tileCounters;       // [kPasses]: the next tile index each pass hands out
    unsigned *tileStatus;         // [kPasses][numTiles][kRadix]: the look-back words
    unsigned *keysBetweenPasses;  // n keys: the output of passes 0 and 2 (a separate workspace)
    unsigned *valuesBetweenPasses;  // sort-pairs: their n values (a separate workspace), else nullptr
    unsigned numTiles;
    std::size_t clearedBytes;     // from globalHistogram to the end of tileStatus
    Common::PolicyFamily family;  // whose pass policy numTiles counts in
};
constexpr int kCounterWords = 32;  // tileCounters, padded so that tileStatus starts 128-byte aligned

__device__ __forceinline__ unsigned digitOf(unsigned key, int shift) { return (key >> shift) & kDigitMask; }

// The global histogram (the paper's first kernel): the digit counts of all four passes in
// one read of the keys. Each block counts its chunks into shared-memory histograms with
// shared atomics, then adds them to the global ones, so that global atomics number
// 4 x 256 per block rather than 4 per key. The grid fills the GPU once and strides over
// the chunks. Keys are counted with `signFlip` applied, as the passes see them. The first
// of the sort's chain of dependent launches (dependent_launch.cuh): it follows the clear
// of the histograms plainly, and lets the bucket offsets' kernel start at once.
__global__ void __launch_bounds__(kHistogramThreads)
    kernGlobalHistogram(int n, const unsigned *keys, unsigned signFlip, unsigned *globalHistogram) {
    Common::allowDependents();
    __shared__ unsigned sHistogram[kPasses * kRadix];
    for (int i = threadIdx.x; i < kPasses * kRadix; i += kHistogramThreads) sHistogram[i] = 0;
    __syncthreads();

    const long long numChunks = (static_cast<long long>(n) + kHistogramChunk - 1) / kHistogramChunk;
    for (long long chunk = blockIdx.x; chunk < numChunks; chunk += gridDim.x) {
        const long long first = chunk * kHistogramChunk + threadIdx.x;
        unsigned chunkKeys[kHistogramItems];
#pragma unroll
        for (int j = 0; j < kHistogramItems; ++j) {
            const long long i = first + j * kHistogramThreads;
            chunkKeys[j] = i < n ? __ldg(keys + i) ^ signFlip : 0u;
        }
#pragma unroll
        for (int j = 0; j < kHistogramItems; ++j) {
            if (first + j * kHistogramThreads < n) {
#pragma unroll
                for (int pass = 0; pass < kPasses; ++pass) {
                    atomicAdd(&sHistogram[pass * kRadix + digitOf(chunkKeys[j], pass * kDigitBits)], 1u);
                }
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kPasses * kRadix; i += kHistogramThreads) {
        if (sHistogram[i] != 0) atomicAdd(&globalHistogram[i], sHistogram[i]);
    }
}

// Each pass's bucket offsets, one block of kRadix threads per pass: the exclusive scan of
// the pass's histogram. The keys of digit d go to [bucketOffsets[d], bucketOffsets[d + 1]).
__global__ void __launch_bounds__(kRadix) kernBucketOffsets(const unsigned *globalHistogram, unsigned *bucketOffsets) {
    Common::waitForPrerequisites();  // the histogram's counts
    Common::allowDependents();
    __shared__ unsigned sWarpPrefix[kDigitWarps];
    const int i = blockIdx.x * kRadix + threadIdx.x;
    unsigned count[1] = {globalHistogram[i]};
    const unsigned warpPrefix = Common::blockExclusiveScan<kDigitWarps>(count, sWarpPrefix);
    bucketOffsets[i] = warpPrefix + count[0];
}

// The look-back reads kLookBackWindow predecessors' words per memory round trip
// (tile_status.cuh's threadLookBack; 4 measured best on the H200, 8 no better).
constexpr int kLookBackWindow = 4;

// The lanes whose digit has this lane's value at bit `bit`: a ballot of the bit, inverted
// where this lane's bit is clear. Every lane of the warp must call it. In PTX so that one
// test of the bit sets the predicate that both the ballot and the inversion read: four
// PTX instructions a bit (ptxas then sets several bits' predicates with one R2P), where
// nvcc's code for the C++ below tested the bit twice and built a select mask (seven SASS
// instructions). For Blackwell (sm_100 on) the C++ form stays: CUDA 13.0's ptxas stops
// on the PTX form there ("Register allocation failed").
__device__ __forceinline__ unsigned lanesAgreeingOnBit(unsigned digit, unsigned bit) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
    const bool set = (digit >> bit) & 1u;
    const unsigned lanes = __ballot_sync(kFullMask, set);
    return set ? lanes : ~lanes;
#else
    unsigned lanes;
    asm volatile(
        "{\n\t.reg .pred set;\n\t"
        "and.b32 %0, %1, %2;\n\t"
        "setp.ne.u32 set, %0, 0;\n\t"
        "vote.sync.ballot.b32 %0, set, 0xffffffff;\n\t"
        "@!set not.b32 %0, %0;\n\t}"
        : "=r"(lanes)
        : "r"(digit), "r"(1u << bit));
    return lanes;
#endif
}

// The lanes of the warp whose digit equals this lane's (a warp-level match): one ballot
// per digit bit. On the H200 these ballots cost less than one __match_any_sync over 32
// mostly distinct digits (results/h200/perf-notes.md, "Where a pass's time goes").
// Every lane of the warp must call it.
__device__ __forceinline__ unsigned lanesWithSameDigit(unsigned digit) {
    unsigned peers = lanesAgreeingOnBit(digit, 0);
#pragma unroll
    for (int bit = 1; bit < kDigitBits; ++bit) peers &= lanesAgreeingOnBit(digit, bit);
    return peers;
}

// What a thread holds in place of a key past n (in the last tile): every digit is the
// largest, so the stable ranking puts it after every key of the tile, at the end of the
// staging area, and no warp needs to test which of its keys are real to rank them.
constexpr unsigned kPastEnd = ~0u;

// A pass's shared memory. The warps' digit counters are dead once every key knows its
// place in the tile, and the staged keys reuse their space.
template <typename P>
struct PassStorage {
    static_assert(P::kTileItems < static_cast<int>(DigitStatus::kAggregateBit),
                  "a tile's count must fit below the aggregate flag");
    union {
        // Ranking: keys of each digit that each warp has seen so far; then, per digit, how
        // many of the tile's keys with that digit the warps before each one hold.
        unsigned warpDigitCounts[P::kWarps][kRadix];
        unsigned stagedKeys[P::kTileItems];  // the tile's keys in digit order
    };
    unsigned tileDigitStart[kRadix];     // where each digit's run starts among the staged keys
    // Output index of staged key s with digit d, less s. It fits an int (n <= 2^31 - 1; it
    // is negative where the digit's run starts later in the tile than in the output), so
    // the scatter reads 32 bits a key.
    int digitDestination[kRadix];
    unsigned warpPrefix[kDigitWarps];    // the digit scan's warp totals (blockExclusiveScanSerialTotals)
    unsigned tile;                       // this block's tile index, drawn from the counter
};

// Every thread clears its share of the warps' digit counters; the caller's barrier
// follows.
template <typename P>
__device__ __forceinline__ void clearDigitCounts(PassStorage<P> &storage) {
    for (int i = threadIdx.x; i < P::kWarps * kRadix; i += P::kThreads) {
        storage.warpDigitCounts[i / kRadix][i % kRadix] = 0;
    }
}

// Starts a pass's tile: thread 0 draws its index, every thread clears digit counters; a
// barrier. Returns the index.
template <typename P>
__device__ __forceinline__ unsigned startTile(PassStorage<P> &storage, unsigned *tileCounter) {
    if (threadIdx.x == 0) storage.tile = Common::drawTileIndex(tileCounter);
    clearDigitCounts(storage);
    __syncthreads();
    return storage.tile;
}

// One thread's part of a pass over one tile: key j of lane l of warp w is key
// w * kWarpItems + j * 32 + l of the tile, so that every load of a warp reads 128
// contiguous bytes. Keys past n (in the last tile) are kPastEnd: ranked, counted and
// staged with the others, after them, and not written. Only loads and stores test for
// them, and only in a tile that has them. Digit d's status is in column d of the pass's
// look-back words. P is the pass's policy.
template <typename P>
struct PassThread {
    static constexpr int kThreads = P::kThreads;
    static constexpr int kItems = P::kItems;
    static constexpr int kWarps = P::kWarps;
    static constexpr int kWarpItems = P::kWarpItems;
    static constexpr int kTileItems = P::kTileItems;

    int n;
    int shift;  // the pass's digit: bits shift .. shift + kDigitBits - 1
    PassStorage<P> &storage;
    unsigned tile;
    unsigned lane;
    unsigned warp;
    bool digitThread;    // thread d < kRadix does digit d's work
    long long tileBase;  // the tile's first key
    int warpValid;       // the warp's keys before n, 0 to kWarpItems

    __device__ __forceinline__ PassThread(int n, int shift, PassStorage<P> &storage, unsigned tile)
        : n(n),
          shift(shift),
          storage(storage),
          tile(tile),
          lane(threadIdx.x & 31),
          warp(threadIdx.x >> 5),
          digitThread(threadIdx.x < kRadix),
          tileBase(static_cast<long long>(tile) * kTileItems) {
        const long long warpRemaining = n - (tileBase + static_cast<long long>(warp) * kWarpItems);
        warpValid = warpRemaining <= 0 ? 0 : warpRemaining >= kWarpItems ? kWarpItems : static_cast<int>(warpRemaining);
    }

    __device__ __forceinline__ bool valid(int j) const { return j * 32 + static_cast<int>(lane) < warpValid; }

    // Loads the thread's keys (or values) from global memory, flipping `flip` (the sign
    // bit of the keys in the first pass); kPastEnd past n.
    __device__ __forceinline__ void loadKeys(unsigned (&keys)[kItems], const unsigned *keysIn, unsigned flip) const {
        const unsigned *warpKeys = keysIn + tileBase + static_cast<long long>(warp) * kWarpItems;
        if (warpValid == kWarpItems) {
#pragma unroll
            for (int j = 0; j < kItems; ++j) keys[j] = __ldg(warpKeys + j * 32 + lane) ^ flip;
        } else {
#pragma unroll
            for (int j = 0; j < kItems; ++j) keys[j] = valid(j) ? __ldg(warpKeys + j * 32 + lane) ^ flip : kPastEnd;
        }
    }

    // Loads the thread's items from the staging area, in the layout loadKeys reads them:
    // a one-tile sort's next pass takes the keys in the order this pass staged them, the
    // keys past n (staged last) included.
    __device__ __forceinline__ void loadStaged(unsigned (&items)[kItems]) const {
        const unsigned *warpItems = storage.stagedKeys + warp * kWarpItems;
#pragma unroll
        for (int j = 0; j < kItems; ++j) items[j] = warpItems[j * 32 + lane];
    }

    // Ranks the keys within the warp (warp-level multisplit): for each j,
    // lanesWithSameDigit groups the lanes whose keys share a digit; the group's highest
    // lane adds the group's size to the warp's counter for that digit, and a key's rank
    // is the counter before that plus the lanes of its group below its own. Keys are
    // visited in input order (j, then lane), so equal digits keep their input order: the
    // ranking is stable, and the keys past n, last in that order, rank last. Every warp
    // runs this one loop, inside no branch that could split it, so the compiler knows the
    // warp converged at each ballot and shuffle and adds no divergence checks. Ends with
    // a barrier: the counters are complete.
    __device__ __forceinline__ void rankKeys(const unsigned (&keys)[kItems], unsigned (&rank)[kItems]) const {
        unsigned *counts = storage.warpDigitCounts[warp];
        const unsigned lanesBelow = (1u << lane) - 1;
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            const unsigned digit = digitOf(keys[j], shift);
            const unsigned peers = lanesWithSameDigit(digit);
            const int leader = 31 - __clz(peers);
            // The leader adds its group to the digit's counter with a shared atomic, which
            // returns the count before. No __syncwarp comes before the next key: a lane
            // reaches the next key's atomic only after this key's shuffle, which waits for
            // the leaders' atomics to return, so the next key's atomics run after these.
            // That rests on the order of execution, as CUB's ranking does; the sort-pairs
            // stability tests and the stress run check it.
            unsigned seen = 0;
            if (static_cast<int>(lane) == leader) seen = atomicAdd(&counts[digit], static_cast<unsigned>(__popc(peers)));
            rank[j] = __shfl_sync(kFullMask, seen, leader) + __popc(peers & lanesBelow);
        }
        __syncthreads();
    }

    // Digit threads: adds up the digit's counters over the warps, turning them into each
    // warp's offset within the digit's run. Returns the tile's count of the digit; 0 for
    // the other threads. In the last tile the largest digit's count includes the keys
    // past n, and nothing reads it: no tile looks back at the last one, and a digit's run
    // starts after the smaller digits' keys alone.
    __device__ __forceinline__ unsigned countDigit() const {
        unsigned tileCount = 0;
        if (digitThread) {
            for (int w = 0; w < kWarps; ++w) {
                const unsigned count = storage.warpDigitCounts[w][threadIdx.x];
                storage.warpDigitCounts[w][threadIdx.x] = tileCount;
                tileCount += count;
            }
        }
        return tileCount;
    }

    // Digit threads: countDigit, then publishes the tile's count (inclusive for tile 0,
    // aggregate otherwise) as early as possible, so that later tiles' look-backs can go
    // past this one.
    __device__ __forceinline__ unsigned countAndPublish(const DigitStatus &status) const {
        const unsigned tileCount = countDigit();
        if (digitThread) {
            status.publish(tile, tile == 0 ? Common::kStatusInclusive : Common::kStatusAggregate, tileCount);
        }
        return tileCount;
    }

    // Where the digit's run starts among the tile's staged keys, for every digit thread:
    // the block scan of the digits' counts, kept in tileDigitStart. Every thread calls it
    // (barriers).
    __device__ __forceinline__ unsigned scanDigitCounts(unsigned tileCount) const {
        unsigned digitStart[1] = {tileCount};
        const unsigned warpPrefix = Common::blockExclusiveScanSerialTotals<kWarps>(digitStart, storage.warpPrefix);
        digitStart[0] += warpPrefix;
        if (digitThread) storage.tileDigitStart[threadIdx.x] = digitStart[0];
        __syncthreads();
        return digitStart[0];
    }

    // Stages the keys in shared memory in digit order: key j goes to its digit's run
    // start + its warp's offset in the run + its rank in the warp. The counters' space
    // becomes the staging area after a barrier.
    __device__ __forceinline__ void stageKeys(const unsigned (&keys)[kItems], unsigned (&place)[kItems]) const {
#pragma unroll
        for (int j = 0; j < kItems; ++j) {
            const unsigned digit = digitOf(keys[j], shift);
            place[j] += storage.tileDigitStart[digit] + storage.warpDigitCounts[warp][digit];
        }
        __syncthreads();  // every counter is read: their space becomes the staging area
        stage(keys, place);
    }

    // Writes each item to its staged index: a key's, or its value's after the keys have
    // left the staging area. The items past n fill the staging area's end.
    __device__ __forceinline__ void stage(const unsigned (&items)[kItems], const unsigned (&place)[kItems]) const {
#pragma unroll
        for (int j = 0; j < kItems; ++j) storage.stagedKeys[place[j]] = items[j];
    }

    // Digit threads: look back for how many keys of the digit the earlier tiles hold,
    // publish the inclusive count, and note where the tile's run of the digit lands in
    // the output: at the digit's bucket start plus those earlier keys. Every thread calls
    // it (a barrier).
    __device__ __forceinline__ void lookBack(const DigitStatus &status, unsigned tileCount, unsigned digitStart,
                                             unsigned bucketStart) const {
        if (digitThread) {
            unsigned before = 0;
            if (tile > 0) {
                before = Common::threadLookBack<kLookBackWindow>(status, tile);
                status.publish(tile, Common::kStatusInclusive, before + tileCount);
            }
            storage.digitDestination[threadIdx.x] = static_cast<int>(bucketStart + before - digitStart);
        }
        __syncthreads();
    }

    // The tile's keys before n: kTileItems, or fewer in the last tile.
    __device__ __forceinline__ int tileValid() const {
        const long long tileRemaining = n - tileBase;
        return tileRemaining >= kTileItems ? kTileItems : static_cast<int>(tileRemaining);
    }

    // Calls write(j, s) for the thread's staged items s = j * kThreads + threadIdx.x
    // before n, so that consecutive threads take consecutive staged items. A whole tile
    // (every tile but the last) does not test s.
    template <typename Write>
    __device__ __forceinline__ void forEachStaged(Write write) const {
        const int valid = tileValid();
        if (valid == kTileItems) {
#pragma unroll
            for (int j = 0; j < kItems; ++j) write(j, j * kThreads + static_cast<int>(threadIdx.x));
        } else {
#pragma unroll
            for (int j = 0; j < kItems; ++j) {
                const int s = j * kThreads + static_cast<int>(threadIdx.x);
                if (s < valid) write(j, s);
            }
        }
    }

    // Writes each staged key to its place in the output, consecutive threads to
    // consecutive addresses within each digit's run; the last pass flips `flip` back.
    // Each key's digit is left in `digits`, for its value's scatter.
    __device__ __forceinline__ void scatterKeys(unsigned *keysOut, unsigned flip, unsigned (&digits)[kItems]) const {
        forEachStaged([&](int j, int s) {
            const unsigned key = storage.stagedKeys[s];
            digits[j] = digitOf(key, shift);
            keysOut[storage.digitDestination[digits[j]] + s] = key ^ flip;
        });
    }

    // The values' scatter, once they are staged where their keys were: staged value s goes
    // where staged key s went.
    __device__ __forceinline__ void scatterValues(unsigned *valuesOut, const unsigned (&digits)[kItems]) const {
        forEachStaged([&](int j, int s) { valuesOut[storage.digitDestination[digits[j]] + s] = storage.stagedKeys[s]; });
    }

    // A one-tile sort's last pass: staged item s is output s, flipped by `flip`.
    __device__ __forceinline__ void storeStaged(unsigned *out, unsigned flip) const {
        forEachStaged([&](int, int s) { out[s] = storage.stagedKeys[s] ^ flip; });
    }
};

// Where a pass's values come from and go; both nullptr when sorting keys alone.
struct PassValues {
    unsigned *out;
    const unsigned *in;
};

// One Onesweep pass over one tile of kTileItems keys: sorts the keys by the digit at
// `shift` into keysOut, stably. The tile index comes from an atomic counter, not
// blockIdx, so tiles start in index order whatever the scheduler does and a tile only
// ever waits on tiles that have started. Load the keys; rank them within each warp;
// per digit, count the tile's keys and publish the count at once, so that later tiles'
// look-backs can go past this one; scan the counts for where each digit's run starts in
// the tile; stage the keys in digit order; per digit, look back; scatter the staged keys
// to their places in the output. The first pass applies the sort's sign flip to the keys
// it reads (flipIn) and the last takes it off again (flipOut). With Pairs, each key's
// value is loaded while the tile looks back, staged where its key was once the keys are
// out, and scattered where its key went.
template <typename P, bool Pairs>
__global__ void __launch_bounds__(P::kThreads, P::kMinBlocksHere)
    kernOnesweepPass(int n, unsigned *keysOut, const unsigned *keysIn, PassValues values, int shift, unsigned flipIn,
                     unsigned flipOut, const unsigned *bucketOffsets, unsigned *tileStatus, unsigned *tileCounter) {
    static_assert(sizeof(PassStorage<P>) <= 48 * 1024, "static shared memory is limited to 48 KiB");
    __shared__ PassStorage<P> storage;
    // Before the wait, while the kernel before runs its last blocks, only what no kernel of
    // the chain since the clear touches: this pass's tile counter (dependent_launch.cuh).
    const unsigned tile = startTile(storage, tileCounter);
    Common::waitForPrerequisites();  // the keys and the bucket offsets
    Common::allowDependents();
    const unsigned bucketStart = threadIdx.x < kRadix ? bucketOffsets[threadIdx.x] : 0u;
    const PassThread<P> pass(n, shift, storage, tile);

    unsigned keys[P::kItems];
    pass.loadKeys(keys, keysIn, flipIn);
    unsigned place[P::kItems];  // the key's rank among the warp's keys of its digit, then its staged index
    pass.rankKeys(keys, place);

    const DigitStatus status{tileStatus + threadIdx.x};  // digit threads: their digit's column
    const unsigned tileCount = pass.countAndPublish(status);
    const unsigned digitStart = pass.scanDigitCounts(tileCount);
    pass.stageKeys(keys, place);
    unsigned carried[P::kItems];  // Pairs: the keys' values, in the keys' layout
    if constexpr (Pairs) pass.loadKeys(carried, values.in, 0u);
    pass.lookBack(status, tileCount, digitStart, bucketStart);
    unsigned digits[P::kItems];
    pass.scatterKeys(keysOut, flipOut, digits);
    if constexpr (Pairs) {
        __syncthreads();  // every staged key is out: the values take their places
        pass.stage(carried, place);
        __syncthreads();
        pass.scatterValues(values.out, digits);
    }
}

// A sort of at most one tile (n <= P::kTileItems) in one block, all four passes in
// shared memory: the small-array path, one launch instead of six and a memset. Each pass
// ranks the keys as a multi-tile pass does, stages them (and then their values) in digit
// order and takes them back from there in the same layout for the next; the last writes
// them out. No look-back: the tile is the whole array.
template <typename P, bool Pairs>
__global__ void __launch_bounds__(P::kThreads)
    kernOnesweepOneTile(int n, unsigned *keysOut, const unsigned *keysIn, PassValues values, unsigned signFlip) {
    __shared__ PassStorage<P> storage;
    unsigned keys[P::kItems];
    unsigned carried[P::kItems];  // Pairs: the keys' values
    {
        const PassThread<P> first(n, 0, storage, 0);
        first.loadKeys(keys, keysIn, signFlip);
        if constexpr (Pairs) first.loadKeys(carried, values.in, 0u);
    }
    for (int pass = 0; pass < kPasses; ++pass) {
        clearDigitCounts(storage);
        __syncthreads();
        const PassThread<P> tile(n, pass * kDigitBits, storage, 0);
        unsigned place[P::kItems];
        tile.rankKeys(keys, place);
        tile.scanDigitCounts(tile.countDigit());
        tile.stageKeys(keys, place);
        __syncthreads();
        const bool last = pass == kPasses - 1;
        if (last) tile.storeStaged(keysOut, signFlip);
        else tile.loadStaged(keys);
        if constexpr (Pairs) {
            __syncthreads();  // the keys are out of the staging area: their values go there
            tile.stage(carried, place);
            __syncthreads();
            if (last) tile.storeStaged(values.out, 0u);
            else tile.loadStaged(carried);
        }
        __syncthreads();  // the staging area becomes the next pass's counters
    }
}

// The small-array path for keys alone: a bitonic sort of one block's Threads x Items
// keys, no digits. Element i of the sorting network is thread i / Items's key i % Items
// (a blocked arrangement). The keys are compared as unsigned with the sort's sign flip
// applied, as the radix passes see them; keys past n are kPastEnd, which sorts after
// every key, so the first n of the network's output are the sorted array. A stage
// (k, j) compares element i with i ^ j and leaves the smaller at the lower index where
// i & k is 0 (an ascending run) and the larger where it is not. Three kinds of stage, by where the partner lies:
// the same thread (j < Items), another lane of the warp (j < 32 x Items: a shuffle) or
// another warp (through shared memory, striped so that lanes touch consecutive words).
// Why: the radix one-block path ranks four 8-bit digits, each pass a chain of barriers
// around its digit counters; a bitonic network of 4096 keys has 78 stages, of which 10
// cross warps, and no counters at all.
template <int Threads, int Items>
struct BitonicBlock {
    static constexpr int kKeys = Threads * Items;
    static_assert((Items & (Items - 1)) == 0 && (Threads & (Threads - 1)) == 0 && Threads >= 32,
                  "a power-of-two network of whole warps");
    static constexpr int kLogKeys = __builtin_ctz(kKeys);

    unsigned *shared;  // kKeys words, striped: key r of thread t at r * Threads + t
    int thread;

    // Keeps the smaller of `own` and `other` where this thread holds the stage's lower
    // element of an ascending run or the upper of a descending one, else the larger.
    static __device__ __forceinline__ unsigned keep(unsigned own, unsigned other, bool lower, bool ascending) {
        return lower == ascending ? min(own, other) : max(own, other);
    }

    __device__ __forceinline__ void load(unsigned (&keys)[Items], const unsigned *in, int n, unsigned signFlip) const {
#pragma unroll
        for (int r = 0; r < Items; ++r) {
            const int i = thread * Items + r;
            keys[r] = i < n ? in[i] ^ signFlip : kPastEnd;
        }
    }

    template <int K, int J>
    __device__ __forceinline__ void stage(unsigned (&keys)[Items]) const {
        if constexpr (J < Items) {  // the partner is this thread's key r ^ J
#pragma unroll
            for (int r = 0; r < Items; ++r) {
                if (r & J) continue;
                const bool ascending = ((thread * Items + r) & K) == 0;
                const unsigned a = keys[r], b = keys[r | J];
                keys[r] = ascending ? min(a, b) : max(a, b);
                keys[r | J] = ascending ? max(a, b) : min(a, b);
            }
        } else {  // the partner is thread ^ (J / Items)'s key r
            constexpr int kDelta = J / Items;
            const bool lower = (thread & kDelta) == 0;
            const bool ascending = (thread & (K / Items)) == 0;
            if constexpr (kDelta < 32) {
#pragma unroll
                for (int r = 0; r < Items; ++r) {
                    keys[r] = keep(keys[r], __shfl_xor_sync(kFullMask, keys[r], kDelta), lower, ascending);
                }
            } else {
#pragma unroll
                for (int r = 0; r < Items; ++r) shared[r * Threads + thread] = keys[r];
                __syncthreads();
#pragma unroll
                for (int r = 0; r < Items; ++r) {
                    keys[r] = keep(keys[r], shared[r * Threads + (thread ^ kDelta)], lower, ascending);
                }
                __syncthreads();  // every partner read before the next stage writes
            }
        }
    }

    // The stages of run length 2^LogK: j from 2^(LogK - 1) down to 1.
    template <int LogK, int LogJ = LogK - 1>
    __device__ __forceinline__ void merge(unsigned (&keys)[Items]) const {
        stage<1 << LogK, 1 << LogJ>(keys);
        if constexpr (LogJ > 0) merge<LogK, LogJ - 1>(keys);
    }

    template <int LogK = 1>
    __device__ __forceinline__ void sort(unsigned (&keys)[Items]) const {
        merge<LogK>(keys);
        if constexpr (LogK < kLogKeys) sort<LogK + 1>(keys);
    }

    __device__ __forceinline__ void store(unsigned *out, const unsigned (&keys)[Items], int n, unsigned signFlip) const {
#pragma unroll
        for (int r = 0; r < Items; ++r) {
            const int i = thread * Items + r;
            if (i < n) out[i] = keys[r] ^ signFlip;
        }
    }
};

template <int Threads, int Items>
__global__ void __launch_bounds__(Threads)
    kernBitonicOneBlock(int n, unsigned *out, const unsigned *in, unsigned signFlip) {
    __shared__ unsigned sKeys[Threads * Items];
    const BitonicBlock<Threads, Items> block{sKeys, static_cast<int>(threadIdx.x)};
    unsigned keys[Items];
    block.load(keys, in, n, signFlip);
    block.sort(keys);
    block.store(out, keys, n, signFlip);
}

Common::Workspace scratchKeys;    // the keys after passes 0 and 2
Common::Workspace scratchValues;  // sort-pairs: the values after passes 0 and 2
Common::Workspace sortWords;      // bucket offsets, histograms, tile counters, look-back words

// The small-array path's smaller tiles: 512 threads of Items keys, one block (1024, 2048
// and 4096 keys; tests/test_onesweep.cpp sorts the sizes around each).
constexpr int kSmallThreads = 512;
template <int Items>
using SmallTile = PassPolicy<kSmallThreads, Items, 0>;

// Calls launch(std::integral_constant<int, Items>{}) with the fewest keys a thread, 2, 4
// or 8, whose small tile holds n, and returns whether one does. Fewer keys a thread means
// fewer serial steps in each thread and every warp with keys to sort.
template <typename Launch>
bool withSmallTile(int n, Launch launch) {
    if (n <= SmallTile<2>::kTileItems) launch(std::integral_constant<int, 2>{});
    else if (n <= SmallTile<4>::kTileItems) launch(std::integral_constant<int, 4>{});
    else if (n <= SmallTile<8>::kTileItems) launch(std::integral_constant<int, 8>{});
    else return false;
    return true;
}

// The pass policy of `Pairs` (keys with values) or of keys alone.
template <bool Pairs>
using PoliciesOf = std::conditional_t<Pairs, PairPassPolicies, PassPolicies>;

template <bool Pairs>
using MidPoliciesOf = std::conditional_t<Pairs, MidPairPassPolicies, MidPassPolicies>;

// Calls f with the pass policy of a sort of n keys: the mid tile up to kMidTileLimit, else
// the full tile.
template <bool Pairs, typename F>
decltype(auto) withPassPolicy(Common::PolicyFamily family, long long n, F &&f) {
    return Common::withPolicyBySize<MidPoliciesOf<Pairs>, PoliciesOf<Pairs>>(family, n, kMidTileLimit,
                                                                               std::forward<F>(f));
}

// The full tile: a sort of at most this many keys runs in one block.
template <bool Pairs>
int tileItemsOf(Common::PolicyFamily family) {
    return Common::withPolicy<PoliciesOf<Pairs>>(family, [](auto policy) { return decltype(policy)::kTileItems; });
}

// The pass tile of a sort of n keys.
template <bool Pairs>
int passTileItemsOf(Common::PolicyFamily family, long long n) {
    return withPassPolicy<Pairs>(family, n, [](auto policy) { return decltype(policy)::kTileItems; });
}

// Picks the device's pass policy, reserves the scratch (grown only when a larger sort
// needs it) and lays out the words. n > 0.
template <bool Pairs>
SortState reserveSort(int n) {
    const Common::PolicyFamily family = Common::policyFamily();
    const long long items = passTileItemsOf<Pairs>(family, n);
    unsigned *keysBetweenPasses = scratchKeys.reserve<unsigned>(static_cast<std::size_t>(n));
    unsigned *valuesBetweenPasses = Pairs ? scratchValues.reserve<unsigned>(static_cast<std::size_t>(n)) : nullptr;
    const auto numTiles = static_cast<unsigned>((static_cast<long long>(n) + items - 1) / items);
    const std::size_t histogramWords = static_cast<std::size_t>(kPasses) * kRadix;
    const std::size_t statusWords = static_cast<std::size_t>(kPasses) * numTiles * kRadix;
    unsigned *words = sortWords.reserve<unsigned>(2 * histogramWords + kCounterWords + statusWords);
    return {words,
            words + histogramWords,
            words + 2 * histogramWords,
            words + 2 * histogramWords + kCounterWords,
            keysBetweenPasses,
            valuesBetweenPasses,
            numTiles,
            (histogramWords + kCounterWords + statusWords) * sizeof(unsigned),
            family};
}

// The histogram kernel's grid: as many blocks as fit on the GPU at once (an occupancy
// query, made once), or fewer when there are fewer chunks.
unsigned histogramBlocks(int n) {
    static const unsigned resident = [] {
        int perMultiprocessor = 0;
        SC_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, kernGlobalHistogram,
                                                                    kHistogramThreads, 0));
        return static_cast<unsigned>(Common::multiprocessorCount() * (perMultiprocessor > 0 ? perMultiprocessor : 1));
    }();
    const unsigned chunks = Common::blocksFor(n, kHistogramChunk);
    return chunks < resident ? chunks : resident;
}

// The whole sort on the default stream, device work only; n > 0 and the scratch
// reserved. The passes alternate between the scratch and the output so that the last
// lands in the output; the input is only read, by the histogram and the first pass. The
// values (Pairs) take the same route as the keys. Where the code was compiled for sm_90
// or later, the kernels after the histogram are programmatic dependents of the one
// before (dependent_launch.cuh), each starting during its predecessor's last blocks.
template <bool Pairs>
void sortPasses(int n, unsigned *output, const unsigned *input, unsigned signFlip, PassValues values,
                const SortState &state, unsigned histogramGrid) {
    // Whether the kernels hold their waits (dependent_launch.cuh): asked once, on the
    // first sort (an untimed call), as the histogram's occupancy is.
    static const bool dependent = Common::compiledForDependentLaunch(kernBucketOffsets);
    SC_CUDA_CHECK(cudaMemsetAsync(state.globalHistogram, 0, state.clearedBytes));
    Common::launchDependent(false, "launch kernGlobalHistogram", kernGlobalHistogram, histogramGrid, kHistogramThreads,
                            n, input, signFlip, state.globalHistogram);
    Common::launchDependent(dependent, "launch kernBucketOffsets", kernBucketOffsets, kPasses, kRadix,
                            state.globalHistogram, state.bucketOffsets);

    const unsigned *from = input;
    PassValues route{nullptr, values.in};
    for (int pass = 0; pass < kPasses; ++pass) {
        const bool intoOutput = (kPasses - 1 - pass) % 2 == 0;
        unsigned *to = intoOutput ? output : state.keysBetweenPasses;
        route.out = intoOutput ? values.out : state.valuesBetweenPasses;
        const std::size_t statusOffset = static_cast<std::size_t>(pass) * state.numTiles * kRadix;
        withPassPolicy<Pairs>(state.family, n, [&](auto policy) {
            using P = decltype(policy);
            Common::launchDependent(dependent, "launch kernOnesweepPass", kernOnesweepPass<P, Pairs>, state.numTiles,
                                    P::kThreads, n, to, from, route, pass * kDigitBits, pass == 0 ? signFlip : 0u,
                                    pass == kPasses - 1 ? signFlip : 0u, state.bucketOffsets + pass * kRadix,
                                    state.tileStatus + statusOffset, state.tileCounters + pass);
        });
        from = to;
        route.in = route.out;
    }
}

// A sort of keys (signed when signFlip is kSignBit, unsigned when 0), with values when
// Pairs: one block when the array fits in one tile, else the histogram and four passes.
template <bool Pairs>
void sortOnDevice(int n, unsigned *dOut, const unsigned *dIn, unsigned signFlip, PassValues values) {
    if (n == 0) return;
    const Common::PolicyFamily family = Common::policyFamily();
    if (n <= tileItemsOf<Pairs>(family)) {
        const auto launch = [&](auto policy) {
            using P = decltype(policy);
            kernOnesweepOneTile<P, Pairs><<<1, P::kThreads>>>(n, dOut, dIn, values, signFlip);
        };
        if constexpr (!Pairs) {  // keys alone, up to 4096 (or the tile's, if fewer): the bitonic network
            const bool bitonic = withSmallTile(n, [&](auto items) {
                kernBitonicOneBlock<kSmallThreads, decltype(items)::value><<<1, kSmallThreads>>>(n, dOut, dIn, signFlip);
            });
            if (bitonic) {
                SC_CHECK_LAUNCH("kernBitonicOneBlock");
                return;
            }
        }
        // Otherwise a small array takes a small tile, each pass ranking its keys in as few
        // serial steps as it can, and a larger one the policy's full tile.
        const bool small = withSmallTile(n, [&](auto items) { launch(SmallTile<decltype(items)::value>{}); });
        if (!small) Common::withPolicy<PoliciesOf<Pairs>>(family, launch);
        SC_CHECK_LAUNCH("kernOnesweepOneTile");
        return;
    }
    const SortState state = reserveSort<Pairs>(n);
    sortPasses<Pairs>(n, dOut, dIn, signFlip, values, state, histogramBlocks(n));
}

}  // namespace

int tileItems(Common::PolicyFamily family) { return tileItemsOf<false>(family); }

int pairTileItems(Common::PolicyFamily family) { return tileItemsOf<true>(family); }

int passTileItems(Common::PolicyFamily family, long long n, bool pairs) {
    return pairs ? passTileItemsOf<true>(family, n) : passTileItemsOf<false>(family, n);
}

void sortDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("onesweep", "sort", n);
    sortOnDevice<false>(n, reinterpret_cast<unsigned *>(dOut), reinterpret_cast<const unsigned *>(dIn), kSignBit,
                        {nullptr, nullptr});
}

void sortUnsignedDevice(int n, unsigned *dOut, const unsigned *dIn) {
    Common::Operation operation("onesweep", "sort-unsigned", n);
    sortOnDevice<false>(n, dOut, dIn, 0u, {nullptr, nullptr});
}

void sortPairsDevice(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn) {
    Common::Operation operation("onesweep", "sort-pairs", n);
    sortOnDevice<true>(n, reinterpret_cast<unsigned *>(keysOut), reinterpret_cast<const unsigned *>(keysIn), kSignBit,
                       {reinterpret_cast<unsigned *>(valuesOut), reinterpret_cast<const unsigned *>(valuesIn)});
}

const Backend &backend() {
    static const Backend row{.name = "onesweep", .title = "radix (Onesweep)", .timer = timer, .sort = sortDevice,
                             .sortPairs = sortPairsDevice, .sortUnsigned = sortUnsignedDevice};
    return row;
}

}  // namespace Onesweep
}  // namespace StreamCompaction
