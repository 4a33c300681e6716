#include "measure/device_info.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <stream_compaction/common.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/measurement.h>

namespace Harness {

namespace Common = StreamCompaction::Common;

std::string gpuUuidText(const unsigned char (&bytes)[16]) {
    std::string text = "GPU-";
    for (int i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
        text += fmt::format("{:02x}", bytes[i]);
    }
    return text;
}

DeviceInfo deviceInfo() {
    int device = 0;
    SC_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp properties{};
    SC_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
    DeviceInfo info;
    info.name = properties.name;
    unsigned char uuid[16];
    std::memcpy(uuid, properties.uuid.bytes, sizeof uuid);
    info.uuid = gpuUuidText(uuid);
    info.computeMajor = properties.major;
    info.computeMinor = properties.minor;
    info.multiprocessors = properties.multiProcessorCount;
    info.globalMemoryBytes = properties.totalGlobalMem;
    int memoryClockKHz = 0, busWidthBits = 0;
    SC_CUDA_CHECK(cudaDeviceGetAttribute(&memoryClockKHz, cudaDevAttrMemoryClockRate, device));
    SC_CUDA_CHECK(cudaDeviceGetAttribute(&busWidthBits, cudaDevAttrGlobalMemoryBusWidth, device));
    int l2Bytes = 0;
    SC_CUDA_CHECK(cudaDeviceGetAttribute(&l2Bytes, cudaDevAttrL2CacheSize, device));
    info.l2CacheBytes = static_cast<std::size_t>(l2Bytes);
    info.theoreticalBandwidthGBs = 2.0 * memoryClockKHz * 1e3 * (busWidthBits / 8.0) / 1e9;
    SC_CUDA_CHECK(cudaDriverGetVersion(&info.driverVersion));
    SC_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtimeVersion));
    return info;
}

Statistics measureCopy(std::size_t bytes, int reps) {
    Common::Operation operation("copy", "memcpy", static_cast<long long>(bytes));
    Common::DeviceBuffer<unsigned char> source(bytes), destination(bytes);
    SC_CUDA_CHECK(cudaMemset(source.get(), 1, bytes));
    SC_CUDA_CHECK(cudaMemcpy(destination.get(), source.get(), bytes, cudaMemcpyDeviceToDevice));
    Common::EventPair events;
    std::vector<double> times;
    for (int i = 0; i < reps; ++i) {
        Common::flushL2();
        events.start();
        SC_CUDA_CHECK(cudaMemcpyAsync(destination.get(), source.get(), bytes, cudaMemcpyDeviceToDevice));
        events.stop();
        times.push_back(events.elapsedMs());
    }
    return summarize(std::move(times));
}

std::optional<Statistics> measureLaunchGap(int kernels, int reps, void (*enqueue)(int)) {
    Common::Operation operation("launch gap", "kernel chain", kernels);
    Common::EventPair events;
    Common::StreamHold hold;
    std::vector<double> times;
    for (int i = 0; i <= reps; ++i) {  // the first loads the kernel and is not kept
        hold.hold();
        events.start();
        enqueue(kernels);
        events.stop();
        const bool held = hold.release();
        const double ms = events.elapsedMs();
        if (!held) return std::nullopt;
        if (i > 0) times.push_back(ms / kernels);
    }
    return summarize(std::move(times));
}

std::optional<Statistics> measureLaunchGap(int kernels, int reps) {
    return measureLaunchGap(kernels, reps, Common::enqueueEmptyKernels);
}

}  // namespace Harness
