#pragma once
// The back ends as the harness sees them: one registry row each, saying what the back
// end is and which operations it offers. A GPU back end's functions take device arrays
// and only enqueue device work on the default stream (the caller times them, and reads
// a compaction's count after the work; `countsOnHost` names the exceptions); the
// CPU back end's take host arrays and hold its CPU timer; a course submission's take
// host arrays and are timed by the implementation.
// Each back end defines its row in its own file (Cub::backend() in cub.cu); backends.cpp
// lists them. Adding a back end: docs/adding-a-back-end.md.

#include <cstddef>
#include <string_view>
#include <vector>

#include "common.h"
#include "predicate.h"

namespace StreamCompaction {

struct Backend {
    const char *name;   // as on the command line: "efficient"
    const char *title;  // as in the course's test output: "work-efficient"
    bool onGpu = true;
    // Whether its kernels run at Common::blockSize(): a block-size sweep measures it once
    // per block size; one whose tile shapes are fixed is measured once per size.
    bool honoursBlockSize = false;
    // Whether it is the reference every other GPU back end is compared with ("x cub").
    bool reference = false;
    // Whether its compaction and partition return their count to the host before they
    // write it to *kept (Thrust's copy_if does), so that they wait for the device and a
    // timer around them includes a host synchronisation. Its other calls only enqueue.
    bool countsOnHost = false;
    // The course's timer of its namespace (Efficient::timer()): the course's host-array
    // functions fill it (hostScan and the others); the device-pointer entry points below
    // do not touch it.
    Common::PerformanceTimer &(*timer)() = nullptr;

    // The operations for the course's `int n`; nullptr where not offered. A compaction and
    // a partition write how many they kept to *kept, in the memory the arrays are in (on
    // the device for a GPU back end), as part of their device work.
    void (*scan)(int n, int *out, const int *in) = nullptr;                              // exclusive prefix sum
    void (*compact)(int n, int *out, const int *in, Predicate keep, int *kept) = nullptr;    // the kept, in order
    void (*partition)(int n, int *out, const int *in, Predicate keep, int *kept) = nullptr;  // stable: kept, then rest
    void (*sort)(int n, int *out, const int *in) = nullptr;                              // ascending, signed ints
    // Ascending by key, each key carrying its value, stable: equal keys keep their input
    // order, and their values with them.
    void (*sortPairs)(int n, int *keysOut, int *valuesOut, const int *keysIn, const int *valuesIn) = nullptr;
    void (*sortUnsigned)(int n, unsigned *out, const unsigned *in) = nullptr;  // ascending, unsigned ints

    // The same operations for std::size_t counts, which the harness uses past 2^31 - 1
    // elements (docs/large-sizes.md); a scan's sums are int64, since an int32 running sum
    // overflows long before n does. A compaction returns its count to the host, so these
    // may wait for the device. nullptr where not offered.
    void (*scan64)(std::size_t n, long long *out, const int *in) = nullptr;
    std::size_t (*compact64)(std::size_t n, int *out, const int *in, Predicate keep) = nullptr;
    std::size_t (*partition64)(std::size_t n, int *out, const int *in, Predicate keep) = nullptr;
    void (*sort64)(std::size_t n, int *out, const int *in) = nullptr;

    // Timed by the implementation: a course submission's row (student.h), whose entry
    // points take host arrays, as the course's API does, and allocate, copy and time
    // inside themselves. This reads the submission's own timer for the previous call, in
    // ms (NaN where it has none); the harness reads it instead of `timer`. nullptr for
    // every other back end.
    float (*implementationTimer)() = nullptr;
};

/** Whether the harness reads the back end's own timer instead of `timer` (Backend::implementationTimer). */
inline bool timedByImplementation(const Backend &backend) { return backend.implementationTimer != nullptr; }

/** Whether the back end's entry points take host arrays: the CPU's, and those timed by the implementation. */
inline bool takesHostArrays(const Backend &backend) { return !backend.onGpu || timedByImplementation(backend); }

/**
 * Every back end, in the order the course's output lists them; a course submission's rows
 * (student.h) follow the project's rows of the same course namespace once the program
 * has loaded it.
 */
const std::vector<Backend> &backends();

/** The back end with this command-line name, or nullptr. */
const Backend *findBackend(std::string_view name);

/**
 * Any back end's operations on host arrays, as the course's API takes them: for a GPU
 * back end the input is copied to the device and the output back (n elements, or the
 * kept ones), outside its timer (Backend::timer), which holds the call. Throws
 * std::invalid_argument for an operation the back end does not offer.
 */
void hostScan(const Backend &backend, int n, int *odata, const int *idata);
int hostCompact(const Backend &backend, int n, int *odata, const int *idata, Predicate keep = Predicate::nonZero());
int hostPartition(const Backend &backend, int n, int *odata, const int *idata,
                  Predicate keep = Predicate::nonZero());
void hostSort(const Backend &backend, int n, int *odata, const int *idata);

}  // namespace StreamCompaction
