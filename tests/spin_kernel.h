#pragma once
// A kernel of known length for the measurement tests (spin_kernel.cu).

namespace TestSupport {

/** Enqueues, on the default stream, a one-thread kernel that runs for `microseconds`. */
void spinOnDevice(double microseconds);

}  // namespace TestSupport
