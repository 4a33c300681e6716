#pragma once
// A real GPU fault on demand, for the tests of what follows one.

namespace TestSupport {

/**
 * Launches a kernel that writes through a null pointer: a sticky "illegal address"
 * error that leaves the CUDA context unusable. Throws CudaError.
 */
void injectFault();

}  // namespace TestSupport
