#include "sweep/memory.h"

#include <cstdint>
#include <fstream>

#include <fmt/format.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>

#include "sweep/plan.h"

namespace Harness {

namespace Common = StreamCompaction::Common;

namespace {

constexpr double kGiB = 1ULL << 30;

// MemAvailable from /proc/meminfo, in bytes; "unlimited" where it cannot be read.
std::size_t availableHostMemory() {
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        if (line.rfind("MemAvailable:", 0) == 0) return std::stoull(line.substr(13)) * 1024;
    }
    return SIZE_MAX;
}

std::size_t inputHostBytes(long long n, bool pairs) {
    const std::size_t int64Sums = pastIntSizes(n) ? 2 * (sizeof(long long) - sizeof(int)) : 0;
    return (pairs ? 2 : 1) * (6 * sizeof(int) + int64Sums) * static_cast<std::size_t>(n);
}

// The largest cell, in device memory, that a chosen GPU back end can run: its size (0
// when there is none) and whether it sorts pairs.
struct LargestCell {
    long long n = 0;
    bool pairs = false;
};

LargestCell largestGpuCell(const Options &options) {
    LargestCell largest;
    for (Op op : options.ops) {
        const bool pairs = describe(op).pairs;
        for (const StreamCompaction::Backend *backend : sweepBackends(options, op)) {
            if (!backend->onGpu) continue;
            for (long long size : options.sizes) {
                for (bool npot : variants(options, size)) {
                    const long long n = npot ? size - 3 : size;
                    if (cellSkipReason(*backend, op, n).empty() &&
                        cellDeviceBytes(n, pairs) > cellDeviceBytes(largest.n, largest.pairs)) {
                        largest = {n, pairs};
                    }
                }
            }
        }
    }
    return largest;
}

}  // namespace

std::size_t cellDeviceBytes(long long n, bool pairs) {
    const std::size_t int64Sums = pastIntSizes(n) ? sizeof(long long) - sizeof(int) : 0;
    return (pairs ? 2 : 1) * (4 * sizeof(int) + int64Sums) * static_cast<std::size_t>(n);
}

std::string memoryShortfall(long long largestSize, std::size_t freeBytes, bool pairs) {
    const std::size_t needed = cellDeviceBytes(largestSize, pairs);
    if (needed <= freeBytes) return "";
    return fmt::format("--sizes: {} needs {:.1f} GiB of GPU memory (input, output and workspace), {:.1f} GiB free",
                       formatSize(largestSize), needed / kGiB, freeBytes / kGiB);
}

std::string shortfall(std::size_t needed, std::size_t freeBytes, const char *where) {
    if (needed <= freeBytes) return "";
    return fmt::format("needs {:.1f} GiB of {} memory, {:.1f} GiB free", needed / kGiB, where, freeBytes / kGiB);
}

std::string hostShortfall(Op op, long long size) {
    return shortfall(inputHostBytes(size, describe(op).pairs), availableHostMemory(), "host");
}

std::string gpuShortfall(Op op, long long n) {
    return shortfall(cellDeviceBytes(n, describe(op).pairs), Common::freeDeviceMemory(), "GPU");
}

std::string checkMemory(const Options &options) {
    const LargestCell largest = largestGpuCell(options);
    if (largest.n == 0 || !Common::deviceAvailable()) return "";
    return memoryShortfall(largest.n, Common::freeDeviceMemory(), largest.pairs);
}

}  // namespace Harness
