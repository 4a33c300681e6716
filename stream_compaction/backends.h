#pragma once
// The back ends as the harness sees them: one table row each, with the operations it
// offers. A GPU back end's functions take device arrays and hold its GPU timer; the CPU
// back end's take host arrays and hold its CPU timer.

#include <cstddef>
#include <string_view>
#include <vector>

#include "common.h"

namespace StreamCompaction {

struct Backend {
    const char *name;   // as on the command line: "efficient"
    const char *title;  // as in the test output: "work-efficient"
    bool onGpu;
    Common::PerformanceTimer &(*timer)();
    // An operation a back end does not offer is nullptr.
    void (*scan)(int n, int *out, const int *in);                      // exclusive prefix sum
    int (*compact)(int n, int *out, const int *in, Predicate keep);    // returns how many kept
    int (*partition)(int n, int *out, const int *in, Predicate keep);  // stable; returns how many kept
    void (*sort)(int n, int *out, const int *in);                      // ascending, signed ints
    // The same operations for std::size_t counts (large.h), which the harness uses past
    // 2^31 - 1 elements; a scan's sums are int64. nullptr where not offered.
    void (*scan64)(std::size_t n, long long *out, const int *in) = nullptr;
    std::size_t (*compact64)(std::size_t n, int *out, const int *in, Predicate keep) = nullptr;
    std::size_t (*partition64)(std::size_t n, int *out, const int *in, Predicate keep) = nullptr;
    void (*sort64)(std::size_t n, int *out, const int *in) = nullptr;
};

/** Every back end, in the order the course's output lists them. */
const std::vector<Backend> &backends();

/** The back end with this command-line name, or nullptr. */
const Backend *findBackend(std::string_view name);

}  // namespace StreamCompaction
