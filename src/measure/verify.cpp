// The verdict on a run (verify, declared in runner.h): its checks' findings, its count
// and its output against the expected ones, by the harness's rules or the course's.

#include "measure/runner.h"

#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <stream_compaction/backends.h>

#include "measure/hints.h"
#include "testing_helpers.hpp"

namespace Harness {

namespace {

// "1 element", "5 elements".
std::string elements(long long n) { return fmt::format("{} element{}", n, n == 1 ? "" : "s"); }

Verdict failed(Verdict::Kind kind, std::string detail, long long index = -1) {
    Verdict verdict;
    verdict.kind = kind;
    verdict.detail = std::move(detail);
    verdict.index = index;
    return verdict;
}

// A FailCount or FailValue verdict at the first difference of two outputs, or "passed".
// Elements past `keys` are a sort-pairs output's values and are named values[i].
template <typename T>
Verdict compare(const std::vector<T> &actual, const std::vector<T> &expected,
                std::size_t keys = std::numeric_limits<std::size_t>::max()) {
    if (actual.size() != expected.size()) {
        return failed(Verdict::Kind::FailCount,
                      fmt::format("expected {}, got {}", elements(static_cast<long long>(expected.size())), actual.size()));
    }
    const long long i =
        TestingHelpers::firstMismatch<T>(static_cast<long long>(actual.size()), actual.data(), expected.data());
    if (i < 0) return {};
    const auto at = static_cast<std::size_t>(i);
    return failed(Verdict::Kind::FailValue,
                  at < keys ? fmt::format("a[{}] = {}, expected {}", i, actual[at], expected[at])
                            : fmt::format("values[{}] = {}, expected {}", at - keys, actual[at], expected[at]),
                  i);
}

// Under the course's rules: whether every element that differs was left unwritten (the
// poison) where 0 belongs, which the course's main.cpp, zeroing the output first, passes;
// the note that says so, or "".
std::string unwrittenZerosNote(const std::vector<int> &actual, const std::vector<int> &expected) {
    if (actual.size() != expected.size()) return "";
    const int poison = poisonValue<int>();
    long long first = -1;
    long long count = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if (actual[i] == expected[i]) continue;
        if (actual[i] != poison || expected[i] != 0) return "";
        if (first < 0) first = static_cast<long long>(i);
        ++count;
    }
    if (count == 0) return "";
    return fmt::format("{} left unwritten where 0 belongs (a[{}]); the course's main.cpp zeroes the output first, "
                       "so it passes there, but a caller's output need not start as zeros",
                       elements(count), first);
}

// The checks' findings and the count, before the output's elements.
Verdict checks(Op op, const Run &actual, const Expected &expected, Rules rules) {
    if (!actual.inputChange.empty()) return failed(Verdict::Kind::FailValue, actual.inputChange);
    if (describe(op).returnsCount && actual.kept != expected.kept) {
        return failed(Verdict::Kind::FailCount,
                      fmt::format("expected {}, got {}", elements(expected.kept), actual.kept));
    }
    if (!actual.outsideWrite.empty()) return failed(Verdict::Kind::FailValue, actual.outsideWrite);
    if (actual.writtenPastCount.empty()) return {};
    if (rules == Rules::Strict) {
        return failed(Verdict::Kind::FailValue, actual.writtenPastCount, actual.writtenPastCountAt);
    }
    Verdict verdict;
    verdict.note = actual.writtenPastCount + "; the course's main.cpp compares only the elements returned";
    return verdict;
}

}  // namespace

Rules rulesFor(const StreamCompaction::Backend &backend) {
    return StreamCompaction::timedByImplementation(backend) ? Rules::Course : Rules::Strict;
}

Verdict verify(Op op, const Run &actual, const Expected &expected, Rules rules) {
    Verdict verdict = checks(op, actual, expected, rules);
    if (verdict.passed()) {
        Verdict output = describe(op).pairs ? compare(actual.output, expected.output, expected.output.size() / 2)
                                            : compare(actual.output, expected.output);
        if (output.passed()) output = compare(actual.sums64, expected.sums64);
        if (output.passed()) return verdict;
        // An output left untouched fails: the function did not run (the course's stub).
        const bool course = rules == Rules::Course && !actual.untouched;
        const std::string zeros = course ? unwrittenZerosNote(actual.output, expected.output) : "";
        if (!zeros.empty()) {
            verdict.note = verdict.note.empty() ? zeros : verdict.note + "; " + zeros;
            return verdict;
        }
        verdict = std::move(output);
    }
    verdict.hint = failureHint(op, actual, expected);
    return verdict;
}

}  // namespace Harness
