#include "measure/hints.h"

#include <algorithm>

#include <fmt/format.h>

namespace Harness {

namespace {

std::string fillText() { return fmt::format("the fill 0x{:08X} ({})", static_cast<unsigned>(poisonValue<int>()), poisonValue<int>()); }

// Whether `actual` is `expected` shifted left by one (actual[i] == expected[i + 1]) and
// differs from it: an inclusive scan where an exclusive one belongs.
template <typename T>
bool inclusiveScan(const std::vector<T> &actual, const std::vector<T> &expected) {
    if (actual.size() != expected.size() || actual.size() < 2 || actual == expected) return false;
    return std::equal(actual.begin(), actual.end() - 1, expected.begin() + 1);
}

// The count's hint: -1 (the course stub's return), or one off and which way.
std::string countHint(long long got, long long want) {
    if (got == -1 && want != -1) {
        return "the count is -1, the course stub's return value: return the number of elements kept";
    }
    if (got == want + 1) {
        return fmt::format("the count is one too many ({} for {}): is the last element's flag counted twice, "
                           "say an inclusive scan's last element plus that flag?", got, want);
    }
    if (got == want - 1) {
        return fmt::format("the count is one short ({} for {}): the exclusive scan's last element leaves out the "
                           "last element's own flag; add it", got, want);
    }
    return "";
}

// An output that is wrong from its first wrong element on because it was never written.
std::string unwrittenHint(const std::vector<int> &actual, const std::vector<int> &expected) {
    const auto mismatch = std::mismatch(actual.begin(), actual.end(), expected.begin(), expected.end());
    if (mismatch.first == actual.end() || *mismatch.first != poisonValue<int>()) return "";
    const auto at = mismatch.first - actual.begin();
    const bool rest = std::all_of(mismatch.first, actual.end(), [](int v) { return v == poisonValue<int>(); });
    return fmt::format("a[{}] was never written: it still holds {}{}", at, fillText(),
                       rest && mismatch.first + 1 != actual.end() ? ", as does every element after it" : "");
}

bool powerOfTwo(long long n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

std::string failureHint(Op op, const Run &actual, const Expected &expected) {
    const bool counted = describe(op).returnsCount;
    // An untouched output is right for a compaction that keeps nothing.
    if (actual.untouched && (!counted || expected.kept > 0 || actual.kept == -1)) {
        const bool stubCount = counted && actual.kept == -1;
        return fmt::format("wrote nothing{}: odata still holds {}; is this still the course's stub?",
                           stubCount ? " and returned -1" : "", fillText());
    }
    if (counted && actual.kept != expected.kept) return countHint(actual.kept, expected.kept);
    if (op == Op::Scan && (inclusiveScan(actual.output, expected.output) || inclusiveScan(actual.sums64, expected.sums64))) {
        return "looks like an inclusive scan; the course's scan is exclusive (out[0] = 0)";
    }
    return unwrittenHint(actual.output, expected.output);
}

std::string timerHint(const Explanation &explanation) {
    if (explanation.bound != Bound::InsideTimer) return "";
    // The verdict: "most of the time in 3 cudaMalloc and 2 cudaMemcpy inside the timer (85% of the call)".
    const std::string &verdict = explanation.verdict;
    const std::string opening = "most of the time in ", inside = " inside the timer (", closing = " of the call)";
    const std::size_t calls = verdict.find(inside);
    const std::size_t share = verdict.find(closing, calls);
    const std::string what = calls != std::string::npos && share != std::string::npos
                                 ? fmt::format("{} ({} of the call)", verdict.substr(opening.size(), calls - opening.size()),
                                               verdict.substr(calls + inside.size(), share - calls - inside.size()))
                                 : "allocations or copies";
    return fmt::format("your timer brackets {}: start it after the copies in, stop it before the copy out, and "
                       "allocate outside it, so that it times the algorithm",
                       what);
}

std::string sizeHint(const std::vector<SizeOutcome> &outcomes) {
    std::vector<long long> failing;
    bool powerOfTwoPassed = false;
    for (const SizeOutcome &outcome : outcomes) {
        if (outcome.passed) {
            powerOfTwoPassed = powerOfTwoPassed || powerOfTwo(outcome.n);
        } else if (powerOfTwo(outcome.n)) {
            return "";
        } else {
            failing.push_back(outcome.n);
        }
    }
    if (failing.empty() || !powerOfTwoPassed) return "";
    const bool courseSizes = outcomes.size() == 2 && failing.size() == 1 && outcomes[0].passed &&
                             powerOfTwo(outcomes[0].n) && failing[0] == outcomes[0].n - 3;
    if (courseSizes) return "fails only at SIZE - 3: check the padding to the next power of two";
    std::string sizes;
    for (std::size_t i = 0; i < failing.size() && i < 4; ++i) sizes += (i ? ", " : "") + std::to_string(failing[i]);
    if (failing.size() > 4) sizes += ", ...";
    return fmt::format("fails only at sizes that are not a power of two (n = {}): check the padding to the next "
                       "power of two", sizes);
}

}  // namespace Harness
