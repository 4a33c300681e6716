// The one translation unit of a course submission's library that the project writes
// (docs/student-implementation.md). It is compiled with the submission's include path
// and never the project's, so "stream_compaction/cpu.h" is the submission's own header.
//
// Each course function is redeclared here as a weak, hidden reference: where the
// submission defines it, the link binds the reference to that definition; where it does
// not, the reference is null and the table says "not offered" instead of the link
// failing. Hidden, such a reference can never bind to a symbol of another library.
// Every call goes through a wrapper that catches what the submission throws, so no C++
// exception crosses into the project's code; the table of C function pointers is the
// only symbol the library exports (exports.map).
//
// Every name defined here starts with sc_submission_, so that no macro a submission's
// headers define (blockSize, checkCUDAError, ...) can stand for it.

#include "../stream_compaction/submission_table.h"

#include <cmath>
#include <cstdio>
#include <exception>

#if __has_include("stream_compaction/common.h")
#include "stream_compaction/common.h"
#define SC_SUBMISSION_HAS_COMMON 1
#endif
#if __has_include("stream_compaction/cpu.h")
#include "stream_compaction/cpu.h"
#endif
#if __has_include("stream_compaction/naive.h")
#include "stream_compaction/naive.h"
#endif
#if __has_include("stream_compaction/efficient.h")
#include "stream_compaction/efficient.h"
#endif
#if __has_include("stream_compaction/thrust.h")
#include "stream_compaction/thrust.h"
#endif

#define SC_SUBMISSION_WEAK __attribute__((weak, visibility("hidden")))

// The course's declarations, as weak references (a header that already declares them
// declares the same functions; one that is missing leaves these alone).
namespace StreamCompaction {
#ifdef SC_SUBMISSION_HAS_COMMON
namespace Common {
SC_SUBMISSION_WEAK void setBlockSize(int);  // the optional block-size hook
}  // namespace Common
#define SC_SUBMISSION_TIMER SC_SUBMISSION_WEAK ::StreamCompaction::Common::PerformanceTimer &timer();
#else
#define SC_SUBMISSION_TIMER
#endif
// Each of the course's namespaces has a timer() and a scan().
#define SC_SUBMISSION_TIMER_AND_SCAN(Namespace)            \
    namespace Namespace {                                  \
    SC_SUBMISSION_TIMER                                    \
    SC_SUBMISSION_WEAK void scan(int, int *, const int *); \
    }
SC_SUBMISSION_TIMER_AND_SCAN(CPU)
SC_SUBMISSION_TIMER_AND_SCAN(Naive)
SC_SUBMISSION_TIMER_AND_SCAN(Efficient)
SC_SUBMISSION_TIMER_AND_SCAN(Thrust)
namespace CPU {
SC_SUBMISSION_WEAK int compactWithoutScan(int, int *, const int *);
SC_SUBMISSION_WEAK int compactWithScan(int, int *, const int *);
}  // namespace CPU
namespace Efficient {
SC_SUBMISSION_WEAK int compact(int, int *, const int *);
}  // namespace Efficient
}  // namespace StreamCompaction

// The optional setup a submission's main() would do before its tests, which the harness
// calls instead (docs/student-implementation.md).
extern "C" SC_SUBMISSION_WEAK void harnessSetup();

namespace {

using sc_submission_scan_type = void (*)(int, int *, const int *);
using sc_submission_compact_type = int (*)(int, int *, const int *);

void sc_submission_copy_error(char *error, size_t size, const char *what) {
    if (size > 0) std::snprintf(error, size, "%s", what);
}

// Runs `body`; returns 0, or 1 with the exception's message in `error`.
template <typename Body>
int sc_submission_guarded(char *error, size_t size, Body body) {
    try {
        body();
        return 0;
    } catch (const std::exception &e) {
        sc_submission_copy_error(error, size, e.what());
    } catch (...) {
        sc_submission_copy_error(error, size, "an exception that is not a std::exception");
    }
    return 1;
}

template <sc_submission_scan_type *Function>
int sc_submission_scan_call(int n, int *odata, const int *idata, int *, char *error, size_t size) {
    return sc_submission_guarded(error, size, [&] { (*Function)(n, odata, idata); });
}

template <sc_submission_compact_type *Function>
int sc_submission_compact_call(int n, int *odata, const int *idata, int *count, char *error, size_t size) {
    return sc_submission_guarded(error, size, [&] { *count = (*Function)(n, odata, idata); });
}

// The functions' addresses, null where not defined: resolved once, when the table is made.
sc_submission_scan_type sc_submission_cpu_scan, sc_submission_naive_scan, sc_submission_efficient_scan,
    sc_submission_thrust_scan;
sc_submission_compact_type sc_submission_cpu_compact_without_scan, sc_submission_cpu_compact_with_scan,
    sc_submission_efficient_compact;

#ifdef SC_SUBMISSION_HAS_COMMON
using sc_submission_timer_type = ::StreamCompaction::Common::PerformanceTimer &(*)();

// The timer() functions' addresses, null where not defined. Weak addresses are kept in
// variables, never passed as template arguments, where a compiler may take them as
// never null.
sc_submission_timer_type sc_submission_cpu_timer, sc_submission_naive_timer, sc_submission_efficient_timer,
    sc_submission_thrust_timer;

// The previous operation's time from a namespace's timer(): its CPU reading for the CPU's,
// its GPU reading for the others; NaN if reading it threw.
template <sc_submission_timer_type *Timer, bool Gpu>
float sc_submission_read_timer() {
    float ms = NAN;
    char ignored[1];
    sc_submission_guarded(ignored, sizeof ignored, [&] {
        ms = Gpu ? (*Timer)().getGpuElapsedTimeForPreviousOperation()
                 : (*Timer)().getCpuElapsedTimeForPreviousOperation();
    });
    return ms;
}

template <sc_submission_timer_type *Timer, bool Gpu>
sc_submission_reading sc_submission_reader(sc_submission_timer_type address) {
    *Timer = address;
    return address ? sc_submission_read_timer<Timer, Gpu> : nullptr;
}

int sc_submission_set_block_size(int threads, char *error, size_t size) {
    return sc_submission_guarded(error, size, [&] { ::StreamCompaction::Common::setBlockSize(threads); });
}
#endif

// harnessSetup()'s address, null where not defined.
void (*sc_submission_harness_setup)();

int sc_submission_setup_call(char *error, size_t size) {
    return sc_submission_guarded(error, size, [] { (*sc_submission_harness_setup)(); });
}

template <sc_submission_scan_type *Function>
sc_submission_call sc_submission_scan_entry(sc_submission_scan_type address) {
    *Function = address;
    return address ? sc_submission_scan_call<Function> : nullptr;
}

template <sc_submission_compact_type *Function>
sc_submission_call sc_submission_compact_entry(sc_submission_compact_type address) {
    *Function = address;
    return address ? sc_submission_compact_call<Function> : nullptr;
}

sc_submission_table sc_submission_make_table() {
    namespace SC = ::StreamCompaction;
    sc_submission_table table{};
    table.version = SC_SUBMISSION_TABLE_VERSION;
    // Each entry's function pointer is kept in the variable of the field's name; the casts
    // pick the course's exact signature among any overloads a header declares.
#define SC_SUBMISSION_SCAN(prefix, Namespace)                                       \
    table.prefix##_scan = sc_submission_scan_entry<&sc_submission_##prefix##_scan>( \
        static_cast<sc_submission_scan_type>(&SC::Namespace::scan))
#define SC_SUBMISSION_COMPACT(field, function)                         \
    table.field = sc_submission_compact_entry<&sc_submission_##field>( \
        static_cast<sc_submission_compact_type>(&SC::function))
    SC_SUBMISSION_SCAN(cpu, CPU);
    SC_SUBMISSION_SCAN(naive, Naive);
    SC_SUBMISSION_SCAN(efficient, Efficient);
    SC_SUBMISSION_SCAN(thrust, Thrust);
    SC_SUBMISSION_COMPACT(cpu_compact_without_scan, CPU::compactWithoutScan);
    SC_SUBMISSION_COMPACT(cpu_compact_with_scan, CPU::compactWithScan);
    SC_SUBMISSION_COMPACT(efficient_compact, Efficient::compact);
#ifdef SC_SUBMISSION_HAS_COMMON
    table.cpu_timer = sc_submission_reader<&sc_submission_cpu_timer, false>(&SC::CPU::timer);
    table.naive_timer = sc_submission_reader<&sc_submission_naive_timer, true>(&SC::Naive::timer);
    table.efficient_timer = sc_submission_reader<&sc_submission_efficient_timer, true>(&SC::Efficient::timer);
    table.thrust_timer = sc_submission_reader<&sc_submission_thrust_timer, true>(&SC::Thrust::timer);
    if (static_cast<void (*)(int)>(&SC::Common::setBlockSize)) table.set_block_size = sc_submission_set_block_size;
#endif
    sc_submission_harness_setup = &harnessSetup;
    if (sc_submission_harness_setup) table.setup = sc_submission_setup_call;
    return table;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const sc_submission_table *sc_submission_exports(void) {
    static const sc_submission_table table = sc_submission_make_table();
    return &table;
}
