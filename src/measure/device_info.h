#pragma once
// What the reports say about the GPU: its description and the measured copy bandwidth,
// the practical ceiling the reports compare every back end with.

#include <cstddef>
#include <optional>
#include <string>

#include "measure/statistics.h"

namespace Harness {

/** What a report says about the GPU it ran on. */
struct DeviceInfo {
    std::string name;
    std::string uuid;  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L names it
    int computeMajor = 0;
    int computeMinor = 0;
    int multiprocessors = 0;
    std::size_t globalMemoryBytes = 0;
    std::size_t l2CacheBytes = 0;
    double theoreticalBandwidthGBs = 0;  // 2 x memory clock x bus width (DDR)
    int driverVersion = 0;               // e.g. 13000 for 13.0
    int runtimeVersion = 0;
};

/** A GPU's 16-byte UUID (cudaDeviceProp::uuid) as nvidia-smi writes it: "GPU-" and 8-4-4-4-12 hex digits. */
std::string gpuUuidText(const unsigned char (&bytes)[16]);

/** The current device's description; throws CudaError without a device. */
DeviceInfo deviceInfo();

/**
 * The times of `reps` device-to-device cudaMemcpy calls of `bytes` bytes, each after an
 * L2 flush (after one untimed copy): the practical ceiling for an operation that reads
 * an array once and writes it once. Bandwidth is 2 * bytes / median time.
 */
Statistics measureCopy(std::size_t bytes, int reps);

/**
 * The GPU's time per launch in a chain of `kernels` launches (`enqueue(kernels)`; without
 * it, enqueueEmptyKernels), the stream held while they are enqueued, so that the host's
 * launch time is not in it: `reps` samples after an untimed one, each the chain's time
 * over `kernels`, in ms. None when the hold timed out: something serialised the launches
 * behind it (a sanitizer, or an `enqueue` that waits for the device).
 */
std::optional<Statistics> measureLaunchGap(int kernels, int reps, void (*enqueue)(int));
std::optional<Statistics> measureLaunchGap(int kernels, int reps);

}  // namespace Harness
