#include "errors.h"

#include <string>

#include "launch.h"

namespace StreamCompaction {
namespace Common {

namespace {
thread_local const Operation *currentOperation = nullptr;
unsigned afterErrorCount = 0;
std::string lostDeviceReason;  // set once, by the first afterError() that finds a sticky error

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
    if (err == cudaSuccess) return;
    // The runtime also keeps the error as its last one; once it is thrown here it is
    // reported, so it is cleared (an error that is not sticky), lest a later, unrelated
    // check that reads the last error (Thrust's, after each of its kernels) fail on it.
    cudaGetLastError();
    throw CudaError(errorText(what, err, file, line), err);
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

}  // namespace Common
}  // namespace StreamCompaction
