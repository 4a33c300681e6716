#pragma once
// The device side of a measurement, for a harness that times the back ends' device-pointer
// entry points from outside: CUDA events on the default stream, an L2 flush before a
// cold sample, and a blocking kernel that holds the stream while a call is enqueued, so
// that the host's launch time is not in the figure (nvbench's method).

#include <cstddef>

#include <cuda_runtime_api.h>

namespace StreamCompaction {
namespace Common {

/** Two CUDA events on the default stream; elapsedMs() waits for the second. */
class EventPair {
public:
    EventPair();
    ~EventPair();
    EventPair(const EventPair &) = delete;
    EventPair &operator=(const EventPair &) = delete;

    void start();
    void stop();
    /** The time between start() and stop() on the device, after waiting for stop(). */
    double elapsedMs();

private:
    cudaEvent_t start_ = nullptr;
    cudaEvent_t stop_ = nullptr;
};

/** The device's L2 cache size in bytes (cudaDevAttrL2CacheSize). */
std::size_t l2CacheBytes();

/**
 * Evicts the L2 cache before a cold sample: writes a scratch buffer of twice its size on
 * the default stream (allocated on first use, freed by releaseWorkspaces()). Enqueued
 * only; the caller's events come after it.
 */
void flushL2();

/** The bytes flushL2() writes: 2 x l2CacheBytes(). */
std::size_t l2FlushBytes();

/** How many times flushL2() has run in this process (a test hook: one per cold call). */
unsigned long long l2FlushCount();

/**
 * Enqueues `count` kernels that do nothing, one block of 128 threads per SM each, one
 * after another on the default stream. Timed with the stream held, their time over
 * `count` is what the GPU itself spends on each launch that waits for the one before.
 */
void enqueueEmptyKernels(int count);

/**
 * Holds the default stream with a kernel that spins on a host-mapped flag: hold(), then
 * enqueue the start event, the call and the stop event, then release(). The device runs
 * them back to back once released, so the figure holds device time only. A call that
 * waits for the device inside (a synchronisation, a blocking copy) would wait for the
 * hold forever; the kernel gives up after `timeoutMs`, and release() says so.
 */
class StreamHold {
public:
    explicit StreamHold(double timeoutMs = 500);
    ~StreamHold();
    StreamHold(const StreamHold &) = delete;
    StreamHold &operator=(const StreamHold &) = delete;

    void hold();
    /** Lets the held stream go on; false when the kernel had given up waiting (timed out). */
    bool release();

private:
    volatile int *flags_ = nullptr;  // host-mapped: [0] release, [1] timed out
    int *deviceFlags_ = nullptr;
    double timeoutMs_;
};

}  // namespace Common
}  // namespace StreamCompaction
