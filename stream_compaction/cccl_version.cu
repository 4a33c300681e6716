#include "cccl_version.h"

// CCCL_VERSION (cuda/std/__cccl/version.h, through cuda/version) is MMMmmmppp;
// CUB_VERSION and THRUST_VERSION are MMMmmmpp.
#include <cub/version.cuh>
#include <cuda/version>
#include <thrust/version.h>

namespace StreamCompaction {
namespace Common {

namespace {

std::string dotted(long major, long minor, long patch) {
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string mmmmmmpp(long version) { return dotted(version / 100000, version / 100 % 1000, version % 100); }

}  // namespace

std::string ccclVersionText() {
#ifdef CCCL_VERSION
    const long cccl = CCCL_VERSION;
    const std::string ccclText = dotted(cccl / 1000000, cccl / 1000 % 1000, cccl % 1000);
#else
    const std::string ccclText = "unknown";  // an older toolkit, whose CUB and Thrust predate the macro
#endif
    return "CCCL " + ccclText + " (CUB " + mmmmmmpp(CUB_VERSION) + ", Thrust " + mmmmmmpp(THRUST_VERSION) + ")";
}

}  // namespace Common
}  // namespace StreamCompaction
