#include "launch.h"

#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include "errors.h"

namespace StreamCompaction {
namespace Common {

namespace {
int currentBlockSize = 128;
}  // namespace

bool validBlockSize(int threads) { return threads >= 32 && threads <= 1024 && threads % 32 == 0; }

int blockSize() { return currentBlockSize; }

void setBlockSize(int threads) {
    if (!validBlockSize(threads)) {
        throw std::invalid_argument("block size " + std::to_string(threads) +
                                    " is not a multiple of 32 from 32 to 1024");
    }
    currentBlockSize = threads;
}

int multiprocessorCount() {
    static const int multiprocessors = [] {
        int device = 0, count = 0;
        SC_CUDA_CHECK(cudaGetDevice(&device));
        SC_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
        return count;
    }();
    return multiprocessors;
}

}  // namespace Common
}  // namespace StreamCompaction
