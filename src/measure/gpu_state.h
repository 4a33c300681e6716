#pragma once
// The GPU's clocks, temperature, power and clock-limit reasons, read through NVML. NVML
// is loaded when first asked for ("libnvidia-ml.so.1", "nvml.dll"), never linked, so
// the program starts where there is no driver; every field is then empty.

#include <optional>
#include <string>

namespace Harness {

/** One reading of the GPU; a field NVML does not give (or no NVML at all) is empty. */
struct GpuState {
    std::optional<unsigned> smClockMHz;
    std::optional<unsigned> memoryClockMHz;
    std::optional<unsigned> temperatureC;
    std::optional<double> powerW;
    std::optional<unsigned long long> throttleReasons;  // NVML's clocks event reasons, a bit mask
};

/**
 * NVML's clocks event reason bits (nvml.h's nvmlClocksEventReason*, formerly
 * nvmlClocksThrottleReason*).
 */
namespace ThrottleReason {
constexpr unsigned long long kGpuIdle = 0x1;
constexpr unsigned long long kApplicationsClocksSetting = 0x2;
constexpr unsigned long long kSwPowerCap = 0x4;
constexpr unsigned long long kHwSlowdown = 0x8;
constexpr unsigned long long kSyncBoost = 0x10;
constexpr unsigned long long kSwThermalSlowdown = 0x20;
constexpr unsigned long long kHwThermalSlowdown = 0x40;
constexpr unsigned long long kHwPowerBrakeSlowdown = 0x80;
}  // namespace ThrottleReason

/**
 * The current CUDA device's state. The first call loads NVML; later ones make a few NVML
 * queries (no CUDA call after the first per device), so it can be read before and after
 * every cell. Never throws; without NVML or a CUDA device every field is empty.
 */
GpuState readGpuState();

/**
 * The same, through the NVML library at `library` for the GPU at PCI bus id `pciBusId`
 * ("0000:01:00.0"), loading and unloading the library on each call.
 */
GpuState readGpuState(const std::string &library, const std::string &pciBusId);

/**
 * The reasons in `reasons` that slow a benchmark down, joined by ", ": "SW power cap",
 * "HW slowdown", "SW thermal slowdown", "HW thermal slowdown", "HW power brake"; empty
 * when none is set (GPU idle and the applications clocks setting are left out).
 */
std::string throttleText(unsigned long long reasons);

/** Whether one of throttleText's reasons is set in `before` or in `after`. */
bool throttled(const GpuState &before, const GpuState &after);

/**
 * What a cell's row notes about the GPU between two readings: the throttle reasons of
 * either, and the SM clock when it changed: "throttled: SW power cap; SM clock 1980 ->
 * 1755 MHz". Empty when neither happened or the readings are empty.
 */
std::string gpuStateNote(const GpuState &before, const GpuState &after);

}  // namespace Harness
