#pragma once
// The run's context as a sweep measures it before its first cell: when and where it
// ran (stamp, CPU, build), the GPU's copy bandwidth (the ceiling its figures are compared
// with), each GPU back end's empty-call time (its floor) and the launch gap.

#include <map>
#include <string>
#include <utility>

#include "cli/cli.h"
#include "report/reporters.h"

namespace Harness {

/** The measured copy bandwidth a sweep compares with: GB/s, and its noise and sample count. */
struct CopyCeiling {
    double GBs = 0;  // 0: not measured (no GPU)
    double noise = 0;
    int samples = 0;
};

/** Each GPU back end's empty-call time (n = 0) per op, in ms. */
using Floors = std::map<std::pair<std::string, Op>, double>;

/** The copy bandwidth measured on `bytes` (device to device, L2 flushed before each). */
CopyCeiling measureCopyCeiling(std::size_t bytes);

/** The bytes the copy ceiling is measured on: 2^28 ints, or as many as two buffers in half the free GPU memory hold. */
std::size_t copyCeilingBytes();

/**
 * The context of the sweep `options` describe, stamped now; on a GPU also the launch
 * gap, the copy ceiling (into `copy`) and the chosen back ends' floors (into `floors`),
 * measured before any cell so that every cell is compared with the same ones.
 */
Context sweepContext(const Options &options, Floors &floors, CopyCeiling &copy);

/**
 * The copy ceiling measured again at the end of a sweep into context.copyBandwidthEndGBs;
 * returns a warning when it moved by more than 3% from `start` (clocks, heat, another
 * process), since the sweep's first and last figures then disagree, else "".
 */
std::string remeasureCopyCeiling(Context &context, const CopyCeiling &start);

}  // namespace Harness
