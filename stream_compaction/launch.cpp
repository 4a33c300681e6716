#include "launch.h"

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include "errors.h"

namespace StreamCompaction {
namespace Common {

namespace {
int currentBlockSize = 128;
std::size_t sharedMemoryLimitForTesting = 0;  // 0: the device's own
std::optional<PolicyFamily> forcedPolicyFamily;  // nullopt: the device's own

std::string kib(std::size_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }
}  // namespace

bool validBlockSize(int threads) { return threads >= 32 && threads <= 1024 && threads % 32 == 0; }

int blockSize() { return currentBlockSize; }

void setBlockSize(int threads) {
    if (!validBlockSize(threads)) {
        throw std::invalid_argument("block size " + std::to_string(threads) +
                                    " is not a multiple of 32 from 32 to 1024");
    }
    currentBlockSize = threads;
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

std::size_t sharedMemoryPerBlock() {
    static const std::size_t deviceLimit = [] {
        int device = 0, bytes = 0;
        SC_CUDA_CHECK(cudaGetDevice(&device));
        SC_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        return static_cast<std::size_t>(bytes);
    }();
    if (sharedMemoryLimitForTesting != 0 && sharedMemoryLimitForTesting < deviceLimit) {
        return sharedMemoryLimitForTesting;
    }
    return deviceLimit;
}

void requireSharedMemory(std::size_t bytes) {
    const std::size_t allowed = sharedMemoryPerBlock();
    if (bytes > allowed) {
        throw Unsupported("needs " + kib(bytes) + " of shared memory per block, this GPU allows " + kib(allowed));
    }
}

void limitSharedMemoryForTesting(std::size_t bytes) { sharedMemoryLimitForTesting = bytes; }

const char *policyFamilyName(PolicyFamily family) {
    switch (family) {
        case PolicyFamily::Turing: return "turing";
        case PolicyFamily::Ampere: return "ampere";
        case PolicyFamily::Hopper: return "hopper";
        case PolicyFamily::Blackwell: return "blackwell";
    }
    return "unknown";
}

PolicyFamily policyFamilyFor(int computeMajor) {
    if (computeMajor < 8) return PolicyFamily::Turing;
    if (computeMajor == 8) return PolicyFamily::Ampere;
    if (computeMajor == 9) return PolicyFamily::Hopper;
    return PolicyFamily::Blackwell;
}

PolicyFamily policyFamily() {
    if (forcedPolicyFamily) return *forcedPolicyFamily;
    static const PolicyFamily deviceFamily = [] {
        int device = 0, major = 0;
        SC_CUDA_CHECK(cudaGetDevice(&device));
        SC_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        return policyFamilyFor(major);
    }();
    return deviceFamily;
}

void forcePolicyFamilyForTesting(std::optional<PolicyFamily> family) { forcedPolicyFamily = family; }

}  // namespace Common
}  // namespace StreamCompaction
