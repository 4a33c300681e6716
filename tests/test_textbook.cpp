// The textbook's compaction chapter (stream_compaction/textbook.h): its worked examples,
// figure for figure, then compaction, stable partition (textbook, CPU, Thrust) and the
// multi-way partition against independent references at the edge sizes, on random,
// all-equal, sorted and reversed inputs, with poisoned outputs.

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "test_support.h"

#include <reference.hpp>
#include <testing_helpers.hpp>
#include <stream_compaction/cpu.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/textbook.h>

#include "textbook_test_support.h"

namespace {

namespace Textbook = StreamCompaction::Textbook;
using StreamCompaction::Predicate;
using Textbook::BucketFunction;
using TextbookTests::Shape;

std::vector<int> iota(int n) {
    std::vector<int> values(static_cast<std::size_t>(n));
    std::iota(values.begin(), values.end(), 0);
    return values;
}

std::vector<int> slice(const std::vector<int> &values, std::size_t from, std::size_t to) {
    return std::vector<int>(values.begin() + from, values.begin() + to);
}

// ---- The chapter's worked examples ----

// The chapter's blocks hold 256 values; ours hold kItemsPerThread per thread.
constexpr int kChapterBlock = 256;

// The chapter's example on 0..n-1 at its block size, which holds while the example
// lives: the three kernels' figures keeping the multiples of 3, and the whole poisoned
// output they wrote.
struct ChapterExample {
    explicit ChapterExample(int n) : input(iota(n)) {
        output = TextbookTests::runPoisoned(input, [&](int *dOut, const int *dIn) {
            steps = Textbook::compactDeviceSteps(n, dOut, dIn, Predicate::multipleOf(3));
        });
    }
    TextbookTests::BlockSizeScope blocks{kChapterBlock / Textbook::kItemsPerThread};
    const std::vector<int> input;
    std::vector<int> output;
    Textbook::CompactionSteps steps;
};

TEST(TextbookWorkedExample, Section61SingleBlockKeepsTheMultiplesOfThree) {
    SKIP_WITHOUT_GPU();
    const ChapterExample example(256);
    EXPECT_EQ(example.steps.kept, 86);
    EXPECT_EQ(example.steps.blockCounts, std::vector<int>({86}));
    EXPECT_EQ(example.steps.blockOffsets, std::vector<int>({0}));
    EXPECT_EQ(slice(example.output, 0, 8), std::vector<int>({0, 3, 6, 9, 12, 15, 18, 21}));
    EXPECT_EQ(slice(example.output, 78, 86), std::vector<int>({234, 237, 240, 243, 246, 249, 252, 255}));
    EXPECT_EQ(slice(example.output, 0, 86), TestingHelpers::referenceCompact(example.input, Predicate::multipleOf(3)));
}

TEST(TextbookWorkedExample, Section62ThreeKernelsOverEightBlocks) {
    SKIP_WITHOUT_GPU();
    const ChapterExample example(2048);
    EXPECT_EQ(example.steps.kept, 683);
    EXPECT_EQ(example.steps.blockCounts, std::vector<int>({86, 85, 85, 86, 85, 85, 86, 85}));
    EXPECT_EQ(example.steps.blockOffsets, std::vector<int>({0, 86, 171, 256, 342, 427, 512, 598}));
    // The values straddling block 1's and block 2's kept elements.
    EXPECT_EQ(slice(example.output, 168, 174), std::vector<int>({504, 507, 510, 513, 516, 519}));
    EXPECT_EQ(slice(example.output, 0, 683), TestingHelpers::referenceCompact(example.input, Predicate::multipleOf(3)));
    // compactDevice() is the same three kernels without the figures.
    const std::vector<int> again = TextbookTests::runPoisoned(example.input, [&](int *dOut, const int *dIn) {
        EXPECT_EQ(TestSupport::deviceKept(Textbook::backend().compact, 2048, dOut, dIn, Predicate::multipleOf(3)), 683);
    });
    EXPECT_EQ(slice(again, 0, 683), slice(example.output, 0, 683));
}

TEST(TextbookWorkedExample, Section63StablePartitionKeepsBothSidesInOrder) {
    SKIP_WITHOUT_GPU();
    TextbookTests::BlockSizeScope blocks(kChapterBlock / Textbook::kItemsPerThread);
    // The hand trace: 0..7, multiples of 3 first.
    int kept = -1;
    const std::vector<int> traced = TextbookTests::runPoisoned(
        iota(8), [&](int *dOut, const int *dIn) { kept = TestSupport::deviceKept(Textbook::backend().partition, 8, dOut, dIn, Predicate::multipleOf(3)); });
    EXPECT_EQ(kept, 3);
    EXPECT_EQ(traced, std::vector<int>({0, 3, 6, 1, 2, 4, 5, 7}));
    // The kernel's run: 0..255.
    const std::vector<int> input = iota(256);
    const std::vector<int> output = TextbookTests::runPoisoned(
        input, [&](int *dOut, const int *dIn) { kept = TestSupport::deviceKept(Textbook::backend().partition, 256, dOut, dIn, Predicate::multipleOf(3)); });
    EXPECT_EQ(kept, 86);
    EXPECT_EQ(slice(output, 0, 6), std::vector<int>({0, 3, 6, 9, 12, 15}));
    EXPECT_EQ(slice(output, 83, 89), std::vector<int>({249, 252, 255, 1, 2, 4}));
    EXPECT_EQ(slice(output, 250, 256), std::vector<int>({247, 248, 250, 251, 253, 254}));
    EXPECT_EQ(output, TestingHelpers::referencePartition(input, Predicate::multipleOf(3)));
}

// The CPU baselines on the chapter's inputs, into poisoned outputs: the kept values, not
// only their count, and every element of the partition.
TEST(TextbookWorkedExample, CpuBaselinesGiveTheChaptersFigures) {
    const std::vector<int> input = iota(2048);
    std::vector<int> output = TestSupport::poisoned(2048);
    ASSERT_EQ(StreamCompaction::CPU::compactWithoutScan(2048, output.data(), input.data(), Predicate::multipleOf(3)),
              683);
    EXPECT_EQ(slice(output, 0, 683), TestingHelpers::referenceCompact(input, Predicate::multipleOf(3)));
    output = TestSupport::poisoned(8);
    EXPECT_EQ(StreamCompaction::CPU::partition(8, output.data(), iota(8).data(), Predicate::multipleOf(3)), 3);
    EXPECT_EQ(output, std::vector<int>({0, 3, 6, 1, 2, 4, 5, 7}));
}

// ---- Compaction and partition against the references ----

struct OpCase {
    const char *backend;
    Harness::Op op;
};

using ShapedCase = std::tuple<OpCase, Shape, int>;

class TextbookShapes : public ::testing::TestWithParam<ShapedCase> {};

TEST_P(TextbookShapes, MatchesReferenceForEveryPredicate) {
    const auto [which, shape, n] = GetParam();
    if (std::string(which.backend) != "cpu") SKIP_WITHOUT_GPU();
    const auto seed = TestSupport::freshSeed();
    const std::vector<int> input = TextbookTests::makeInput(shape, n, seed);
    for (Predicate keep : {Predicate::nonZero(), Predicate::multipleOf(3), Predicate::greaterThan(10)}) {
        SCOPED_TRACE(testing::Message() << which.backend << " " << Harness::opName(which.op) << ", "
                                        << TextbookTests::shapeName(shape) << ", n = " << n << ", keep "
                                        << keep.name() << ", seed " << seed);
        TextbookTests::expectMatchesReference(which.backend, which.op, input, keep);
    }
}

std::vector<ShapedCase> shapedCases() {
    const OpCase ops[] = {{"textbook", Harness::Op::Compact},
                          {"textbook", Harness::Op::Partition},
                          {"thrust", Harness::Op::Partition},
                          {"cpu", Harness::Op::Partition}};
    std::vector<ShapedCase> cases;
    for (const OpCase &which : ops) {
        for (Shape shape : {Shape::Random, Shape::FullRange, Shape::AllEqual, Shape::Sorted, Shape::Reversed}) {
            for (int n : TestSupport::edgeSizes()) {
                // The largest size once per operation: it costs seconds of CPU reference.
                if (n > (1 << 21) && shape != Shape::Random) continue;
                cases.emplace_back(which, shape, n);
            }
        }
    }
    return cases;
}

std::string shapedCaseName(const testing::TestParamInfo<ShapedCase> &info) {
    const auto &[which, shape, n] = info.param;
    return std::string(which.backend) + "_" + Harness::opName(which.op) + "_" + TextbookTests::shapeName(shape) +
           "_n" + std::to_string(n);
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, TextbookShapes, testing::ValuesIn(shapedCases()), shapedCaseName);

// ---- Multi-way partition ----

// The independent reference: bucket 0's elements in order, then bucket 1's, ...
std::vector<int> referenceMultiPartition(const std::vector<int> &input, BucketFunction bucketOf,
                                         std::vector<int> &offsets) {
    std::vector<int> output;
    offsets.assign(1, 0);
    for (int bucket = 0; bucket < bucketOf.count(); ++bucket) {
        std::copy_if(input.begin(), input.end(), std::back_inserter(output),
                     [&](int v) { return bucketOf(v) == bucket; });
        offsets.push_back(static_cast<int>(output.size()));
    }
    return output;
}

void expectMultiPartitionMatches(const std::vector<int> &input, BucketFunction bucketOf) {
    SCOPED_TRACE(testing::Message() << "buckets " << bucketOf.name());
    const int n = static_cast<int>(input.size());
    std::vector<int> offsets;
    const std::vector<int> output = TextbookTests::runPoisoned(
        input, [&](int *dOut, const int *dIn) { offsets = Textbook::multiPartitionDevice(n, dOut, dIn, bucketOf); });
    std::vector<int> expectedOffsets;
    const std::vector<int> expected = referenceMultiPartition(input, bucketOf, expectedOffsets);
    EXPECT_EQ(offsets, expectedOffsets);
    const long long mismatch = TestingHelpers::firstMismatch<int>(n, output.data(), expected.data());
    EXPECT_EQ(mismatch, -1) << "output[" << mismatch << "] = " << (mismatch >= 0 ? output[mismatch] : 0)
                            << ", expected " << (mismatch >= 0 ? expected[mismatch] : 0);
}

class TextbookMultiPartition : public ::testing::TestWithParam<std::tuple<Shape, int>> {};

TEST_P(TextbookMultiPartition, MatchesOneCopyPerBucket) {
    SKIP_WITHOUT_GPU();
    const auto input = TextbookTests::caseInput(GetParam());
    for (int k : {4, 1, 3, 16}) expectMultiPartitionMatches(input.values, BucketFunction::modulo(k));
    expectMultiPartitionMatches(input.values, BucketFunction::signedDigit(28, 4));
    expectMultiPartitionMatches(input.values, BucketFunction::digit(0, 2));
}

std::vector<std::tuple<Shape, int>> multiPartitionCases() {
    std::vector<std::tuple<Shape, int>> cases;
    for (Shape shape : {Shape::Random, Shape::FullRange, Shape::Reversed}) {
        for (int n : TestSupport::edgeSizes()) {
            if (n > (1 << 21) && shape != Shape::Random) continue;
            cases.emplace_back(shape, n);
        }
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, TextbookMultiPartition, testing::ValuesIn(multiPartitionCases()),
                         [](const testing::TestParamInfo<std::tuple<Shape, int>> &info) {
                             return std::string(TextbookTests::shapeName(std::get<0>(info.param))) + "_n" +
                                    std::to_string(std::get<1>(info.param));
                         });

TEST(TextbookMultiPartitionLimits, RejectsBucketCountsTheSplitCannotHold) {
    SKIP_WITHOUT_GPU();
    StreamCompaction::Common::DeviceBuffer<int> in(8), out(8);
    EXPECT_THROW(Textbook::multiPartitionDevice(8, out.get(), in.get(), BucketFunction::modulo(17)),
                 std::invalid_argument);
    EXPECT_THROW(Textbook::multiPartitionDevice(8, out.get(), in.get(), BucketFunction::modulo(0)),
                 std::invalid_argument);
    EXPECT_THROW(Textbook::multiPartitionDevice(8, out.get(), in.get(), BucketFunction::digit(0, 5)),
                 std::invalid_argument);
}

TEST(TextbookBucketFunction, NegativeValuesTakeNonNegativeBuckets) {
    EXPECT_EQ(BucketFunction::modulo(4)(-1), 3);
    EXPECT_EQ(BucketFunction::modulo(4)(-4), 0);
    EXPECT_EQ(BucketFunction::modulo(4)(6), 2);
    EXPECT_EQ(BucketFunction::digit(28, 4)(-1), 15);
    EXPECT_EQ(BucketFunction::signedDigit(28, 4)(-1), 7);
    EXPECT_EQ(BucketFunction::signedDigit(28, 4)(0), 8);
    EXPECT_EQ(BucketFunction::modulo(4).count(), 4);
    EXPECT_EQ(BucketFunction::digit(0, 4).count(), 16);
    EXPECT_EQ(BucketFunction::modulo(4).name(), "mod:4");
}

// ---- Block sizes: padding past a non-power-of-two block, and the most shared memory ----

TEST(TextbookBlockSizes, EveryOperationAtTheExtremes) {
    SKIP_WITHOUT_GPU();
    for (int threads : {32, 96, 128, 256, 1024}) {
        TextbookTests::BlockSizeScope blocks(threads);
        const int tile = threads * Textbook::kItemsPerThread;
        for (int n : {1, threads + 1, tile - 1, tile, tile + 1, 3 * tile - 5, (1 << 16) + 3}) {
            const auto seed = TestSupport::freshSeed();
            SCOPED_TRACE(testing::Message() << "block " << threads << ", n = " << n << ", seed " << seed);
            const std::vector<int> input = TextbookTests::makeInput(Shape::Random, n, seed);
            for (Harness::Op op : {Harness::Op::Compact, Harness::Op::Partition}) {
                TextbookTests::expectMatchesReference("textbook", op, input, Predicate::multipleOf(3));
            }
            expectMultiPartitionMatches(input, BucketFunction::modulo(16));
        }
    }
}

// ---- The course-style host API ----

TEST(TextbookHostApi, CompactAndPartitionHostArrays) {
    SKIP_WITHOUT_GPU();
    const auto seed = TestSupport::freshSeed();
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const std::vector<int> input = TextbookTests::makeInput(Shape::Random, 100003, seed);
    const int n = static_cast<int>(input.size());
    std::vector<int> output = TestSupport::poisoned(n);
    const std::vector<int> compacted = TestingHelpers::referenceCompact(input, Predicate::nonZero());
    ASSERT_EQ(StreamCompaction::hostCompact(Textbook::backend(), n, output.data(), input.data()), static_cast<int>(compacted.size()));
    EXPECT_EQ(slice(output, 0, compacted.size()), compacted);
    output = TestSupport::poisoned(n);  // not the compaction's output: every element must be written again
    EXPECT_EQ(StreamCompaction::hostPartition(Textbook::backend(), n, output.data(), input.data(), Predicate::greaterThan(10)),
              std::count_if(input.begin(), input.end(), Predicate::greaterThan(10)));
    EXPECT_EQ(output, TestingHelpers::referencePartition(input, Predicate::greaterThan(10)));
}

}  // namespace
