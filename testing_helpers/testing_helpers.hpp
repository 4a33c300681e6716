#pragma once
// Helpers for test programs: seeded random arrays, the course's abridged array printing
// and its pass/fail lines, and array comparison. The course's function names and
// signatures are kept, so a course main.cpp that includes this header works unchanged.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

namespace TestingHelpers {

/** The generator behind genArray(); reseed it for a reproducible run. */
inline std::mt19937_64 &generator() {
    static std::mt19937_64 engine(565);
    return engine;
}

inline void setSeed(std::uint64_t seed) { generator().seed(seed); }

/** Index of the first element where a and b differ, or -1. */
template <typename T>
long long firstMismatch(long long n, const T *a, const T *b) {
    for (long long i = 0; i < n; ++i) {
        if (a[i] != b[i]) return i;
    }
    return -1;
}

/**
 * The course's abridged layout: "[  29  28 ... 29   0 ]", every value "%3d ", and past
 * 16 elements only the first 13 and the last 2 with "... " between.
 */
inline std::string formatArray(long long n, const int *a, bool abridged) {
    std::string text = "[ ";
    char number[16];
    for (long long i = 0; i < n; ++i) {
        if (abridged && n > 16 && i == 13) {
            text += "... ";
            i = n - 2;
        }
        std::snprintf(number, sizeof number, "%3d ", a[i]);
        text += number;
    }
    return text + "]";
}

}  // namespace TestingHelpers

// ---- The course's helper functions, same names and signatures ----

/** Compares n elements; prints the first difference and returns 1, or returns 0. */
template <typename T>
int cmpArrays(int n, T *a, T *b) {
    long long i = TestingHelpers::firstMismatch<T>(n, a, b);
    if (i < 0) return 0;
    std::printf("    a[%lld] = %d, b[%lld] = %d\n", i, static_cast<int>(a[i]), i, static_cast<int>(b[i]));
    return 1;
}

inline void printDesc(const char *desc) { std::printf("==== %s ====\n", desc); }

template <typename T>
void printCmpResult(int n, T *a, T *b) {
    std::printf("    %s\n", cmpArrays(n, a, b) ? "FAIL VALUE" : "passed");
}

template <typename T>
void printCmpLenResult(int n, int expN, T *a, T *b) {
    if (n != expN) std::printf("    expected %d elements, got %d\n", expN, n);
    std::printf("    %s\n", (n == -1 || n != expN) ? "FAIL COUNT" : cmpArrays(n, a, b) ? "FAIL VALUE" : "passed");
}

inline void zeroArray(int n, int *a) {
    for (int i = 0; i < n; ++i) a[i] = 0;
}

inline void onesArray(int n, int *a) {
    for (int i = 0; i < n; ++i) a[i] = 1;
}

/** Fills n elements with 0xCD bytes, so that an element a call never writes is seen. */
inline void poisonArray(int n, int *a) {
    if (n > 0) std::memset(a, 0xCD, static_cast<std::size_t>(n) * sizeof(int));
}

/** n values drawn uniformly from [0, maxval), from the seeded generator. */
inline void genArray(int n, int *a, int maxval) {
    std::uniform_int_distribution<int> values(0, maxval - 1);
    for (int i = 0; i < n; ++i) a[i] = values(TestingHelpers::generator());
}

inline void printArray(int n, int *a, bool abridged = false) {
    std::printf("    %s\n", TestingHelpers::formatArray(n, a, abridged).c_str());
}

template <typename T>
void printElapsedTime(T time, std::string note = "") {
    std::printf("   elapsed time: %gms    %s\n", static_cast<double>(time), note.c_str());
}
