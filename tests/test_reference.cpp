// The reference sorts' multi-threaded path, against std::sort and std::stable_sort on a
// copy: through the internal functions with a small threshold and several thread counts
// (one chunk each, so odd and even numbers of merge rounds and sizes that no thread count
// divides), and through the public functions just below and above the real threshold.
// Keys have long runs of equal values and span the whole int range, INT_MIN and INT_MAX
// included; the pairs' values are distinct, so that stability is seen.

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "reference.hpp"
#include "test_support.h"
#include "testing_helpers.hpp"

namespace {

namespace Detail = TestingHelpers::Detail;

// A small threshold, so that the multi-threaded path runs at small sizes.
constexpr std::size_t kSmallThreshold = 1000;
const std::size_t kSmallSizes[] = {kSmallThreshold - 1, kSmallThreshold, kSmallThreshold + 1, kSmallThreshold + 7,
                                   4099};
const unsigned kThreadCounts[] = {1, 2, 3, 4, 5, 8, 32};

const std::size_t kThreshold = Detail::kParallelSortThreshold;
const std::size_t kThresholdSizes[] = {kThreshold - 1, kThreshold + 7};

// n keys: half from [-3, 3], half over the whole int range, and INT_MIN and INT_MAX at a
// few places each.
std::vector<int> mixedKeys(std::size_t n, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> narrow(-3, 3);
    std::uniform_int_distribution<int> wide(INT_MIN, INT_MAX);
    std::vector<int> keys(n);
    for (int &key : keys) key = engine() % 2 == 0 ? narrow(engine) : wide(engine);
    for (int i = 0; i < 4 && n > 0; ++i) {
        keys[engine() % n] = INT_MIN;
        keys[engine() % n] = INT_MAX;
    }
    return keys;
}

TestSupport::SeededInput keysOf(std::size_t n) {
    return {"keys, n = " + std::to_string(n), [n](std::uint64_t seed) { return mixedKeys(n, seed); }};
}

// The keys, then distinct values: each position with its bits flipped, so that a sort
// that returned positions instead of values would fail.
std::vector<int> withDistinctValues(const std::vector<int> &keys) {
    std::vector<int> pairs = keys;
    for (std::size_t i = 0; i < keys.size(); ++i) pairs.push_back(~static_cast<int>(i));
    return pairs;
}

std::vector<int> stdSorted(std::vector<int> keys) {
    std::sort(keys.begin(), keys.end());
    return keys;
}

// The pairs (n keys, then n values) stable-sorted by key with std::stable_sort.
std::vector<int> stdStableSortedPairs(const std::vector<int> &pairs) {
    const std::size_t n = pairs.size() / 2;
    std::vector<std::pair<int, int>> ordered(n);
    for (std::size_t i = 0; i < n; ++i) ordered[i] = {pairs[i], pairs[n + i]};
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<int> sorted(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        sorted[i] = ordered[i].first;
        sorted[n + i] = ordered[i].second;
    }
    return sorted;
}

// Equal arrays, or the first difference (not the arrays, of millions of elements).
void expectSameArrays(const std::vector<int> &actual, const std::vector<int> &expected) {
    ASSERT_EQ(actual.size(), expected.size());
    const long long i =
        TestingHelpers::firstMismatch<int>(static_cast<long long>(actual.size()), actual.data(), expected.data());
    EXPECT_EQ(i, -1) << "[" << i << "] = " << (i >= 0 ? actual[i] : 0) << ", expected " << (i >= 0 ? expected[i] : 0);
}

TEST(ReferenceSort, ParallelPathMatchesStdSort) {
    for (const unsigned threads : kThreadCounts) {
        for (const std::size_t n : kSmallSizes) {
            SCOPED_TRACE(testing::Message() << threads << " threads");
            const TestSupport::SeededInput keys = keysOf(n);
            expectSameArrays(Detail::sortKeys(keys.values, kSmallThreshold, threads), stdSorted(keys.values));
        }
    }
}

// More threads than elements: some chunks are empty.
TEST(ReferenceSort, ParallelPathWithEmptyChunks) {
    for (const std::size_t n : {0, 1, 2, 5}) {
        const TestSupport::SeededInput keys = keysOf(n);
        expectSameArrays(Detail::sortKeys(keys.values, 0, 8), stdSorted(keys.values));
    }
}

// The comparator orders both the chunks' sorts and the merges.
TEST(ReferenceSort, ChunkedSortFollowsItsComparator) {
    const TestSupport::SeededInput keys = keysOf(kSmallThreshold + 7);
    std::vector<int> descending = keys.values;
    Detail::sortInChunks(descending.data(), descending.size(), std::greater<int>(), kSmallThreshold, 5);
    std::vector<int> expected = keys.values;
    std::sort(expected.begin(), expected.end(), std::greater<int>());
    expectSameArrays(descending, expected);
}

TEST(ReferenceSort, MatchesStdSortAroundThreshold) {
    for (const std::size_t n : kThresholdSizes) {
        const TestSupport::SeededInput keys = keysOf(n);
        expectSameArrays(TestingHelpers::referenceSort(keys.values), stdSorted(keys.values));
    }
}

// The unsigned order, below the parallel path's threshold and past it, against std::sort
// of the keys as unsigned; then the ends of that order by hand.
TEST(ReferenceSortUnsigned, MatchesStdSortOfUnsignedAroundThreshold) {
    for (const std::size_t n : kThresholdSizes) {
        const TestSupport::SeededInput keys = keysOf(n);
        std::vector<unsigned> asUnsigned(keys.values.begin(), keys.values.end());
        std::sort(asUnsigned.begin(), asUnsigned.end());
        const std::vector<int> expected(asUnsigned.begin(), asUnsigned.end());
        expectSameArrays(TestingHelpers::referenceSortUnsigned(keys.values), expected);
    }
    EXPECT_EQ(TestingHelpers::referenceSortUnsigned({INT_MIN, -1, 0, INT_MAX, 1, INT_MIN + 1}),
              (std::vector<int>{0, 1, INT_MAX, INT_MIN, INT_MIN + 1, -1}));
}

TEST(ReferenceSortPairs, ParallelPathIsStable) {
    for (const unsigned threads : kThreadCounts) {
        for (const std::size_t n : kSmallSizes) {
            SCOPED_TRACE(testing::Message() << threads << " threads");
            const TestSupport::SeededInput keys = keysOf(n);
            const std::vector<int> pairs = withDistinctValues(keys.values);
            expectSameArrays(Detail::sortPairs(pairs, kSmallThreshold, threads), stdStableSortedPairs(pairs));
        }
    }
}

TEST(ReferenceSortPairs, ParallelPathWithEmptyChunks) {
    for (const std::size_t n : {0, 1, 2, 5}) {
        const TestSupport::SeededInput keys = keysOf(n);
        const std::vector<int> pairs = withDistinctValues(keys.values);
        expectSameArrays(Detail::sortPairs(pairs, 0, 8), stdStableSortedPairs(pairs));
    }
}

TEST(ReferenceSortPairs, StableAroundThreshold) {
    for (const std::size_t n : kThresholdSizes) {
        const TestSupport::SeededInput keys = keysOf(n);
        const std::vector<int> pairs = withDistinctValues(keys.values);
        expectSameArrays(TestingHelpers::referenceSortPairs(pairs), stdStableSortedPairs(pairs));
    }
}

}  // namespace
