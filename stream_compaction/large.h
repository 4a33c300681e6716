#pragma once
// The 64-bit-size API beside the course's `int n` one: exclusive scan, compaction,
// stable partition and sort of std::size_t counts (below 2^63: the GPU back ends reject
// larger ones as negative), for the CPU, Thrust and CUB back ends, and all but the sort
// for the decoupled look-back back end. Each back end
// implements its part in its own file, on the same templated code as its 32-bit
// functions. Scan outputs are int64: an int32 running sum of int32 values can overflow
// long before n reaches 2^31. A compaction or partition returns how many elements it
// kept; a partition puts them first and the rejected ones after, each group in input
// order; a sort is ascending over signed ints.
//
// CPU functions take host arrays and hold CPU::timer(). GPU functions take device
// arrays (like their *Device functions) and hold their GPU timers; a timed figure
// never includes an allocation (CUB reserves its storage before the timer, Thrust runs a
// call again when it had to grow its cache). The names sit in a nested namespace
// (Cub::Large::scan) instead of overloading the course's: an `int`-or-`std::size_t`
// overload set would make a call with a `long long` or `unsigned` count ambiguous.

#include <cstddef>

#include "predicate.h"

namespace StreamCompaction {

namespace CPU::Large {
void scan(std::size_t n, long long *odata, const int *idata);
std::size_t compact(std::size_t n, int *odata, const int *idata, Predicate keep = Predicate::nonZero());
std::size_t partition(std::size_t n, int *odata, const int *idata, Predicate keep = Predicate::nonZero());
void sort(std::size_t n, int *odata, const int *idata);
}  // namespace CPU::Large

namespace Thrust::Large {
void scan(std::size_t n, long long *dOut, const int *dIn);
std::size_t compact(std::size_t n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());
std::size_t partition(std::size_t n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());
void sort(std::size_t n, int *dOut, const int *dIn);
}  // namespace Thrust::Large

// Thrust's copy_if and CUB's DeviceSelect::If (CCCL 3.0) take 64-bit counts but fail
// with an illegal address once they keep more than 2^31 - 1 elements (measured on the
// H200), so their 64-bit compaction and partition run in chunks of 2^30 elements (a
// partition as two compactions: the kept elements, then the rejected ones); scan and
// sort take the whole array in one call.
namespace Cub::Large {
void scan(std::size_t n, long long *dOut, const int *dIn);
std::size_t compact(std::size_t n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());
std::size_t partition(std::size_t n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());
void sort(std::size_t n, int *dOut, const int *dIn);
}  // namespace Cub::Large

// The same single-pass kernels as the 32-bit functions, with 64-bit sums: a tile status
// is then a flag word beside its value words (decoupled.cu), not one packed word.
namespace Decoupled::Large {
void scan(std::size_t n, long long *dOut, const int *dIn);
std::size_t compact(std::size_t n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());
std::size_t partition(std::size_t n, int *dOut, const int *dIn, Predicate keep = Predicate::nonZero());
}  // namespace Decoupled::Large

}  // namespace StreamCompaction
