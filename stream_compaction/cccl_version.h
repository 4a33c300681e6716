#pragma once
// The version of CCCL (CUB, Thrust, libcu++) that the library's CUDA code was compiled
// with. Its macros are read where nvcc compiles (cccl_version.cu), so that this header
// compiles in a plain C++ translation unit.

#include <string>

namespace StreamCompaction {
namespace Common {

/**
 * "CCCL 3.0.1 (CUB 3.0.1, Thrust 3.0.1)": CCCL_VERSION, CUB_VERSION and THRUST_VERSION;
 * "CCCL unknown (...)" where the toolkit does not define CCCL_VERSION.
 */
std::string ccclVersionText();

}  // namespace Common
}  // namespace StreamCompaction
