#include "naive.h"

#include <utility>

#include "device_memory.h"
#include "device_primitives.cuh"
#include "errors.h"
#include "launch.h"

namespace StreamCompaction {
namespace Naive {

using StreamCompaction::Common::PerformanceTimer;

PerformanceTimer &timer() { static PerformanceTimer timer; return timer; }

namespace {

Common::Workspace pingPongBuffers;

// One pass of the Hillis–Steele scan (GPU Gems 3, 39.2.1): every element adds the
// element `offset` places to its left. ilog2ceil(n) passes, offset 1, 2, 4, ..., give an
// inclusive scan in O(n log n) adds. The last pass writes each sum one place to the
// right and a 0 in front, which turns the inclusive scan into the exclusive one.
template <bool LastPass>
__global__ void kernScanPass(int n, long long offset, int *odata, const int *idata) {
    long long i = Common::threadIndex();
    if (i >= n) return;
    int sum = idata[i] + (i >= offset ? idata[i - offset] : 0);
    if (LastPass) {
        if (i + 1 < n) odata[i + 1] = sum;
        if (i == 0) odata[0] = 0;
    } else {
        odata[i] = sum;
    }
}

}  // namespace

void scanDevice(int n, int *dOut, const int *dIn) {
    Common::Operation operation("naive", "scan", n);
    const int passes = ilog2ceil(n);
    // Two ping-pong buffers: a pass reads one and writes the other.
    int *ping = pingPongBuffers.reserve<int>(passes > 1 ? 2 * static_cast<std::size_t>(n) : 0);
    int *pong = ping + (passes > 1 ? n : 0);
    const int threads = Common::blockSize();
    const unsigned int blocks = Common::blocksFor(n, threads);

    if (n == 1) {
        SC_CUDA_CHECK(cudaMemsetAsync(dOut, 0, sizeof(int)));  // the sum of nothing
    }
    const int *source = dIn;
    for (int pass = 0; pass < passes; ++pass) {
        const long long offset = 1LL << pass;
        if (pass + 1 == passes) {
            kernScanPass<true><<<blocks, threads>>>(n, offset, dOut, source);
            SC_CHECK_LAUNCH("kernScanPass<last>");
        } else {
            kernScanPass<false><<<blocks, threads>>>(n, offset, ping, source);
            SC_CHECK_LAUNCH("kernScanPass");
            source = ping;
            std::swap(ping, pong);
        }
    }
}

const Backend &backend() {
    static const Backend row{.name = "naive", .title = "naive", .honoursBlockSize = true, .timer = timer,
                             .scan = scanDevice};
    return row;
}

void scan(int n, int *odata, const int *idata) { hostScan(backend(), n, odata, idata); }

}  // namespace Naive
}  // namespace StreamCompaction
