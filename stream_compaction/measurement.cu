#include "measurement.h"

#include "device_memory.h"
#include "errors.h"

namespace StreamCompaction {
namespace Common {

EventPair::EventPair() {
    SC_CUDA_CHECK(cudaEventCreate(&start_));
    SC_CUDA_CHECK(cudaEventCreate(&stop_));
}

EventPair::~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
}

void EventPair::start() { SC_CUDA_CHECK(cudaEventRecord(start_)); }
void EventPair::stop() { SC_CUDA_CHECK(cudaEventRecord(stop_)); }

double EventPair::elapsedMs() {
    SC_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    SC_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
}

std::size_t l2CacheBytes() {
    int device = 0, bytes = 0;
    SC_CUDA_CHECK(cudaGetDevice(&device));
    SC_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
    return static_cast<std::size_t>(bytes);
}

std::size_t l2FlushBytes() { return 2 * l2CacheBytes(); }

namespace {

Workspace flushBuffer;
unsigned long long flushes = 0;

// The device's global nanosecond timer, which runs at a fixed rate whatever the clocks.
__device__ __forceinline__ unsigned long long globalTimerNs() {
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns;
}

// Spins until the host sets flags[0], or gives up after timeoutNs and sets flags[1].
__global__ void kernHoldStream(volatile int *flags, unsigned long long timeoutNs) {
    const unsigned long long start = globalTimerNs();
    while (flags[0] == 0) {
        if (globalTimerNs() - start > timeoutNs) {
            flags[1] = 1;
            return;
        }
    }
}

__global__ void kernNothing() {}

}  // namespace

void flushL2() {
    const std::size_t bytes = l2FlushBytes();
    void *scratch = flushBuffer.reserve<unsigned char>(bytes);
    SC_CUDA_CHECK(cudaMemsetAsync(scratch, 0, bytes));
    ++flushes;
}

unsigned long long l2FlushCount() { return flushes; }

void enqueueEmptyKernels(int count) {
    int device = 0, multiprocessors = 0;
    SC_CUDA_CHECK(cudaGetDevice(&device));
    SC_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    for (int i = 0; i < count; ++i) {
        kernNothing<<<multiprocessors, 128>>>();
        SC_CHECK_LAUNCH("kernNothing");
    }
}

StreamHold::StreamHold(double timeoutMs) : timeoutMs_(timeoutMs) {
    void *host = nullptr;
    SC_CUDA_CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
    flags_ = static_cast<volatile int *>(host);
    flags_[0] = 0;
    flags_[1] = 0;
    void *device = nullptr;
    SC_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
    deviceFlags_ = static_cast<int *>(device);
}

StreamHold::~StreamHold() {
    if (flags_) cudaFreeHost(const_cast<int *>(flags_));
}

void StreamHold::hold() {
    flags_[0] = 0;
    flags_[1] = 0;
    kernHoldStream<<<1, 1>>>(deviceFlags_, static_cast<unsigned long long>(timeoutMs_ * 1e6));
    SC_CHECK_LAUNCH("kernHoldStream");
}

bool StreamHold::release() {
    flags_[0] = 1;
    SC_CUDA_CHECK(cudaStreamSynchronize(0));
    return flags_[1] == 0;
}

}  // namespace Common
}  // namespace StreamCompaction
