#include "selection.h"

#include "device_primitives.cuh"
#include "errors.h"
#include "launch.h"

namespace StreamCompaction {
namespace Common {

namespace {

constexpr int kReverseTailThreads = 256;

// reverseTail's kernel: swaps data[start + i] and data[n - 1 - i] for every i below
// (n - start) / 2. A grid-stride loop with a grid that fills the GPU once, so that no
// block is launched only to find that its elements were kept.
template <typename Count>
__global__ void kernReverseTail(long long n, int *data, const Count *start) {
    const long long first = *start;
    const long long swaps = (n - first) / 2;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = threadIndex(); i < swaps; i += stride) {
        const long long front = first + i;
        const long long back = n - 1 - i;
        const int frontValue = data[front];
        data[front] = data[back];
        data[back] = frontValue;
    }
}

template <typename Count>
void launchReverseTail(long long n, int *dData, const Count *dStart) {
    if (n <= 1) return;
    const unsigned int needed = blocksFor(n / 2 + 1, kReverseTailThreads);
    const unsigned int full = static_cast<unsigned int>(multiprocessorCount()) * 8;
    kernReverseTail<<<needed < full ? needed : full, kReverseTailThreads>>>(n, dData, dStart);
    SC_CHECK_LAUNCH("kernReverseTail");
}

}  // namespace

void reverseTail(long long n, int *dData, const int *dStart) { launchReverseTail(n, dData, dStart); }
void reverseTail(long long n, int *dData, const long long *dStart) { launchReverseTail(n, dData, dStart); }

}  // namespace Common
}  // namespace StreamCompaction
