#include "device_memory.h"

#include <algorithm>
#include <string>
#include <vector>

namespace StreamCompaction {
namespace Common {

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

std::size_t freeDeviceMemory() {
    std::size_t freeBytes = 0, totalBytes = 0;
    SC_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    return freeBytes;
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

}  // namespace Common
}  // namespace StreamCompaction
