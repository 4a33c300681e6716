#include "fault_injection.h"

#include <cuda_runtime_api.h>

#include <stream_compaction/device_primitives.cuh>
#include <stream_compaction/errors.h>

namespace TestSupport {

namespace {
__global__ void kernWriteThroughNull(int *nowhere) { nowhere[StreamCompaction::Common::threadIndex()] = 1; }
}  // namespace

void injectFault() {
    StreamCompaction::Common::Operation operation("fault injection", "write through null", 1);
    kernWriteThroughNull<<<1, 32>>>(nullptr);
    SC_CHECK_LAUNCH("kernWriteThroughNull");
    SC_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace TestSupport
