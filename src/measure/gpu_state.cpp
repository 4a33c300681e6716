#include "measure/gpu_state.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stream_compaction/errors.h>

// Loading a library at run time: dlopen on POSIX, LoadLibrary on Windows; SC_NO_POSIX
// (as src/platform/platform.h) builds the fallback, which loads nothing.
#if defined(_WIN32) && !defined(SC_NO_POSIX)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#elif !defined(SC_NO_POSIX)
#include <dlfcn.h>
#endif

// NVML's opaque device, named as nvml.h names it (nvmlDevice_t), at global scope so that
// a call through a looked-up pointer has the type the library's function has.
struct nvmlDevice_st;

namespace Harness {

namespace {

#if defined(_WIN32) && !defined(SC_NO_POSIX)
constexpr const char *kNvmlLibrary = "nvml.dll";
#else
constexpr const char *kNvmlLibrary = "libnvidia-ml.so.1";
#endif

// A shared library, loaded for the object's lifetime; not loaded when the system has
// none at `path` (or cannot load libraries).
class SharedLibrary {
public:
    explicit SharedLibrary(const std::string &path) {
#if defined(_WIN32) && !defined(SC_NO_POSIX)
        handle_ = reinterpret_cast<void *>(LoadLibraryA(path.c_str()));
#elif !defined(SC_NO_POSIX)
        handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
#else
        (void)path;
#endif
    }
    ~SharedLibrary() {
        if (!handle_) return;
#if defined(_WIN32) && !defined(SC_NO_POSIX)
        FreeLibrary(reinterpret_cast<HMODULE>(handle_));
#elif !defined(SC_NO_POSIX)
        dlclose(handle_);
#endif
    }
    SharedLibrary(const SharedLibrary &) = delete;
    SharedLibrary &operator=(const SharedLibrary &) = delete;

    bool loaded() const { return handle_ != nullptr; }

    /** The function `name` as a `Function` pointer; null when the library lacks it. */
    template <typename Function>
    Function function(const char *name) const {
        if (!handle_) return nullptr;
#if defined(_WIN32) && !defined(SC_NO_POSIX)
        return reinterpret_cast<Function>(GetProcAddress(reinterpret_cast<HMODULE>(handle_), name));
#elif !defined(SC_NO_POSIX)
        return reinterpret_cast<Function>(dlsym(handle_, name));
#else
        (void)name;
        return nullptr;
#endif
    }

private:
    void *handle_ = nullptr;
};

// nvml.h's types and constants, as far as they are used here: every function returns
// an nvmlReturn_t (NVML_SUCCESS = 0); a device is an opaque pointer; the enums are ints.
using NvmlReturn = int;
using NvmlDevice = ::nvmlDevice_st *;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;         // NVML_CLOCK_SM
constexpr int kNvmlClockMemory = 2;     // NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

using NvmlInit = NvmlReturn (*)();                                         // nvmlInit_v2
using NvmlShutdown = NvmlReturn (*)();                                     // nvmlShutdown
using NvmlHandleByPciBusId = NvmlReturn (*)(const char *, NvmlDevice *);  // nvmlDeviceGetHandleByPciBusId_v2
using NvmlClockInfo = NvmlReturn (*)(NvmlDevice, int, unsigned *);        // nvmlDeviceGetClockInfo, MHz
using NvmlTemperature = NvmlReturn (*)(NvmlDevice, int, unsigned *);      // nvmlDeviceGetTemperature, C
using NvmlPowerUsage = NvmlReturn (*)(NvmlDevice, unsigned *);            // nvmlDeviceGetPowerUsage, mW
using NvmlClocksReasons = NvmlReturn (*)(NvmlDevice, unsigned long long *);

// NVML, initialised for the object's lifetime. Only the init, shutdown and handle
// functions are required; a query the library lacks (an older driver) leaves its field
// empty.
class Nvml {
public:
    explicit Nvml(const std::string &path) : library_(path) {
        const auto init = library_.function<NvmlInit>("nvmlInit_v2");
        shutdown_ = library_.function<NvmlShutdown>("nvmlShutdown");
        handleByPciBusId_ = library_.function<NvmlHandleByPciBusId>("nvmlDeviceGetHandleByPciBusId_v2");
        clockInfo_ = library_.function<NvmlClockInfo>("nvmlDeviceGetClockInfo");
        temperature_ = library_.function<NvmlTemperature>("nvmlDeviceGetTemperature");
        powerUsage_ = library_.function<NvmlPowerUsage>("nvmlDeviceGetPowerUsage");
        // The reasons' function has a newer name and an older one; a driver has one or both.
        clocksReasons_ = library_.function<NvmlClocksReasons>("nvmlDeviceGetCurrentClocksEventReasons");
        if (!clocksReasons_)
            clocksReasons_ = library_.function<NvmlClocksReasons>("nvmlDeviceGetCurrentClocksThrottleReasons");
        initialised_ = init && shutdown_ && handleByPciBusId_ && init() == kNvmlSuccess;
    }
    ~Nvml() {
        if (initialised_) shutdown_();
    }
    Nvml(const Nvml &) = delete;
    Nvml &operator=(const Nvml &) = delete;

    GpuState read(const std::string &pciBusId) const {
        GpuState state;
        NvmlDevice device = nullptr;
        if (!initialised_ || handleByPciBusId_(pciBusId.c_str(), &device) != kNvmlSuccess) return state;
        unsigned value = 0;
        if (clockInfo_ && clockInfo_(device, kNvmlClockSm, &value) == kNvmlSuccess) state.smClockMHz = value;
        if (clockInfo_ && clockInfo_(device, kNvmlClockMemory, &value) == kNvmlSuccess) state.memoryClockMHz = value;
        if (temperature_ && temperature_(device, kNvmlTemperatureGpu, &value) == kNvmlSuccess)
            state.temperatureC = value;
        if (powerUsage_ && powerUsage_(device, &value) == kNvmlSuccess) state.powerW = value / 1000.0;
        unsigned long long reasons = 0;
        if (clocksReasons_ && clocksReasons_(device, &reasons) == kNvmlSuccess) state.throttleReasons = reasons;
        return state;
    }

private:
    SharedLibrary library_;
    bool initialised_ = false;
    NvmlShutdown shutdown_ = nullptr;
    NvmlHandleByPciBusId handleByPciBusId_ = nullptr;
    NvmlClockInfo clockInfo_ = nullptr;
    NvmlTemperature temperature_ = nullptr;
    NvmlPowerUsage powerUsage_ = nullptr;
    NvmlClocksReasons clocksReasons_ = nullptr;
};

// The current CUDA device's PCI bus id ("0000:01:00.0"), asked of CUDA once per device;
// empty when CUDA cannot say. A failed call's error is cleared, so that later checks do
// not see it.
std::string currentPciBusId() {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    static std::mutex mutex;
    static std::map<int, std::string> busIds;
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto known = busIds.find(device); known != busIds.end()) return known->second;
    char busId[32] = "";  // "dddd:bb:dd.f" and its end
    if (cudaDeviceGetPCIBusId(busId, static_cast<int>(sizeof busId), device) != cudaSuccess) {
        cudaGetLastError();
        return "";
    }
    return busIds[device] = busId;
}

// The reasons that slow a benchmark down, in the order throttleText names them.
constexpr std::pair<unsigned long long, const char *> kSlowingReasons[] = {
    {ThrottleReason::kSwPowerCap, "SW power cap"},
    {ThrottleReason::kHwSlowdown, "HW slowdown"},
    {ThrottleReason::kSwThermalSlowdown, "SW thermal slowdown"},
    {ThrottleReason::kHwThermalSlowdown, "HW thermal slowdown"},
    {ThrottleReason::kHwPowerBrakeSlowdown, "HW power brake"},
};

unsigned long long slowingReasons(const GpuState &state) {
    unsigned long long mask = 0;
    for (const auto &[bit, name] : kSlowingReasons) mask |= bit;
    return state.throttleReasons.value_or(0) & mask;
}

}  // namespace

GpuState readGpuState() {
    if (!StreamCompaction::Common::deviceAvailable()) return {};
    static const Nvml nvml(kNvmlLibrary);
    const std::string busId = currentPciBusId();
    return busId.empty() ? GpuState{} : nvml.read(busId);
}

GpuState readGpuState(const std::string &library, const std::string &pciBusId) {
    return Nvml(library).read(pciBusId);
}

std::string throttleText(unsigned long long reasons) {
    std::vector<std::string> names;
    for (const auto &[bit, name] : kSlowingReasons)
        if (reasons & bit) names.emplace_back(name);
    return fmt::format("{}", fmt::join(names, ", "));
}

bool throttled(const GpuState &before, const GpuState &after) {
    return (slowingReasons(before) | slowingReasons(after)) != 0;
}

std::string gpuStateNote(const GpuState &before, const GpuState &after) {
    std::vector<std::string> parts;
    if (throttled(before, after))
        parts.push_back("throttled: " + throttleText(slowingReasons(before) | slowingReasons(after)));
    if (before.smClockMHz && after.smClockMHz && *before.smClockMHz != *after.smClockMHz)
        parts.push_back(fmt::format("SM clock {} -> {} MHz", *before.smClockMHz, *after.smClockMHz));
    return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace Harness
