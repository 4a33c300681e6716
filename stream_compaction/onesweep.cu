#include "onesweep.h"

#include <cstddef>

#include "device_memory.h"
#include "device_primitives.cuh"
#include "errors.h"
#include "launch.h"

namespace StreamCompaction {
namespace Onesweep {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() {
    static PerformanceTimer timer;
    return timer;
}

namespace {

constexpr int kDigitBits = 8;
constexpr int kRadix = 1 << kDigitBits;  // buckets per pass
constexpr unsigned kDigitMask = kRadix - 1;
constexpr int kPasses = 32 / kDigitBits;
constexpr unsigned kSignBit = 0x80000000u;  // with it flipped, signed order is unsigned order
using Common::kFullMask;

// A pass's tile (onesweep.h): warp w holds the tile's keys [w * kWarpItems, (w + 1) *
// kWarpItems). Threads 0..kRadix-1 also do the per-digit work, one digit each.
constexpr int kThreads = kTileThreads;
constexpr int kItems = kItemsPerThread;
constexpr int kWarps = kThreads / 32;
constexpr int kWarpItems = 32 * kItems;
static_assert(kThreads % 32 == 0 && kThreads >= kRadix && kThreads <= 1024, "one thread per digit, whole warps");

// The histogram kernel's chunk: kHistogramThreads threads of kHistogramItems keys.
constexpr int kHistogramThreads = 256;
constexpr int kHistogramItems = 16;
constexpr int kHistogramChunk = kHistogramThreads * kHistogramItems;

// A tile's status for one digit is one 32-bit word, published with a single store so that
// flag and count are never seen apart:
//   0                      not published yet (what the memset leaves)
//   kAggregate | count     the digit's count in this tile alone
//   kInclusive | prefix    the digit's count in this tile and every tile before it
// A count is at most kTileItems, far below bit 30. A prefix is at most n <= 2^31 - 1 =
// INT_MAX, so it fits the 31 bits below kInclusive: the packing is exact for every int n,
// and a published word is never 0, not even for a count or prefix of 0.
constexpr unsigned kInclusive = 1u << 31;
constexpr unsigned kAggregate = 1u << 30;
static_assert(kTileItems < static_cast<int>(kAggregate), "a tile's count must fit below the aggregate flag");

// Where each pass's pieces live in one workspace of 32-bit words. The memset at the start
// of a sort clears everything from globalHistogram on; the bucket offsets are written
// whole by kernBucketOffsets.
struct SortState {
    unsigned *bucketOffsets;      // [kPasses][kRadix]: where each digit's bucket starts in the output
    unsigned *globalHistogram;    // [kPasses][kRadix]: keys per digit, counted before the passes
    unsigned *tileCounters;       // [kPasses]: the next tile index each pass hands out
    unsigned *tileStatus;         // [kPasses][numTiles][kRadix]: the look-back words
    unsigned *keysBetweenPasses;  // n keys: the output of passes 0 and 2 (a separate workspace)
    unsigned numTiles;
    std::size_t clearedBytes;     // from globalHistogram to the end of tileStatus
};
constexpr int kCounterWords = 32;  // tileCounters, padded so that tileStatus starts 128-byte aligned

__device__ inline unsigned digitOf(unsigned key, int shift) { return (key >> shift) & kDigitMask; }

// Exclusive scan of one value per digit, held by threads 0..kRadix-1 (thread d, digit d):
// a shuffle scan within each warp, then each thread adds the totals of the warps before
// its own. Every thread of the block calls it, since it holds a barrier; threads past
// kRadix get a meaningless result. sWarpTotals may be written again only after another
// barrier.
__device__ unsigned exclusiveScanOfDigits(unsigned value, unsigned (&sWarpTotals)[kRadix / 32]) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    unsigned inclusive[1] = {value};
    Common::warpInclusiveScan(inclusive, lane);
    if (lane == 31 && threadIdx.x < kRadix) sWarpTotals[warp] = inclusive[0];
    __syncthreads();
    unsigned before = 0;
    if (threadIdx.x < kRadix) {
        for (unsigned w = 0; w < warp; ++w) before += sWarpTotals[w];
    }
    return before + inclusive[0] - value;
}

// The global histogram (the paper's first kernel): the digit counts of all four passes in
// one read of the keys. Each block counts its chunks into shared-memory histograms with
// shared atomics, then adds them to the global ones, so that global atomics number
// 4 x 256 per block rather than 4 per key. The grid fills the GPU once and strides over
// the chunks. Keys are counted with the sign bit flipped, as the passes see them.
__global__ void __launch_bounds__(kHistogramThreads)
    kernGlobalHistogram(int n, const unsigned *keys, unsigned *globalHistogram) {
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
            chunkKeys[j] = i < n ? __ldg(keys + i) ^ kSignBit : 0u;
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
    __shared__ unsigned sWarpTotals[kRadix / 32];
    const int i = blockIdx.x * kRadix + threadIdx.x;
    bucketOffsets[i] = exclusiveScanOfDigits(globalHistogram[i], sWarpTotals);
}

// Decoupled look-back for one digit (Merrill and Garland 2016; Onesweep runs one per
// digit, thread d for digit d): walks back from the tile before `tile`, adding the
// aggregates it meets, until it meets an inclusive prefix (tile 0 publishes one at once).
// Returns how many keys of the digit the tiles before `tile` hold. Each step loads the
// words of kLookBackWindow predecessors at once, so that one memory round trip covers
// several tiles, then uses them nearest first. A word of 0 is not published yet: spin on
// it. Every earlier tile drew its index before this one did, so it is running or done
// and publishes eventually: the wait cannot deadlock. The word itself is all that is
// communicated, so it is published with atomicExch and polled with volatile loads (the
// pairing that ran the decoupled scan fastest on the H200, see decoupled.cu).
constexpr int kLookBackWindow = 4;

__device__ void publish(unsigned *tileStatus, unsigned tile, unsigned digit, unsigned word) {
    atomicExch(&tileStatus[static_cast<long long>(tile) * kRadix + digit], word);
}

__device__ unsigned lookBack(const unsigned *tileStatus, unsigned tile, unsigned digit) {
    auto status = [&](long long predecessor) -> const volatile unsigned & {
        return tileStatus[predecessor * kRadix + digit];
    };
    unsigned before = 0;
    for (long long nearest = static_cast<long long>(tile) - 1;; nearest -= kLookBackWindow) {
        // Tiles before 0 are never used: tile 0's word is inclusive and ends the walk.
        unsigned words[kLookBackWindow];
#pragma unroll
        for (int k = 0; k < kLookBackWindow; ++k) words[k] = nearest - k >= 0 ? status(nearest - k) : kInclusive;
#pragma unroll
        for (int k = 0; k < kLookBackWindow; ++k) {
            while (words[k] == 0) words[k] = status(nearest - k);
            if (words[k] & kInclusive) return before + (words[k] & ~kInclusive);
            before += words[k] & ~kAggregate;
        }
    }
}

// The lanes of the warp whose digit equals this lane's (a warp-level match): one ballot
// per digit bit, and one that keeps keys past n (digit kRadix) apart from real keys. On
// the H200 these nine ballots cost less than one __match_any_sync over 32 mostly distinct
// digits (results/h200/onesweep-variants.txt). Every lane of the warp must call it.
__device__ unsigned lanesWithSameDigit(unsigned digit) {
    const bool real = digit < kRadix;
    const unsigned realLanes = __ballot_sync(kFullMask, real);
    unsigned peers = real ? realLanes : ~realLanes;
#pragma unroll
    for (int bit = 0; bit < kDigitBits; ++bit) {
        const bool set = (digit >> bit) & 1u;
        const unsigned lanesWithBit = __ballot_sync(kFullMask, set);
        peers &= set ? lanesWithBit : ~lanesWithBit;
    }
    return peers;
}

// A pass's shared memory. The warps' digit counters are dead once every key knows its
// place in the tile, and the staged keys reuse their space.
struct PassStorage {
    union {
        // Ranking: keys of each digit that each warp has seen so far; then, per digit, how
        // many of the tile's keys with that digit the warps before each one hold.
        unsigned warpDigitCounts[kWarps][kRadix];
        unsigned stagedKeys[kTileItems];  // the tile's keys in digit order
    };
    unsigned tileDigitStart[kRadix];     // where each digit's run starts among the staged keys
    long long digitDestination[kRadix];  // output index of staged key s with digit d, less s
    unsigned warpTotals[kRadix / 32];    // exclusiveScanOfDigits's scratch
    unsigned tile;                       // this block's tile index, drawn from the counter
};
static_assert(sizeof(PassStorage) <= 48 * 1024, "static shared memory is limited to 48 KiB");

// One Onesweep pass over one tile of kTileItems keys: sorts the keys by the digit at
// `shift` into keysOut, stably. The tile index comes from an atomic counter, not
// blockIdx, so tiles start in index order whatever the scheduler does and a tile only ever
// waits on tiles that have started.
//   1. Load: key j of lane l of warp w is key w * kWarpItems + j * 32 + l of the tile, so
//      every load of a warp reads 128 contiguous bytes.
//   2. Rank within the warp (warp-level multisplit): for each j, lanesWithSameDigit groups
//      the lanes whose keys share a digit; the group's highest lane adds the group's size
//      to the warp's counter for that digit, and a key's rank is the counter before that
//      plus the lanes of its group below its own. Keys are visited in input order (j, then
//      lane), so equal digits keep their input order: the ranking is stable.
//   3. Thread d adds up digit d over the warps, turning the counters into each warp's
//      offset within the digit's run, and publishes the tile's count of d (inclusive for
//      tile 0, aggregate otherwise) as early as possible, so that later tiles' look-backs
//      can go past this one. A scan over the digits gives where each run starts.
//   4. Stage the keys in shared memory in digit order: run start + warp offset + rank.
//   5. Thread d looks back for how many keys of digit d the earlier tiles hold, publishes
//      the inclusive count, and notes where the tile's run of d lands in the output:
//      bucket offset + keys of d in earlier tiles.
//   6. Scatter: thread t writes staged keys t, t + kThreads, ..., so consecutive threads
//      write consecutive addresses within each digit's run.
// Keys past n (in the last tile) are neither counted, staged nor written. The first pass
// flips the sign bit of the keys it reads (flipIn) and the last flips it back (flipOut).
__global__ void __launch_bounds__(kThreads, 2)
    kernOnesweepPass(int n, unsigned *keysOut, const unsigned *keysIn, int shift, unsigned flipIn, unsigned flipOut,
                     const unsigned *bucketOffsets, unsigned *tileStatus, unsigned *tileCounter) {
    __shared__ PassStorage storage;
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    const bool digitThread = threadIdx.x < kRadix;
    const unsigned bucketStart = digitThread ? bucketOffsets[threadIdx.x] : 0u;

    if (threadIdx.x == 0) storage.tile = atomicAdd(tileCounter, 1u);
    for (int i = threadIdx.x; i < kWarps * kRadix; i += kThreads) storage.warpDigitCounts[i / kRadix][i % kRadix] = 0;
    __syncthreads();
    const unsigned tile = storage.tile;
    const long long tileBase = static_cast<long long>(tile) * kTileItems;
    const long long warpBase = tileBase + static_cast<long long>(warp) * kWarpItems;
    const long long warpRemaining = n - warpBase;  // may be <= 0 or past kWarpItems
    const int warpValid =
        warpRemaining <= 0 ? 0 : warpRemaining >= kWarpItems ? kWarpItems : static_cast<int>(warpRemaining);
    auto valid = [&](int j) { return j * 32 + static_cast<int>(lane) < warpValid; };

    // 1. Load.
    const unsigned *warpKeys = keysIn + warpBase;
    unsigned keys[kItems];
#pragma unroll
    for (int j = 0; j < kItems; ++j) keys[j] = valid(j) ? __ldg(warpKeys + j * 32 + lane) ^ flipIn : 0u;

    // 2. Rank within the warp. Keys past n take the digit kRadix, which no real key has,
    // and are left out of the counts.
    unsigned *counts = storage.warpDigitCounts[warp];
    const unsigned lanesBelow = (1u << lane) - 1;
    unsigned place[kItems];  // the key's rank among the warp's keys of its digit, then its staged index
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const unsigned digit = valid(j) ? digitOf(keys[j], shift) : kRadix;
        const unsigned peers = lanesWithSameDigit(digit);
        const int leader = 31 - __clz(peers);
        unsigned seen = 0;
        if (static_cast<int>(lane) == leader && digit < kRadix) {
            seen = counts[digit];
            counts[digit] = seen + __popc(peers);
        }
        place[j] = __shfl_sync(kFullMask, seen, leader) + __popc(peers & lanesBelow);
        __syncwarp();  // the counter's update is seen by the next j's leader
    }
    __syncthreads();

    // 3. The tile's count of each digit, published; each warp's offset within each run.
    unsigned tileCount = 0;
    if (digitThread) {
        for (int w = 0; w < kWarps; ++w) {
            const unsigned count = storage.warpDigitCounts[w][threadIdx.x];
            storage.warpDigitCounts[w][threadIdx.x] = tileCount;
            tileCount += count;
        }
        publish(tileStatus, tile, threadIdx.x, (tile == 0 ? kInclusive : kAggregate) | tileCount);
    }
    const unsigned digitStart = exclusiveScanOfDigits(tileCount, storage.warpTotals);
    if (digitThread) storage.tileDigitStart[threadIdx.x] = digitStart;
    __syncthreads();

    // 4. Stage the keys in digit order.
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        if (valid(j)) {
            const unsigned digit = digitOf(keys[j], shift);
            place[j] += storage.tileDigitStart[digit] + storage.warpDigitCounts[warp][digit];
        }
    }
    __syncthreads();  // every counter is read: their space becomes the staging area
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        if (valid(j)) storage.stagedKeys[place[j]] = keys[j];
    }

    // 5. Look back, per digit.
    if (digitThread) {
        unsigned before = 0;
        if (tile > 0) {
            before = lookBack(tileStatus, tile, threadIdx.x);
            publish(tileStatus, tile, threadIdx.x, kInclusive | (before + tileCount));
        }
        storage.digitDestination[threadIdx.x] = static_cast<long long>(bucketStart) + before - digitStart;
    }
    __syncthreads();

    // 6. Scatter.
    const long long tileRemaining = n - tileBase;
    const int tileValid = tileRemaining >= kTileItems ? kTileItems : static_cast<int>(tileRemaining);
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
        const int s = j * kThreads + static_cast<int>(threadIdx.x);
        if (s < tileValid) {
            const unsigned key = storage.stagedKeys[s];
            keysOut[storage.digitDestination[digitOf(key, shift)] + s] = key ^ flipOut;
        }
    }
}

Common::Workspace scratchKeys;  // the keys after passes 0 and 2
Common::Workspace sortWords;    // bucket offsets, histograms, tile counters, look-back words

// Reserves the scratch before the timer starts, and lays out the words. n > 0.
SortState reserveSort(int n) {
    unsigned *keysBetweenPasses = scratchKeys.reserve<unsigned>(static_cast<std::size_t>(n));
    const auto numTiles = static_cast<unsigned>((static_cast<long long>(n) + kTileItems - 1) / kTileItems);
    const std::size_t histogramWords = static_cast<std::size_t>(kPasses) * kRadix;
    const std::size_t statusWords = static_cast<std::size_t>(kPasses) * numTiles * kRadix;
    unsigned *words = sortWords.reserve<unsigned>(2 * histogramWords + kCounterWords + statusWords);
    return {words,
            words + histogramWords,
            words + 2 * histogramWords,
            words + 2 * histogramWords + kCounterWords,
            keysBetweenPasses,
            numTiles,
            (histogramWords + kCounterWords + statusWords) * sizeof(unsigned)};
}

// The histogram kernel's grid: as many blocks as fit on the GPU at once (an occupancy
// query, made once and before any timer), or fewer when there are fewer chunks.
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

// The whole sort on the default stream, inside the caller's timer; n > 0 and the scratch
// reserved. The passes alternate between the scratch and the output so that the last
// lands in the output; the input is only read, by the histogram and the first pass.
void sortPasses(int n, int *dOut, const int *dIn, const SortState &state, unsigned histogramGrid) {
    SC_CUDA_CHECK(cudaMemsetAsync(state.globalHistogram, 0, state.clearedBytes));
    const auto *input = reinterpret_cast<const unsigned *>(dIn);
    kernGlobalHistogram<<<histogramGrid, kHistogramThreads>>>(n, input, state.globalHistogram);
    SC_CHECK_LAUNCH("kernGlobalHistogram");
    kernBucketOffsets<<<kPasses, kRadix>>>(state.globalHistogram, state.bucketOffsets);
    SC_CHECK_LAUNCH("kernBucketOffsets");

    auto *output = reinterpret_cast<unsigned *>(dOut);
    const unsigned *from = input;
    for (int pass = 0; pass < kPasses; ++pass) {
        unsigned *to = (kPasses - 1 - pass) % 2 == 0 ? output : state.keysBetweenPasses;
        const std::size_t statusOffset = static_cast<std::size_t>(pass) * state.numTiles * kRadix;
        kernOnesweepPass<<<state.numTiles, kThreads>>>(n, to, from, pass * kDigitBits, pass == 0 ? kSignBit : 0u,
                                                       pass == kPasses - 1 ? kSignBit : 0u,
                                                       state.bucketOffsets + pass * kRadix,
                                                       state.tileStatus + statusOffset, state.tileCounters + pass);
        SC_CHECK_LAUNCH("kernOnesweepPass");
        from = to;
    }
}

}  // namespace

void sortDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("onesweep", "sort", n);
    const SortState state = n > 0 ? reserveSort(n) : SortState{};
    const unsigned histogramGrid = n > 0 ? histogramBlocks(n) : 0;
    timer().startGpuTimer();
    if (n > 0) sortPasses(n, dOut, dIn, state, histogramGrid);
    timer().endGpuTimer();
}

const Backend &backend() {
    static const Backend row{.name = "onesweep", .title = "radix (Onesweep)", .timer = timer, .sort = sortDevice};
    return row;
}

}  // namespace Onesweep
}  // namespace StreamCompaction
