// The verdict on a run (verify, declared in runner.h): its checks' findings, its count
// and its output against the expected ones.

#include "measure/runner.h"

#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "testing_helpers.hpp"

namespace Harness {

namespace {

// A FailCount or FailValue verdict at the first difference of two outputs, or "passed".
// Elements past `keys` are a sort-pairs output's values and are named values[i].
template <typename T>
Verdict compare(const std::vector<T> &actual, const std::vector<T> &expected,
                std::size_t keys = std::numeric_limits<std::size_t>::max()) {
    Verdict verdict;
    if (actual.size() != expected.size()) {
        verdict.kind = Verdict::Kind::FailCount;
        verdict.detail = fmt::format("expected {} elements, got {}", expected.size(), actual.size());
        return verdict;
    }
    long long i = TestingHelpers::firstMismatch<T>(static_cast<long long>(actual.size()), actual.data(), expected.data());
    if (i >= 0) {
        verdict.kind = Verdict::Kind::FailValue;
        const auto at = static_cast<std::size_t>(i);
        verdict.detail = at < keys ? fmt::format("a[{}] = {}, expected {}", i, actual[at], expected[at])
                                   : fmt::format("values[{}] = {}, expected {}", at - keys, actual[at], expected[at]);
    }
    return verdict;
}

}  // namespace

Verdict verify(Op op, const Run &actual, const Expected &expected) {
    Verdict verdict;
    const bool counted = describe(op).returnsCount;
    if (!actual.inputChange.empty()) {
        verdict.kind = Verdict::Kind::FailValue;
        verdict.detail = actual.inputChange;
        return verdict;
    }
    if (counted && actual.kept != expected.kept) {
        verdict.kind = Verdict::Kind::FailCount;
        verdict.detail = fmt::format("expected {} elements, got {}", expected.kept, actual.kept);
        return verdict;
    }
    if (!actual.outsideWrite.empty()) {
        verdict.kind = Verdict::Kind::FailValue;
        verdict.detail = actual.outsideWrite;
        return verdict;
    }
    const Verdict ints = describe(op).pairs ? compare(actual.output, expected.output, expected.output.size() / 2)
                                            : compare(actual.output, expected.output);
    return ints.passed() ? compare(actual.sums64, expected.sums64) : ints;
}

}  // namespace Harness
