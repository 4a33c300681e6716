// The runner's random inputs are the course's: a scan's values from [0, 50) and a
// compaction's from [0, 4), each with a 0 last, as genArray and the course's main make
// them; a sort's keys from the whole int range. The same seed gives the same input.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "measure/runner.h"
#include "testing_helpers.hpp"

namespace {

using Harness::Op;

std::vector<int> drawn(Op op, long long size, std::uint64_t seed = 565) {
    TestingHelpers::setSeed(seed);
    return Harness::randomInput(op, size);
}

TEST(RandomInput, ScanValuesAreFrom0To49AndTheLastIs0) {
    const std::vector<int> values = drawn(Op::Scan, 1 << 16);
    EXPECT_EQ(values.back(), 0);
    EXPECT_EQ(*std::min_element(values.begin(), values.end()), 0);
    EXPECT_EQ(*std::max_element(values.begin(), values.end()), 49);
    EXPECT_NE(std::count(values.begin(), values.end() - 1, 0), 0);  // drawn zeros too, not only the last
}

TEST(RandomInput, CompactValuesAreFrom0To3AndTheLastIs0) {
    for (Op op : {Op::Compact, Op::Partition}) {
        const std::vector<int> values = drawn(op, 1 << 16);
        EXPECT_EQ(values.back(), 0);
        EXPECT_EQ(*std::min_element(values.begin(), values.end()), 0);
        EXPECT_EQ(*std::max_element(values.begin(), values.end()), 3);
        // About a quarter are zeros.
        const auto zeros = std::count(values.begin(), values.end(), 0);
        EXPECT_GT(zeros, (1 << 16) / 5);
        EXPECT_LT(zeros, (1 << 16) / 3);
    }
}

TEST(RandomInput, SortKeysSpanTheIntRange) {
    const std::vector<int> keys = drawn(Op::Sort, 1 << 16);
    EXPECT_LT(*std::min_element(keys.begin(), keys.end()), INT_MIN / 2);
    EXPECT_GT(*std::max_element(keys.begin(), keys.end()), INT_MAX / 2);
}

TEST(RandomInput, TheSeedDecidesTheInput) {
    EXPECT_EQ(drawn(Op::Scan, 1000, 7), drawn(Op::Scan, 1000, 7));
    EXPECT_NE(drawn(Op::Scan, 1000, 7), drawn(Op::Scan, 1000, 8));
    EXPECT_TRUE(drawn(Op::Scan, 0).empty());
    EXPECT_EQ(drawn(Op::Compact, 1), std::vector<int>{0});
}

}  // namespace
