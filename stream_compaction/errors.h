#pragma once
// CUDA errors as exceptions: the error types, the checks after every CUDA call and
// launch, the operation that an error message names, and the device's state (present,
// lost after a sticky fault).

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

// Checks a CUDA runtime call; a failure throws CudaError naming the current operation.
#define SC_CUDA_CHECK(call) ::StreamCompaction::Common::checkCuda((call), #call, __FILE__, __LINE__)

// After every kernel launch: catches launch-configuration errors at once.
#define SC_CHECK_LAUNCH(kernelName) \
    ::StreamCompaction::Common::checkLastError("launch " kernelName, __FILE__, __LINE__)

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

/**
 * What a back end cannot do on this GPU at these settings ("needs 98 KiB of shared memory
 * per block, this GPU allows 64 KiB"): nothing ran, and the device is as it was. The
 * harness reports such a cell as skipped, with this message.
 */
class Unsupported : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/**
 * An exception that a course submission's code threw (student.h), as "student-cpu scan,
 * n = 1000: the implementation threw: CPU timer already started". Like a CudaError, it
 * fails the one call.
 */
class ImplementationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

namespace Common {

/** Throws std::invalid_argument ("cpu scan: n = -1 is negative; ...") when n < 0. */
void requireNonNegative(const char *backend, const char *op, long long n);

/**
 * Names the operation running on this thread, so that an error anywhere below it says
 * "naive scan, n = 1048576: ...". Back ends open one at each public entry point.
 * A negative n throws std::invalid_argument; without a CUDA device, or once the device
 * is lost (deviceLost()), it throws CudaError saying so.
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

}  // namespace Common
}  // namespace StreamCompaction
