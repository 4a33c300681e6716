#include "common.h"

#include <algorithm>
#include <string>
#include <vector>

namespace StreamCompaction {
namespace Common {

namespace {
thread_local const Operation *currentOperation = nullptr;
int currentBlockSize = 128;

std::string errorText(const char *what, cudaError_t err, const char *file, int line) {
    std::string text = Operation::describeCurrent() + ": " + what + " failed: " + cudaGetErrorString(err);
    text += " (" + std::string(cudaGetErrorName(err)) + " at " + file + ":" + std::to_string(line) + ")";
    return text;
}
}  // namespace

void requireNonNegative(const char *backend, const char *op, long long n) {
    if (n < 0) {
        throw std::invalid_argument(std::string(backend) + " " + op + ": n = " + std::to_string(n) +
                                    " is negative; n must be >= 0");
    }
}

Operation::Operation(const char *backend, const char *op, long long n)
    : backend_(backend), op_(op), n_(n), outer_(currentOperation) {
    requireNonNegative(backend, op, n);
    if (!deviceAvailable()) {
        throw CudaError(std::string(backend) + " " + op + ", n = " + std::to_string(n) + ": no CUDA device",
                        cudaErrorNoDevice);
    }
    if (!deviceLost().empty()) {
        throw CudaError(std::string(backend) + " " + op + ", n = " + std::to_string(n) + ": " + deviceLost(),
                        cudaErrorDevicesUnavailable);
    }
    multiprocessorCount();  // its one query, made here and not inside a timed region
    currentOperation = this;
}

Operation::~Operation() { currentOperation = outer_; }

std::string Operation::describeCurrent() {
    if (!currentOperation) return "CUDA";
    return std::string(currentOperation->backend_) + " " + currentOperation->op_ +
           ", n = " + std::to_string(currentOperation->n_);
}

void checkCuda(cudaError_t err, const char *what, const char *file, int line) {
    if (err != cudaSuccess) throw CudaError(errorText(what, err, file, line), err);
}

void checkLastError(const char *what, const char *file, int line) {
    checkCuda(cudaGetLastError(), what, file, line);
}

bool deviceAvailable() {
    static const bool available = [] {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess) {
            cudaGetLastError();  // clear the error so later checks do not see it
            return false;
        }
        return count > 0;
    }();
    return available;
}

int multiprocessorCount() {
    static const int multiprocessors = [] {
        int device = 0, count = 0;
        SC_CUDA_CHECK(cudaGetDevice(&device));
        SC_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
        return count;
    }();
    return multiprocessors;
}

DeviceInfo deviceInfo() {
    int device = 0;
    SC_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp properties{};
    SC_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
    DeviceInfo info;
    info.name = properties.name;
    info.computeMajor = properties.major;
    info.computeMinor = properties.minor;
    info.multiprocessors = properties.multiProcessorCount;
    info.globalMemoryBytes = properties.totalGlobalMem;
    int memoryClockKHz = 0, busWidthBits = 0;
    SC_CUDA_CHECK(cudaDeviceGetAttribute(&memoryClockKHz, cudaDevAttrMemoryClockRate, device));
    SC_CUDA_CHECK(cudaDeviceGetAttribute(&busWidthBits, cudaDevAttrGlobalMemoryBusWidth, device));
    info.theoreticalBandwidthGBs = 2.0 * memoryClockKHz * 1e3 * (busWidthBits / 8.0) / 1e9;
    SC_CUDA_CHECK(cudaDriverGetVersion(&info.driverVersion));
    SC_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtimeVersion));
    return info;
}

double measureCopyMs(std::size_t bytes, int reps) {
    Operation operation("copy", "memcpy", static_cast<long long>(bytes));
    DeviceBuffer<unsigned char> source(bytes), destination(bytes);
    SC_CUDA_CHECK(cudaMemset(source.get(), 1, bytes));
    SC_CUDA_CHECK(cudaMemcpy(destination.get(), source.get(), bytes, cudaMemcpyDeviceToDevice));
    PerformanceTimer timer;
    std::vector<float> times;
    for (int i = 0; i < reps; ++i) {
        timer.startGpuTimer();
        SC_CUDA_CHECK(cudaMemcpyAsync(destination.get(), source.get(), bytes, cudaMemcpyDeviceToDevice));
        timer.endGpuTimer();
        times.push_back(timer.getGpuElapsedTimeForPreviousOperation());
    }
    std::sort(times.begin(), times.end());
    return times.empty() ? 0.0 : times[times.size() / 2];
}

std::size_t freeDeviceMemory() {
    std::size_t freeBytes = 0, totalBytes = 0;
    SC_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    return freeBytes;
}

bool validBlockSize(int threads) { return threads >= 32 && threads <= 1024 && threads % 32 == 0; }

int blockSize() { return currentBlockSize; }

void setBlockSize(int threads) {
    if (!validBlockSize(threads)) {
        throw std::invalid_argument("block size " + std::to_string(threads) +
                                    " is not a multiple of 32 from 32 to 1024");
    }
    currentBlockSize = threads;
}

void *deviceAllocate(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    if (!deviceLost().empty()) {
        throw CudaError(Operation::describeCurrent() + ": " + deviceLost(), cudaErrorDevicesUnavailable);
    }
    void *ptr = nullptr;
    cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // not sticky: clear it so the caller can go on
        std::size_t freeBytes = 0, totalBytes = 0;
        cudaMemGetInfo(&freeBytes, &totalBytes);
        throw OutOfMemory(Operation::describeCurrent() + ": out of device memory: needed " +
                              std::to_string(bytes) + " bytes (" +
                              std::to_string(bytes / double(1 << 20)) + " MiB), " +
                              std::to_string(freeBytes / double(1 << 20)) + " MiB free",
                          bytes);
    }
    checkCuda(err, "cudaMalloc", __FILE__, __LINE__);
    return ptr;
}

void deviceFree(void *ptr) noexcept {
    if (ptr) cudaFree(ptr);
}

namespace {
std::vector<CachedDeviceMemory *> &allCachedMemory() {
    static std::vector<CachedDeviceMemory *> cached;
    return cached;
}
}  // namespace

CachedDeviceMemory::CachedDeviceMemory() { allCachedMemory().push_back(this); }

CachedDeviceMemory::~CachedDeviceMemory() {
    auto &all = allCachedMemory();
    all.erase(std::remove(all.begin(), all.end(), this), all.end());
}

Workspace::~Workspace() { release(); }

void Workspace::reserveBytes(std::size_t bytes) {
    if (bytes <= bytes_) return;
    release();
    data_ = deviceAllocate(bytes);
    bytes_ = bytes;
}

void Workspace::release() noexcept {
    deviceFree(data_);
    data_ = nullptr;
    bytes_ = 0;
}

void releaseWorkspaces() noexcept {
    for (CachedDeviceMemory *cached : allCachedMemory()) cached->release();
}

std::size_t cachedDeviceBytes() noexcept {
    std::size_t bytes = 0;
    for (const CachedDeviceMemory *cached : allCachedMemory()) bytes += cached->bytesHeld();
    return bytes;
}

namespace {
unsigned afterErrorCount = 0;
std::string lostDeviceReason;  // set once, by the first afterError() that finds a sticky error

__global__ void kernWriteThroughNull(int *nowhere) { nowhere[threadIndex()] = 1; }
}  // namespace

void afterError() {
    ++afterErrorCount;
    if (!deviceAvailable() || !lostDeviceReason.empty()) return;
    cudaGetLastError();  // a launch error, if any, is not sticky
    if (cudaDeviceSynchronize() == cudaSuccess) return;
    // A failed synchronize may still be an error that clears: if a second one succeeds,
    // the context is usable. A sticky error fails every call from now on.
    cudaGetLastError();
    const cudaError_t sticky = cudaDeviceSynchronize();
    if (sticky == cudaSuccess) return;
    lostDeviceReason = std::string("the GPU cannot be used again after a fault in this process (") +
                       cudaGetErrorString(sticky) + "); restart the program";
}

unsigned afterErrorCalls() { return afterErrorCount; }

const std::string &deviceLost() { return lostDeviceReason; }

void injectFault() {
    Operation operation("fault injection", "write through null", 1);
    kernWriteThroughNull<<<1, 32>>>(nullptr);
    SC_CHECK_LAUNCH("kernWriteThroughNull");
    SC_CUDA_CHECK(cudaDeviceSynchronize());
}

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
