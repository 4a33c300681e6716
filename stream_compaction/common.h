#pragma once
// Shared pieces of every back end: error checking, the course's timer, RAII device
// buffers, the run-time block size and the two kernels that compaction is built from.
// This header compiles in a plain C++ translation unit; device-only declarations are
// guarded by __CUDACC__.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "predicate.h"

// The course's macro: throws StreamCompaction::CudaError if the last CUDA call failed.
#define checkCUDAError(msg) ::StreamCompaction::Common::checkLastError((msg), __FILE__, __LINE__)

// Checks a CUDA runtime call; a failure throws CudaError naming the current operation.
#define SC_CUDA_CHECK(call) ::StreamCompaction::Common::checkCuda((call), #call, __FILE__, __LINE__)

// After every kernel launch: catches launch-configuration errors at once.
#define SC_CHECK_LAUNCH(kernelName) \
    ::StreamCompaction::Common::checkLastError("launch " kernelName, __FILE__, __LINE__)

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

/** A CUDA failure, with the back end, operation and size that were running. */
class CudaError : public std::runtime_error {
public:
    CudaError(const std::string &what, cudaError_t code) : std::runtime_error(what), code_(code) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};

/** A device allocation that did not fit; carries the byte count asked for. */
class OutOfMemory : public CudaError {
public:
    OutOfMemory(const std::string &what, std::size_t bytes)
        : CudaError(what, cudaErrorMemoryAllocation), bytes_(bytes) {}
    std::size_t bytes() const { return bytes_; }

private:
    std::size_t bytes_;
};

namespace Common {

/** Throws std::invalid_argument ("cpu scan: n = -1 is negative; ...") when n < 0. */
void requireNonNegative(const char *backend, const char *op, long long n);

/**
 * Names the operation running on this thread, so that an error anywhere below it says
 * "naive scan, n = 1048576: ...". Back ends open one at each public entry point.
 * A negative n throws std::invalid_argument; without a CUDA device it throws CudaError
 * saying "no CUDA device".
 */
class Operation {
public:
    Operation(const char *backend, const char *op, long long n);
    ~Operation();
    Operation(const Operation &) = delete;
    Operation &operator=(const Operation &) = delete;

    /** "naive scan, n = 1048576", or "CUDA" outside any operation. */
    static std::string describeCurrent();

private:
    const char *backend_;
    const char *op_;
    long long n_;
    const Operation *outer_;
};

void checkCuda(cudaError_t err, const char *what, const char *file, int line);
void checkLastError(const char *what, const char *file, int line);

/** True when at least one CUDA device can be used. Cached after the first call. */
bool deviceAvailable();

/**
 * The current device's multiprocessor count, for grids sized to fill the GPU once.
 * Queried once, by the first Operation on a device, so never inside a timed region.
 */
int multiprocessorCount();

/** What a report says about the GPU it ran on. */
struct DeviceInfo {
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    int multiprocessors = 0;
    std::size_t globalMemoryBytes = 0;
    double theoreticalBandwidthGBs = 0;  // 2 x memory clock x bus width (DDR)
    int driverVersion = 0;               // e.g. 13000 for 13.0
    int runtimeVersion = 0;
};

/** The current device's description; throws CudaError without a device. */
DeviceInfo deviceInfo();

/**
 * Median time in ms of a device-to-device cudaMemcpy of `bytes` bytes (after one
 * untimed copy): the practical ceiling for an operation that reads an array once and
 * writes it once. Bandwidth is 2 * bytes / time.
 */
double measureCopyMs(std::size_t bytes, int reps);

/** Bytes of device memory free now (cudaMemGetInfo); throws CudaError without a device. */
std::size_t freeDeviceMemory();

/** Threads per block used by every GPU back end (default 128). */
int blockSize();
/** Sets the block size; throws std::invalid_argument unless a multiple of 32 in [32, 1024]. */
void setBlockSize(int threads);
/** Whether `threads` is an accepted block size. */
bool validBlockSize(int threads);

/** Blocks needed to give one thread to each of `items` items. */
inline unsigned int blocksFor(long long items, int threads) {
    return static_cast<unsigned int>((items + threads - 1) / threads);
}

/** Raw allocation helpers; allocation failure throws OutOfMemory with the byte count. */
void *deviceAllocate(std::size_t bytes);
void deviceFree(void *ptr) noexcept;

/** One value read back from device memory (a count, a total), synchronously. */
template <typename T>
T downloadValue(const T *dValue) {
    T value{};
    SC_CUDA_CHECK(cudaMemcpy(&value, dValue, sizeof(T), cudaMemcpyDeviceToHost));
    return value;
}

/** An owning device array: freed on scope exit, movable, not copyable. */
template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count)
        : data_(static_cast<T *>(deviceAllocate(count * sizeof(T)))), count_(count) {}
    ~DeviceBuffer() { deviceFree(data_); }
    DeviceBuffer(DeviceBuffer &&other) noexcept : data_(other.data_), count_(other.count_) {
        other.data_ = nullptr;
        other.count_ = 0;
    }
    DeviceBuffer &operator=(DeviceBuffer &&other) noexcept {
        if (this != &other) {
            deviceFree(data_);
            data_ = other.data_;
            count_ = other.count_;
            other.data_ = nullptr;
            other.count_ = 0;
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;

    /** Grows (never shrinks) to at least `count` elements; contents are not kept. */
    void reserve(std::size_t count) {
        if (count > count_) {
            deviceFree(data_);
            data_ = nullptr;
            count_ = 0;
            data_ = static_cast<T *>(deviceAllocate(count * sizeof(T)));
            count_ = count;
        }
    }

    void upload(const T *host, std::size_t count) {
        SC_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void download(T *host, std::size_t count) const {
        SC_CUDA_CHECK(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    /** Sets every byte of the first `count` elements to `byte` (poisoning outputs). */
    void fillBytes(int byte, std::size_t count) {
        SC_CUDA_CHECK(cudaMemset(data_, byte, count * sizeof(T)));
    }

    T *get() const { return data_; }
    std::size_t size() const { return count_; }

private:
    T *data_ = nullptr;
    std::size_t count_ = 0;
};

/**
 * The course's host-pointer API on top of a back end's device-pointer call: copies the
 * input to the device, runs `call(dOut, dIn)` (which holds the GPU timer, so the copies
 * stay outside it), and copies back n outputs, or as many as an int-returning call
 * (a compaction) says it kept.
 */
template <typename DeviceCall>
auto onDeviceCopies(int n, int *odata, const int *idata, DeviceCall call) {
    DeviceBuffer<int> dIn(n), dOut(n);
    dIn.upload(idata, n);
    const int *input = dIn.get();
    if constexpr (std::is_void_v<decltype(call(dOut.get(), input))>) {
        call(dOut.get(), input);
        dOut.download(odata, n);
    } else {
        auto kept = call(dOut.get(), input);
        dOut.download(odata, static_cast<std::size_t>(kept));
        return kept;
    }
}

/**
 * A compaction of n elements run as compactions of at most `chunk` elements, each
 * writing after the last: `selectChunk(first, count, written)` compacts elements
 * [first, first + count) to output position `written` and returns how many it kept.
 * Returns the total kept. The 64-bit API uses it where a library's own compaction
 * fails past 2^31 - 1 kept elements (thrust.cu, cub.cu).
 */
template <typename SelectChunk>
std::size_t selectInChunks(std::size_t n, std::size_t chunk, SelectChunk selectChunk) {
    std::size_t written = 0;
    for (std::size_t first = 0; first < n; first += chunk) {
        const std::size_t count = n - first < chunk ? n - first : chunk;
        written += selectChunk(first, count, written);
    }
    return written;
}

/**
 * The stable-partition fix-up, on the default stream: reverses dData[*dStart, n) in
 * place, the start read on the device (no host round trip). Turns a partition that wrote
 * its rejected elements from the back, in reverse order (the decoupled back end's, or
 * cub::DevicePartition::If's), into a stable one: 8 bytes moved per rejected element.
 */
void reverseTail(long long n, int *dData, const int *dStart);
void reverseTail(long long n, int *dData, const long long *dStart);

/** The chunk in which the 64-bit API runs a library's compaction (see selectInChunks). */
constexpr std::size_t kLibrarySelectChunk = std::size_t{1} << 30;

/**
 * Device memory that a back end keeps across calls. Every one is registered while it
 * lives, so that releaseWorkspaces() frees them all and cachedDeviceBytes() counts them.
 */
class CachedDeviceMemory {
public:
    CachedDeviceMemory();
    virtual ~CachedDeviceMemory();
    CachedDeviceMemory(const CachedDeviceMemory &) = delete;
    CachedDeviceMemory &operator=(const CachedDeviceMemory &) = delete;

    /** Frees the memory. */
    virtual void release() noexcept = 0;
    /** How many bytes of device memory it holds now. */
    virtual std::size_t bytesHeld() const noexcept = 0;
};

/**
 * Grow-only device scratch that a back end keeps across calls, so that a timed call
 * never allocates (the first, untimed warm-up call does). releaseWorkspaces() frees
 * every workspace, e.g. between the cells of a sweep.
 */
class Workspace : public CachedDeviceMemory {
public:
    Workspace() = default;
    ~Workspace() override;

    /** At least `count` elements of T; the contents are whatever was there. */
    template <typename T>
    T *reserve(std::size_t count) {
        reserveBytes(count * sizeof(T));
        return static_cast<T *>(data_);
    }
    void release() noexcept override;
    std::size_t bytesHeld() const noexcept override { return bytes_; }

private:
    void reserveBytes(std::size_t bytes);
    void *data_ = nullptr;
    std::size_t bytes_ = 0;
};

/** Frees every back end's cached device memory: workspaces, Thrust's temporary storage. */
void releaseWorkspaces() noexcept;

/**
 * The bytes of device memory that this process's back ends hold across calls (what
 * releaseWorkspaces() frees). Unlike freeDeviceMemory(), no other process moves it.
 */
std::size_t cachedDeviceBytes() noexcept;

/**
 * Called after any error that ends a call: clears an error that left the context usable
 * (a bad launch configuration, an allocation that did not fit). An error that did not
 * clear (a sticky one, such as an illegal address in a kernel) left the CUDA context
 * unusable: it marks the device lost for the rest of the process, once.
 * A timer left running by the failed call is stopped at its next start either way.
 */
void afterError();

/** How many times afterError() ran: a timer started before the last one is stopped. */
unsigned afterErrorCalls();

/**
 * Why the GPU cannot be used any more in this process ("" while it can), e.g. "the GPU
 * cannot be used again after a fault in this process (an illegal memory access was
 * encountered); restart the program". Every GPU operation then throws CudaError with
 * this reason at once.
 */
const std::string &deviceLost();

/**
 * Launches a kernel that writes through a null pointer: a sticky "illegal address"
 * error, for testing that a caller recovers from faults. Throws CudaError.
 */
void injectFault();

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

#if defined(__CUDACC__)
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

/** The course's map step: bools[i] = 1 if idata[i] != 0, else 0. */
__global__ void kernMapToBoolean(int n, int *bools, const int *idata);

/** The course's scatter: odata[indices[i]] = idata[i] wherever bools[i] is 1. */
__global__ void kernScatter(int n, int *odata, const int *idata, const int *bools, const int *indices);

/** The map step for any predicate: bools[i] = keep(idata[i]). */
__global__ void kernMapToBoolean(int n, int *bools, const int *idata, Predicate keep);
#endif

}  // namespace Common
}  // namespace StreamCompaction
