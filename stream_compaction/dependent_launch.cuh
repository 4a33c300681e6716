#pragma once
// Programmatic dependent launch (sm_90 and later): a chain of kernels on one stream whose
// each kernel may start while the one before it runs its last blocks, so that its launch
// and its first instructions overlap that kernel's tail instead of following it.
//
// A kernel launched by launchDependent(true, ...) may start once every block of the
// kernel before it has called allowDependents() or ended. waitForPrerequisites() returns
// once that kernel has completed and its writes are visible. What a kernel does before
// its wait overlaps the previous kernel: it must not read what that kernel writes, nor
// write what it reads or writes. Every block of every kernel in a chain calls the wait
// before allowDependents(), so that a kernel's start implies that every kernel before
// its predecessor is complete: it may read their results before its own wait.
//
// Below sm_90, and for a launch with `dependent` false, the launch is an ordinary one
// and the two device calls do nothing.

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
 * Launches `kernel` on the default stream, as a programmatic dependent of the kernel
 * before it when `dependent` (on sm_90 and later only: the caller decides), and checks
 * the launch.
 */
template <typename... Params, typename... Args>
void launchDependent(bool dependent, const char *name, void (*kernel)(Params...), unsigned grid, unsigned block,
                     Args... args) {
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.attrs = &attribute;
    config.numAttrs = dependent ? 1 : 0;
    checkCuda(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...), name, __FILE__, __LINE__);
    checkLastError(name, __FILE__, __LINE__);
}

}  // namespace Common
}  // namespace StreamCompaction
