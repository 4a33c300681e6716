// A stand-in for NVML with fixed readings, loaded by the tests through
// readGpuState(library, pciBusId): one GPU at 0000:01:00.0 with SM at 1755 MHz, memory at
// 2619 MHz, 61 C, 512.345 W, power-capped while idle. Like an older driver, it has only
// the older name of the clock-limit reasons' function.

#if defined(_WIN32)
#define FAKE_NVML_EXPORT extern "C" __declspec(dllexport)
#else
#define FAKE_NVML_EXPORT extern "C" __attribute__((visibility("default")))
#endif

#include <cstring>

// NVML's opaque device type (nvmlDevice_t), as the harness declares it.
struct nvmlDevice_st {
    int id;
};

namespace {
nvmlDevice_st theDevice{0};
constexpr int kSuccess = 0, kInvalidArgument = 2, kNotSupported = 3, kNotFound = 6;
}  // namespace

FAKE_NVML_EXPORT int nvmlInit_v2() { return kSuccess; }
FAKE_NVML_EXPORT int nvmlShutdown() { return kSuccess; }

FAKE_NVML_EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_st **device) {
    if (!pciBusId || !device) return kInvalidArgument;
    if (std::strcmp(pciBusId, "0000:01:00.0") != 0) return kNotFound;
    *device = &theDevice;
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetClockInfo(nvmlDevice_st *device, int type, unsigned *clock) {
    if (device != &theDevice || !clock) return kInvalidArgument;
    if (type == 1) *clock = 1755;  // NVML_CLOCK_SM
    else if (type == 2) *clock = 2619;  // NVML_CLOCK_MEM
    else return kNotSupported;
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetTemperature(nvmlDevice_st *device, int sensor, unsigned *celsius) {
    if (device != &theDevice || !celsius || sensor != 0) return kInvalidArgument;  // NVML_TEMPERATURE_GPU
    *celsius = 61;
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetPowerUsage(nvmlDevice_st *device, unsigned *milliwatts) {
    if (device != &theDevice || !milliwatts) return kInvalidArgument;
    *milliwatts = 512345;
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_st *device, unsigned long long *reasons) {
    if (device != &theDevice || !reasons) return kInvalidArgument;
    *reasons = 0x1 | 0x4;  // GPU idle, SW power cap
    return kSuccess;
}
