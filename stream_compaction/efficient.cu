#include "efficient.h"

#include "device_memory.h"
#include "device_primitives.cuh"
#include "errors.h"
#include "launch.h"

namespace StreamCompaction {
namespace Efficient {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

namespace {

Common::Workspace scanTree;          // the balanced tree, padded to a power of two
Common::Workspace compactionFlags;   // 0/1 flags, then their scan: 2n ints

// Up-sweep (reduce) level of Blelloch's scan (GPU Gems 3, 39.2.2): node t of this level
// adds its left child's partial sum into its right child, `half` apart. A level gets one
// thread per node, not one per element, so deep levels launch only a few blocks. The
// first level reads the input itself, zero past n, and so also fills the padded tree.
template <bool FirstLevel>
__global__ void kernUpSweep(long long nodes, long long half, int n, int *tree, const int *idata) {
    long long t = Common::threadIndex();
    if (t >= nodes) return;
    long long right = (t + 1) * 2 * half - 1;
    long long left = right - half;
    if (FirstLevel) {
        int leftValue = left < n ? idata[left] : 0;
        int rightValue = right < n ? idata[right] : 0;
        tree[left] = leftValue;
        tree[right] = leftValue + rightValue;
    } else {
        tree[right] += tree[left];
    }
}

// Down-sweep level: with the root zeroed, each node passes its prefix to its left child
// and prefix + left child's sum to its right child. The last level writes the scan
// straight into the output, dropping the padding.
template <bool LastLevel>
__global__ void kernDownSweep(long long nodes, long long half, int n, int *tree, int *odata) {
    long long t = Common::threadIndex();
    if (t >= nodes) return;
    long long right = (t + 1) * 2 * half - 1;
    long long left = right - half;
    int leftSum = tree[left];
    int prefix = tree[right];
    if (LastLevel) {
        if (left < n) odata[left] = prefix;
        if (right < n) odata[right] = prefix + leftSum;
    } else {
        tree[left] = prefix;
        tree[right] = prefix + leftSum;
    }
}

// How many a compaction kept: the last flag plus its exclusive scan, written on the
// device so that the call needs no host synchronisation.
__global__ void kernKeptCount(int n, int *kept, const int *flags, const int *positions) {
    *kept = positions[n - 1] + flags[n - 1];
}

// The tree a scan of n elements needs, reserved before the device work is enqueued.
int *reserveTree(int n) {
    return scanTree.reserve<int>(n > 1 ? static_cast<std::size_t>(1LL << ilog2ceil(n)) : 0);
}

// The scan's kernels: shared by scanDevice() and compactDevice().
void exclusiveScan(int n, int *dOut, const int *dIn) {
    if (n <= 0) return;
    const int levels = ilog2ceil(n);
    if (levels == 0) {  // n == 1: the sum of nothing
        SC_CUDA_CHECK(cudaMemsetAsync(dOut, 0, sizeof(int)));
        return;
    }
    const long long paddedSize = 1LL << levels;
    int *tree = reserveTree(n);
    const int threads = Common::blockSize();

    for (int level = 0; level < levels; ++level) {
        const long long half = 1LL << level;
        const long long nodes = paddedSize >> (level + 1);
        const unsigned int blocks = Common::blocksFor(nodes, threads);
        if (level == 0) {
            kernUpSweep<true><<<blocks, threads>>>(nodes, half, n, tree, dIn);
            SC_CHECK_LAUNCH("kernUpSweep<first>");
        } else {
            kernUpSweep<false><<<blocks, threads>>>(nodes, half, n, tree, dIn);
            SC_CHECK_LAUNCH("kernUpSweep");
        }
    }
    SC_CUDA_CHECK(cudaMemsetAsync(tree + paddedSize - 1, 0, sizeof(int)));
    for (int level = levels - 1; level >= 0; --level) {
        const long long half = 1LL << level;
        const long long nodes = paddedSize >> (level + 1);
        const unsigned int blocks = Common::blocksFor(nodes, threads);
        if (level == 0) {
            kernDownSweep<true><<<blocks, threads>>>(nodes, half, n, tree, dOut);
            SC_CHECK_LAUNCH("kernDownSweep<last>");
        } else {
            kernDownSweep<false><<<blocks, threads>>>(nodes, half, n, tree, dOut);
            SC_CHECK_LAUNCH("kernDownSweep");
        }
    }
}

}  // namespace

void scanDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("work-efficient", "scan", n);
    exclusiveScan(n, dOut, dIn);
}

void compactDevice(int n, int *dOut, const int *dIn, Predicate keep, int *kept) {
    Common::Operation operation("work-efficient", "compact", n);
    int *flags = compactionFlags.reserve<int>(2 * static_cast<std::size_t>(n));
    int *positions = flags + n;
    reserveTree(n);
    const int threads = Common::blockSize();
    const unsigned int blocks = Common::blocksFor(n, threads);

    if (n == 0) return;
    Common::kernMapToBoolean<<<blocks, threads>>>(n, flags, dIn, keep);
    SC_CHECK_LAUNCH("kernMapToBoolean");
    exclusiveScan(n, positions, flags);
    Common::kernScatter<<<blocks, threads>>>(n, dOut, dIn, flags, positions);
    SC_CHECK_LAUNCH("kernScatter");
    kernKeptCount<<<1, 1>>>(n, kept, flags, positions);
    SC_CHECK_LAUNCH("kernKeptCount");
}

const Backend &backend() {
    static const Backend row{.name = "efficient", .title = "work-efficient", .honoursBlockSize = true,
                             .timer = timer, .scan = scanDevice, .compact = compactDevice};
    return row;
}

void scan(int n, int *odata, const int *idata) { hostScan(backend(), n, odata, idata); }

int compact(int n, int *odata, const int *idata) { return hostCompact(backend(), n, odata, idata); }

}  // namespace Efficient
}  // namespace StreamCompaction
