#pragma once
// What compaction keeps: the course's "non-zero", the textbook's "multiple of k", or
// "greater than t". A small value type, evaluated the same way on host and device by
// every back end. The tests check it against a predicate written apart from this one
// (testing_helpers/reference_predicate.hpp), so a mistake here cannot hide in both.

#include <string>

#if defined(__CUDACC__)
#define SC_HOST_DEVICE __host__ __device__
#else
#define SC_HOST_DEVICE
#endif

namespace StreamCompaction {

struct Predicate {
    enum class Kind { NonZero, MultipleOf, GreaterThan };

    Kind kind = Kind::NonZero;
    int operand = 0;  // k for MultipleOf (k != 0; the command line takes k >= 1), t for GreaterThan

    static Predicate nonZero() { return {Kind::NonZero, 0}; }
    static Predicate multipleOf(int k) { return {Kind::MultipleOf, k}; }
    static Predicate greaterThan(int t) { return {Kind::GreaterThan, t}; }

    SC_HOST_DEVICE bool operator()(int v) const {
        switch (kind) {
            // Every int is a multiple of -1; asking v % -1 instead is undefined for
            // v = INT_MIN (the quotient 2^31 overflows) and traps on x86.
            case Kind::MultipleOf: return operand == -1 || v % operand == 0;
            case Kind::GreaterThan: return v > operand;
            default: return v != 0;
        }
    }

    /** "nonzero", "mod:3", "gt:10": the same spelling the command line accepts. */
    std::string name() const {
        switch (kind) {
            case Kind::MultipleOf: return "mod:" + std::to_string(operand);
            case Kind::GreaterThan: return "gt:" + std::to_string(operand);
            default: return "nonzero";
        }
    }
};

/** The complement of a predicate: true for the elements `keep` rejects. */
struct Rejects {
    Predicate keep;
    SC_HOST_DEVICE bool operator()(int v) const { return !keep(v); }
};

}  // namespace StreamCompaction
