#pragma once
// Programmatic dependent launch (sm_90 and later): a chain of kernels on one stream whose
// each kernel may start while the one before it runs its last blocks, so that its launch
// and its first instructions overlap that kernel's tail instead of following it.
//
// A kernel launched by launchDependent(true, ...) may start once every block of the
// kernel before it has called allowDependents() or ended. waitForPrerequisites() returns
// once that kernel has completed and its writes are visible. What a kernel does before
// its wait overlaps the previous kernel: it must not read what that kernel writes, nor
// write what it reads or writes. The chain's head is an ordinary launch, which starts
// after everything before it on the stream; every later kernel calls the wait, in every
// block, before allowDependents(). So a kernel's start implies that the kernels before
// its predecessor have passed their waits, and with them everything up to the head's
// start: what was written before the head (a memset clearing counters) may be used
// before the wait.
//
// The device calls compile to nothing below sm_90: a build whose code reaches an sm_90
// GPU as older PTX, compiled by the driver, has no waits, so the caller launches
// dependently only where compiledForDependentLaunch() says the code has them.

#include <utility>

#include <cuda_runtime.h>

#include "errors.h"

namespace StreamCompaction {
namespace Common {

/** Returns once the kernel before this one on the stream is complete and its writes visible. */
__device__ __forceinline__ void waitForPrerequisites() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/** Lets the next kernel on the stream start once every block of this one has said so. */
__device__ __forceinline__ void allowDependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/**
 * Whether `kernel`, as this device runs it, was compiled from sm_90 PTX or later and so
 * holds the waits: its PTX version (cudaFuncAttributes::ptxVersion, which CUB reads to
 * pick its policies), read on each call; callers keep the answer.
 */
template <typename... Params>
bool compiledForDependentLaunch(void (*kernel)(Params...)) {
    cudaFuncAttributes attributes = {};
    checkCuda(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes", __FILE__, __LINE__);
    return attributes.ptxVersion >= 90;
}

/**
 * Launches `kernel` on the default stream, as a programmatic dependent of the kernel
 * before it when `dependent`, and checks the launch; `name` says which in an error. The
 * arguments convert to the kernel's parameters as in a <<<>>> launch.
 */
template <typename... Params, typename... Args>
void launchDependent(bool dependent, const char *name, void (*kernel)(Params...), unsigned grid, unsigned block,
                     Args &&...args) {
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.attrs = &attribute;
    config.numAttrs = dependent ? 1 : 0;
    checkCuda(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...), name, __FILE__, __LINE__);
    checkLastError(name, __FILE__, __LINE__);
}

}  // namespace Common
}  // namespace StreamCompaction
