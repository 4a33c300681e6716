#pragma once
// What a compaction predicate keeps, decided apart from StreamCompaction::Predicate's own
// evaluation: from its kind and operand alone, in 64-bit arithmetic, where every value
// and operand has a defined answer (INT_MIN % -1 included). The references in
// reference.hpp filter with it, so that a mistake in Predicate::operator() shows as a
// difference between a back end and its reference instead of being shared by both.

#include <stream_compaction/predicate.h>

namespace TestingHelpers {

struct ReferencePredicate {
    StreamCompaction::Predicate predicate;

    bool operator()(int value) const {
        using Kind = StreamCompaction::Predicate::Kind;
        const long long v = value;
        const long long operand = predicate.operand;
        if (predicate.kind == Kind::GreaterThan) return v > operand;
        if (predicate.kind == Kind::MultipleOf) {
            // The multiples of k are those of |k|; of 0, only 0 (outside Predicate's
            // domain, which takes k != 0).
            const long long k = operand < 0 ? -operand : operand;
            return k == 0 ? v == 0 : v % k == 0;
        }
        return v != 0;
    }
};

/** The reference's verdict on one value. */
inline bool referenceKeeps(StreamCompaction::Predicate keep, int value) { return ReferencePredicate{keep}(value); }

}  // namespace TestingHelpers
