#pragma once
/*
 * What a course submission's library exports: one C function returning a table of C
 * function pointers, the only symbol the library makes visible (docs/student-
 * implementation.md). submission/adapter.cu fills it in, compiled with the submission's
 * own headers; student.cpp reads it after loading the library. Plain C types only, so
 * that neither side's C++ names, macros or types reach the other. Names start with
 * sc_submission_ so that no submission's macro can stand for them.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised whenever the table's layout changes; a library of another version is refused. */
#define SC_SUBMISSION_TABLE_VERSION 2

/*
 * One of the course's functions, run by the adapter on host arrays: `count` gets a
 * compaction's result (untouched for a scan). Returns 0, or 1 when the submission threw,
 * with the exception's what() in `error` (error_size bytes, always terminated).
 */
typedef int (*sc_submission_call)(int n, int *odata, const int *idata, int *count, char *error, size_t error_size);

/* A namespace's timer(): the previous operation's time in ms, CPU time for the CPU's. */
typedef float (*sc_submission_reading)(void);

/* The optional hook StreamCompaction::Common::setBlockSize(int); as a call, 1 when it threw. */
typedef int (*sc_submission_block_size)(int threads, char *error, size_t error_size);

/* The optional extern "C" harnessSetup(void); as a call, 1 when it threw. */
typedef int (*sc_submission_setup)(char *error, size_t error_size);

/* Each pointer is NULL where the submission does not define that function. */
struct sc_submission_table {
    int version; /* SC_SUBMISSION_TABLE_VERSION */

    sc_submission_call cpu_scan;
    sc_submission_call cpu_compact_without_scan;
    sc_submission_call cpu_compact_with_scan;
    sc_submission_call naive_scan;
    sc_submission_call efficient_scan;
    sc_submission_call efficient_compact;
    sc_submission_call thrust_scan;

    sc_submission_reading cpu_timer;
    sc_submission_reading naive_timer;
    sc_submission_reading efficient_timer;
    sc_submission_reading thrust_timer;

    sc_submission_block_size set_block_size;
    sc_submission_setup setup;
};

/* The one exported function, `const struct sc_submission_table *sc_submission_exports(void)`. */
#define SC_SUBMISSION_EXPORTS_SYMBOL "sc_submission_exports"

typedef const struct sc_submission_table *(*sc_submission_exports_function)(void);

#ifdef __cplusplus
}
#endif
