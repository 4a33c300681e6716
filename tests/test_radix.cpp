// The radix sorts (stream_compaction/radix.h), with the CPU and Thrust sorts they are
// compared with: signed keys over the whole int range, unsigned keys, the one-bit and
// 4-bit versions, and the key-value variant's stability against std::stable_sort, at the
// edge sizes, on random, all-equal, sorted and reversed inputs, with poisoned outputs.

#include <algorithm>
#include <climits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <reference.hpp>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/radix.h>
#include <stream_compaction/textbook.h>
#include <testing_helpers.hpp>

#include "textbook_test_support.h"

namespace {

namespace Radix = StreamCompaction::Radix;
using StreamCompaction::Predicate;
using TextbookTests::Shape;

std::vector<Shape> allShapes() {
    return {Shape::Random, Shape::FullRange, Shape::AllEqual, Shape::Sorted, Shape::Reversed};
}

// The largest size once per operation, on full-range keys: it costs seconds of CPU reference.
bool worthRunning(Shape shape, int n) { return n <= (1 << 21) || shape == Shape::FullRange; }

template <typename T>
void expectSameArrays(const std::vector<T> &actual, const std::vector<T> &expected) {
    ASSERT_EQ(actual.size(), expected.size());
    const long long i = TestingHelpers::firstMismatch<T>(static_cast<long long>(actual.size()), actual.data(),
                                                         expected.data());
    EXPECT_EQ(i, -1) << "a[" << i << "] = " << (i >= 0 ? actual[i] : T()) << ", expected "
                     << (i >= 0 ? expected[i] : T());
}

// ---- Every registered sort, through the harness ----

using SortCase = std::tuple<const char *, Shape, int>;

class RadixRegisteredSorts : public ::testing::TestWithParam<SortCase> {};

TEST_P(RadixRegisteredSorts, MatchReference) {
    const auto [backend, shape, n] = GetParam();
    if (std::string(backend) != "cpu") SKIP_WITHOUT_GPU();
    const auto seed = TestSupport::freshSeed();
    SCOPED_TRACE(testing::Message() << backend << " sort, " << TextbookTests::shapeName(shape) << ", n = " << n
                                    << ", seed " << seed);
    TextbookTests::expectMatchesReference(backend, Harness::Op::Sort, TextbookTests::makeInput(shape, n, seed),
                                          Predicate::nonZero());
}

std::vector<SortCase> registeredSortCases() {
    std::vector<SortCase> cases;
    for (const char *backend : {"radix", "thrust", "cpu"}) {
        for (Shape shape : allShapes()) {
            for (int n : TestSupport::edgeSizes()) {
                if (worthRunning(shape, n)) cases.emplace_back(backend, shape, n);
            }
        }
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, RadixRegisteredSorts, testing::ValuesIn(registeredSortCases()),
                         [](const testing::TestParamInfo<SortCase> &info) {
                             return std::string(std::get<0>(info.param)) + "_" +
                                    TextbookTests::shapeName(std::get<1>(info.param)) + "_n" +
                                    std::to_string(std::get<2>(info.param));
                         });

// ---- The variants outside the registry ----

using ShapeCase = std::tuple<Shape, int>;

std::vector<ShapeCase> shapeCases() {
    std::vector<ShapeCase> cases;
    for (Shape shape : allShapes()) {
        for (int n : TestSupport::edgeSizes()) {
            if (worthRunning(shape, n)) cases.emplace_back(shape, n);
        }
    }
    return cases;
}

std::string shapeCaseName(const testing::TestParamInfo<ShapeCase> &info) {
    return std::string(TextbookTests::shapeName(std::get<0>(info.param))) + "_n" +
           std::to_string(std::get<1>(info.param));
}

class RadixVariants : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(RadixVariants, OneBitPerPassMatchesReference) {
    SKIP_WITHOUT_GPU();
    const auto input = TextbookTests::caseInput(GetParam());
    const int n = static_cast<int>(input.values.size());
    const std::vector<int> output = TextbookTests::runPoisoned(
        input.values, [n](int *dOut, const int *dIn) { Radix::sortOneBitDevice(n, dOut, dIn); });
    expectSameArrays(output, TestingHelpers::referenceSort(input.values));
}

TEST_P(RadixVariants, UnsignedKeysMatchReference) {
    SKIP_WITHOUT_GPU();
    // The same bit patterns read as unsigned: negative ints become the largest keys.
    const auto signedInput = TextbookTests::caseInput(GetParam());
    const std::vector<unsigned int> input(signedInput.values.begin(), signedInput.values.end());
    const int n = static_cast<int>(input.size());
    const std::vector<unsigned int> output = TextbookTests::runPoisoned(
        input, [n](unsigned int *dOut, const unsigned int *dIn) { Radix::sortUnsignedDevice(n, dOut, dIn); });
    std::vector<unsigned int> expected = input;
    std::sort(expected.begin(), expected.end());
    expectSameArrays(output, expected);
}

// Keys with many ties and each key's input index as its value: a stable sort keeps the
// indices of equal keys ascending, which std::stable_sort gives independently.
void expectPairsStable(const std::vector<int> &keys, int digitBits) {
    const int n = static_cast<int>(keys.size());
    std::vector<int> indices(keys.size());
    std::iota(indices.begin(), indices.end(), 0);
    StreamCompaction::Common::DeviceBuffer<int> keysIn(keys.size()), valuesIn(keys.size()), keysOut(keys.size()),
        valuesOut(keys.size());
    keysIn.upload(keys.data(), keys.size());
    valuesIn.upload(indices.data(), indices.size());
    keysOut.fillBytes(Harness::kPoisonByte, keys.size());
    valuesOut.fillBytes(Harness::kPoisonByte, keys.size());
    Radix::sortPairsDevice(n, keysOut.get(), valuesOut.get(), keysIn.get(), valuesIn.get(), digitBits);
    std::vector<int> sortedKeys(keys.size()), sortedValues(keys.size());
    keysOut.download(sortedKeys.data(), sortedKeys.size());
    valuesOut.download(sortedValues.data(), sortedValues.size());

    std::vector<std::pair<int, int>> pairs(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) pairs[i] = {keys[i], indices[i]};
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const std::pair<int, int> &a, const std::pair<int, int> &b) { return a.first < b.first; });
    std::vector<int> expectedKeys(keys.size()), expectedValues(keys.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        expectedKeys[i] = pairs[i].first;
        expectedValues[i] = pairs[i].second;
    }
    {
        SCOPED_TRACE("keys");
        expectSameArrays(sortedKeys, expectedKeys);
    }
    {
        SCOPED_TRACE("values (input indices)");
        expectSameArrays(sortedValues, expectedValues);
    }
}

TEST_P(RadixVariants, KeyValueSortIsStable) {
    SKIP_WITHOUT_GPU();
    // Random keys lie in [-100, 100): every key repeats once n passes a few hundred.
    expectPairsStable(TextbookTests::caseInput(GetParam()).values, Radix::kDigitBits);
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, RadixVariants, testing::ValuesIn(shapeCases()), shapeCaseName);

TEST(RadixDigitWidths, EveryWidthSortsAndKeepsTiesInOrder) {
    SKIP_WITHOUT_GPU();
    const int n = 100003;
    for (int digitBits = 1; digitBits <= 4; ++digitBits) {
        const auto seed = TestSupport::freshSeed();
        SCOPED_TRACE(testing::Message() << digitBits << "-bit digits, seed " << seed);
        expectPairsStable(TextbookTests::makeInput(Shape::Random, n, seed), digitBits);
        const std::vector<int> keys = TextbookTests::makeInput(Shape::FullRange, n, seed);
        const std::vector<unsigned int> input(keys.begin(), keys.end());
        const std::vector<unsigned int> output = TextbookTests::runPoisoned(
            input, [&](unsigned int *dOut, const unsigned int *dIn) { Radix::sortUnsignedDevice(n, dOut, dIn, digitBits); });
        std::vector<unsigned int> expected = input;
        std::sort(expected.begin(), expected.end());
        expectSameArrays(output, expected);
    }
}

TEST(RadixDigitWidths, RejectsWidthsTheSplitCannotHold) {
    SKIP_WITHOUT_GPU();
    StreamCompaction::Common::DeviceBuffer<unsigned int> in(8), out(8);
    EXPECT_THROW(Radix::sortUnsignedDevice(8, out.get(), in.get(), 0), std::invalid_argument);
    EXPECT_THROW(Radix::sortUnsignedDevice(8, out.get(), in.get(), 5), std::invalid_argument);
}

TEST(RadixExtremes, IntLimitsAndSignBoundary) {
    SKIP_WITHOUT_GPU();
    std::vector<int> input = {INT_MAX, 0, -1, INT_MIN, 1, INT_MIN + 1, INT_MAX - 1, -2, 2, 0, INT_MIN, INT_MAX};
    std::mt19937 engine(5);
    std::shuffle(input.begin(), input.end(), engine);
    const int n = static_cast<int>(input.size());
    const std::vector<int> expected = TestingHelpers::referenceSort(input);
    expectSameArrays(TextbookTests::runPoisoned(input, [n](int *dOut, const int *dIn) { Radix::backend().sort(n, dOut, dIn); }),
                     expected);
    expectSameArrays(
        TextbookTests::runPoisoned(input, [n](int *dOut, const int *dIn) { Radix::sortOneBitDevice(n, dOut, dIn); }),
        expected);
}

TEST(RadixBlockSizes, SortsAtTheExtremes) {
    SKIP_WITHOUT_GPU();
    for (int threads : {32, 96, 1024}) {
        TextbookTests::BlockSizeScope blocks(threads);
        const int tile = threads * StreamCompaction::Textbook::kItemsPerThread;
        for (int n : {1, threads + 1, tile - 1, tile + 1, (1 << 16) + 3}) {
            const auto seed = TestSupport::freshSeed();
            SCOPED_TRACE(testing::Message() << "block " << threads << ", n = " << n << ", seed " << seed);
            TextbookTests::expectMatchesReference("radix", Harness::Op::Sort,
                                                  TextbookTests::makeInput(Shape::FullRange, n, seed),
                                                  Predicate::nonZero());
            expectPairsStable(TextbookTests::makeInput(Shape::Random, n, seed), Radix::kDigitBits);
        }
    }
}

TEST(RadixHostApi, SortsHostArrays) {
    SKIP_WITHOUT_GPU();
    const auto seed = TestSupport::freshSeed();
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const std::vector<int> input = TextbookTests::makeInput(Shape::FullRange, 100003, seed);
    std::vector<int> output = TestSupport::poisoned(static_cast<int>(input.size()));
    StreamCompaction::hostSort(Radix::backend(), static_cast<int>(input.size()), output.data(), input.data());
    expectSameArrays(output, TestingHelpers::referenceSort(input));
}

}  // namespace
