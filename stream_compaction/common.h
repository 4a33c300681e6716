#pragma once
// The course's common header: checkCUDAError, ilog2/ilog2ceil, the PerformanceTimer and
// the two kernels that compaction is built from (map to booleans, scatter), plus the
// adapter that runs a device-pointer call on the course's host arrays. This header
// compiles in a plain C++ translation unit; the kernels are declared for CUDA only.

#include <chrono>
#include <cstddef>

#include <cuda_runtime_api.h>

#include "device_memory.h"
#include "errors.h"
#include "predicate.h"

// The course's macro: throws StreamCompaction::CudaError if the last CUDA call failed.
#define checkCUDAError(msg) ::StreamCompaction::Common::checkLastError((msg), __FILE__, __LINE__)

/** floor(log2(x)) for x >= 1. */
inline int ilog2(int x) {
    int lg = 0;
    while (x >>= 1) ++lg;
    return lg;
}

/** ceil(log2(x)) for x >= 1; 0 for x = 1. */
inline int ilog2ceil(int x) {
    return x <= 1 ? 0 : ilog2(x - 1) + 1;
}

namespace StreamCompaction {
namespace Common {

/**
 * The course's timer: CPU time with std::chrono, GPU time with CUDA events on the
 * default stream, both in milliseconds. Starting a running timer or ending a stopped
 * one throws std::runtime_error; a timer that a failed call left running is stopped once
 * afterError() has run. The CUDA events are made on first GPU use, so a machine without
 * a GPU can still use the CPU half.
 */
class PerformanceTimer {
public:
    PerformanceTimer() = default;
    ~PerformanceTimer();
    PerformanceTimer(const PerformanceTimer &) = delete;
    PerformanceTimer &operator=(const PerformanceTimer &) = delete;
    PerformanceTimer(PerformanceTimer &&) = delete;
    PerformanceTimer &operator=(PerformanceTimer &&) = delete;

    void startCpuTimer();
    void endCpuTimer();
    void startGpuTimer();
    void endGpuTimer();

    float getCpuElapsedTimeForPreviousOperation() const { return prevElapsedTimeCpu_; }
    float getGpuElapsedTimeForPreviousOperation() const { return prevElapsedTimeGpu_; }

private:
    using Clock = std::chrono::high_resolution_clock;
    void stopIfLeftRunning();

    Clock::time_point cpuStart_;
    cudaEvent_t eventStart_ = nullptr;
    cudaEvent_t eventEnd_ = nullptr;
    unsigned startedAtErrorCount_ = 0;  // afterErrorCalls() when a timer was last started
    bool cpuTimerStarted_ = false;
    bool gpuTimerStarted_ = false;
    float prevElapsedTimeCpu_ = 0.0f;
    float prevElapsedTimeGpu_ = 0.0f;
};

/**
 * The course's host-pointer API on top of a back end's device-pointer call: copies the
 * input to the device, runs `call(dOut, dIn, dKept)` inside `timer`'s GPU timer (so the
 * copies stay outside it), and copies back n outputs, or, when `keptOnly` (a
 * compaction), as many as the call wrote to dKept. Returns that count for a `counted`
 * call (0 for n = 0, where calls write none), else n.
 */
template <typename DeviceCall>
int onDeviceCopies(int n, int *odata, const int *idata, PerformanceTimer &timer, bool counted, bool keptOnly,
                   DeviceCall call) {
    DeviceBuffer<int> dIn(n), dOut(n), dKept(1);
    dIn.upload(idata, n);
    timer.startGpuTimer();
    call(dOut.get(), static_cast<const int *>(dIn.get()), dKept.get());
    timer.endGpuTimer();
    const int kept = !counted ? n : n > 0 ? downloadValue(dKept.get()) : 0;
    dOut.download(odata, static_cast<std::size_t>(keptOnly ? kept : n));
    return kept;
}

#if defined(__CUDACC__)
/** The course's map step: bools[i] = 1 if idata[i] != 0, else 0. */
__global__ void kernMapToBoolean(int n, int *bools, const int *idata);

/** The course's scatter: odata[indices[i]] = idata[i] wherever bools[i] is 1. */
__global__ void kernScatter(int n, int *odata, const int *idata, const int *bools, const int *indices);

/** The map step for any predicate: bools[i] = keep(idata[i]). */
__global__ void kernMapToBoolean(int n, int *bools, const int *idata, Predicate keep);
#endif

}  // namespace Common
}  // namespace StreamCompaction
