#pragma once
// Device-side building blocks that the back ends' kernels share: warp-wide sums and
// scans with shuffles, and the thread's index in a one-dimensional grid. Device code
// only: included by .cu files.

namespace StreamCompaction {
namespace Common {

/** Every lane of a warp: the mask of warp-wide shuffles and votes. */
constexpr unsigned kFullMask = 0xffffffffu;

/** The sum of `value` over the warp's 32 lanes, in every lane (butterfly shuffles). */
template <typename T>
__device__ inline T warpSum(T value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(kFullMask, value, offset);
    return value;
}

/**
 * Kogge-Stone inclusive scan across the warp's lanes of `Count` independent values at
 * once, so that their shuffles overlap; `lane` is this thread's lane.
 */
template <int Count, typename T>
__device__ inline void warpInclusiveScan(T (&values)[Count], unsigned lane) {
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
#pragma unroll
        for (int j = 0; j < Count; ++j) {
            const T below = __shfl_up_sync(kFullMask, values[j], offset);
            if (lane >= static_cast<unsigned>(offset)) values[j] += below;
        }
    }
}

/** This thread's index in a one-dimensional grid, wide enough for n near 2^31. */
__device__ inline long long threadIndex() {
    return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

}  // namespace Common
}  // namespace StreamCompaction
