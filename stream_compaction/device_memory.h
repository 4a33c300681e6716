#pragma once
// Device memory: checked allocation, the owning DeviceBuffer, and the memory a back end
// keeps across calls (workspaces, library caches), registered so that it can all be
// freed and counted at once.

#include <cstddef>

#include <cuda_runtime_api.h>

#include "errors.h"

namespace StreamCompaction {
namespace Common {

/** Raw allocation helpers; allocation failure throws OutOfMemory with the byte count. */
void *deviceAllocate(std::size_t bytes);
void deviceFree(void *ptr) noexcept;

/** Bytes of device memory free now (cudaMemGetInfo); throws CudaError without a device. */
std::size_t freeDeviceMemory();

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

}  // namespace Common
}  // namespace StreamCompaction
