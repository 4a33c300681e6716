// A kernel of known length for the measurement tests: one thread that spins on the
// device's nanosecond timer.

#include "spin_kernel.h"

#include <stream_compaction/errors.h>

namespace TestSupport {

namespace {

__global__ void kernSpin(unsigned long long nanoseconds) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < nanoseconds);
}

}  // namespace

void spinOnDevice(double microseconds) {
    kernSpin<<<1, 1>>>(static_cast<unsigned long long>(microseconds * 1000));
    SC_CHECK_LAUNCH("kernSpin");
}

}  // namespace TestSupport
