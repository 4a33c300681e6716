#include "common.h"

#include <stdexcept>

#include "device_primitives.cuh"

namespace StreamCompaction {
namespace Common {

PerformanceTimer::~PerformanceTimer() {
    if (eventStart_) cudaEventDestroy(eventStart_);
    if (eventEnd_) cudaEventDestroy(eventEnd_);
}

// A timer that a failed call left running is stopped once the caller has run
// afterError(), so that the next call can start it again.
void PerformanceTimer::stopIfLeftRunning() {
    if (startedAtErrorCount_ != afterErrorCalls()) {
        cpuTimerStarted_ = false;
        gpuTimerStarted_ = false;
    }
    startedAtErrorCount_ = afterErrorCalls();
}

void PerformanceTimer::startCpuTimer() {
    stopIfLeftRunning();
    if (cpuTimerStarted_) throw std::runtime_error("CPU timer already started");
    cpuTimerStarted_ = true;
    cpuStart_ = Clock::now();
}

void PerformanceTimer::endCpuTimer() {
    auto end = Clock::now();
    if (!cpuTimerStarted_) throw std::runtime_error("CPU timer not started");
    cpuTimerStarted_ = false;
    prevElapsedTimeCpu_ = std::chrono::duration<float, std::milli>(end - cpuStart_).count();
}

void PerformanceTimer::startGpuTimer() {
    stopIfLeftRunning();
    if (gpuTimerStarted_) throw std::runtime_error("GPU timer already started");
    if (!eventStart_) {
        SC_CUDA_CHECK(cudaEventCreate(&eventStart_));
        SC_CUDA_CHECK(cudaEventCreate(&eventEnd_));
    }
    gpuTimerStarted_ = true;
    SC_CUDA_CHECK(cudaEventRecord(eventStart_));
}

void PerformanceTimer::endGpuTimer() {
    if (!gpuTimerStarted_) throw std::runtime_error("GPU timer not started");
    gpuTimerStarted_ = false;
    SC_CUDA_CHECK(cudaEventRecord(eventEnd_));
    SC_CUDA_CHECK(cudaEventSynchronize(eventEnd_));
    SC_CUDA_CHECK(cudaEventElapsedTime(&prevElapsedTimeGpu_, eventStart_, eventEnd_));
}

__global__ void kernMapToBoolean(int n, int *bools, const int *idata, Predicate keep) {
    long long i = threadIndex();
    if (i < n) bools[i] = keep(idata[i]) ? 1 : 0;
}

__global__ void kernMapToBoolean(int n, int *bools, const int *idata) {
    long long i = threadIndex();
    if (i < n) bools[i] = idata[i] != 0 ? 1 : 0;
}

__global__ void kernScatter(int n, int *odata, const int *idata, const int *bools, const int *indices) {
    long long i = threadIndex();
    if (i < n && bools[i]) odata[indices[i]] = idata[i];
}

}  // namespace Common
}  // namespace StreamCompaction
