// The runner's 64-bit path: the registry's 64-bit entry points (Backend::scan64, ...),
// driven at small n through RunSettings::use64BitApi, checked against the independent
// references (int64 sums from referenceScanInt64), and the rule that picks that path.
// The CPU back end runs here; thrust, cub and decoupled need a GPU.

#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>

#include "reference.hpp"
#include "measure/runner.h"
#include "test_support.h"

namespace {

using Harness::Op;
using StreamCompaction::Backend;
using StreamCompaction::Predicate;

const Predicate kPredicates[] = {Predicate::nonZero(), Predicate::multipleOf(3), Predicate::greaterThan(10)};

Harness::RunSettings wideSettings(Predicate keep = Predicate::nonZero()) {
    return {.warmup = 1, .reps = 2, .keep = keep, .use64BitApi = true};
}

TEST(LargeRunner, The64BitPathIsTakenPast2To31Minus1OrWhenAsked) {
    const Harness::RunSettings plain;
    EXPECT_FALSE(Harness::uses64BitApi(0, plain));
    EXPECT_FALSE(Harness::uses64BitApi(2147483647, plain));
    EXPECT_TRUE(Harness::uses64BitApi(2147483648LL, plain));
    EXPECT_TRUE(Harness::uses64BitApi(1LL << 33, plain));
    EXPECT_TRUE(Harness::uses64BitApi(0, wideSettings()));
}

TEST(LargeRunner, CpuThrustCubAndDecoupledOfferTheir64BitOps) {
    for (const Backend &backend : StreamCompaction::backends()) {
        const std::string name = backend.name;
        const bool large = name == "cpu" || name == "thrust" || name == "cub";
        for (Op op : Harness::kAllOps) {
            // Sort-pairs and sort-unsigned are offered for the course's int n only.
            const bool narrowOnly = op == Op::SortPairs || op == Op::SortUnsigned;
            const bool want = !narrowOnly && (large || (name == "decoupled" && op != Op::Sort));
            EXPECT_EQ(Harness::offers64(backend, op), want) << name << " " << Harness::opName(op);
        }
    }
}

TEST(LargeRunner, ABackEndWithout64BitEntryPointsIsRefusedBeforeAnyCall) {
    const Backend *naive = StreamCompaction::findBackend("naive");
    ASSERT_NE(naive, nullptr);
    EXPECT_THROW(Harness::run(*naive, Op::Scan, std::vector<int>(8, 1), wideSettings()), std::invalid_argument);
}

TEST(LargeRunner, ScanSumsPast2To31AreExact) {
    const Backend *cpu = StreamCompaction::findBackend("cpu");
    ASSERT_NE(cpu, nullptr);
    const std::vector<int> input(1000, 1 << 30);  // int32 sums would wrap from the third element on
    const Harness::Run result = Harness::run(*cpu, Op::Scan, input, wideSettings());
    ASSERT_EQ(result.sums64.size(), input.size());
    EXPECT_EQ(result.sums64.back(), 999LL << 30);
    EXPECT_EQ(result.sums64, TestingHelpers::referenceScanInt64(input));
    EXPECT_TRUE(Harness::verify(Op::Scan, result, Harness::expected(Op::Scan, input, Predicate::nonZero(), true))
                    .passed());
}

TEST(LargeRunner, VerifyComparesInt64Sums) {
    const std::vector<int> input = {5, 7, 1 << 30, 1 << 30, 1 << 30};
    const Harness::Expected want = Harness::expected(Op::Scan, input, Predicate::nonZero(), true);
    ASSERT_TRUE(want.output.empty());
    Harness::Run run;
    run.sums64 = want.sums64;
    EXPECT_TRUE(Harness::verify(Op::Scan, run, want).passed());
    run.sums64[4] = -2147483636;  // 12 + 2^31 as an int32 sum wraps
    const Harness::Verdict wrapped = Harness::verify(Op::Scan, run, want);
    EXPECT_EQ(wrapped.kind, Harness::Verdict::Kind::FailValue);
    EXPECT_EQ(wrapped.detail, "a[4] = -2147483636, expected 2147483660");
    // int32 sums where int64 ones are expected: no element matches up.
    run.sums64.clear();
    run.output = Harness::expected(Op::Scan, input, Predicate::nonZero()).output;
    EXPECT_EQ(Harness::verify(Op::Scan, run, want).kind, Harness::Verdict::Kind::FailCount);
}

// Every op of a back end through its 64-bit entry points, at the edge sizes.
class LargeRunnerEdgeTest : public ::testing::TestWithParam<std::tuple<const char *, int>> {
protected:
    void SetUp() override {
        backend_ = StreamCompaction::findBackend(std::get<0>(GetParam()));
        ASSERT_NE(backend_, nullptr);
        if (backend_->onGpu) SKIP_WITHOUT_GPU();
        const int n = std::get<1>(GetParam());
        const auto seed = TestSupport::freshSeed();
        trace_.emplace(__FILE__, __LINE__, testing::Message() << backend_->name << ", n = " << n << ", seed " << seed);
        input_ = TestSupport::randomInput(n, seed);
    }

    // Runs `op` through the 64-bit entry points; checks it with verify() too.
    Harness::Run run(Op op, Predicate keep) const {
        const Harness::Run result = Harness::run(*backend_, op, input_, wideSettings(keep));
        const Harness::Verdict verdict = Harness::verify(op, result, Harness::expected(op, input_, keep, true));
        EXPECT_TRUE(verdict.passed()) << Harness::opName(op) << ", " << keep.name() << ": " << verdict.detail;
        return result;
    }

    const Backend *backend_ = nullptr;
    std::vector<int> input_;
    std::optional<testing::ScopedTrace> trace_;
};

TEST_P(LargeRunnerEdgeTest, ScanIntoInt64) {
    const Harness::Run result = run(Op::Scan, Predicate::nonZero());
    EXPECT_TRUE(result.output.empty());
    EXPECT_EQ(result.sums64, TestingHelpers::referenceScanInt64(input_));
}

TEST_P(LargeRunnerEdgeTest, CompactAndPartition) {
    for (Predicate keep : kPredicates) {
        const std::vector<int> kept = TestingHelpers::referenceCompact(input_, keep);
        const Harness::Run compacted = run(Op::Compact, keep);
        EXPECT_EQ(compacted.kept, static_cast<long long>(kept.size())) << keep.name();
        EXPECT_EQ(compacted.output, kept) << keep.name();
        const Harness::Run partitioned = run(Op::Partition, keep);
        EXPECT_EQ(partitioned.kept, static_cast<long long>(kept.size())) << keep.name();
        EXPECT_EQ(partitioned.output, TestingHelpers::referencePartition(input_, keep)) << keep.name();
    }
}

// Sort, for the back ends that offer it for 64-bit counts (decoupled does not).
class LargeRunnerEdgeSortTest : public LargeRunnerEdgeTest {};

TEST_P(LargeRunnerEdgeSortTest, Sort) {
    EXPECT_EQ(run(Op::Sort, Predicate::nonZero()).output, TestingHelpers::referenceSort(input_));
}

std::string edgeCaseName(const testing::TestParamInfo<std::tuple<const char *, int>> &info) {
    return std::string(std::get<0>(info.param)) + "_n" + std::to_string(std::get<1>(info.param));
}

const auto kEdgeSizes = ::testing::Values(0, 1, 2, 3, 31, 32, 33, 1000, 1 << 16, (1 << 20) + 1);

INSTANTIATE_TEST_SUITE_P(EdgeSizes, LargeRunnerEdgeTest,
                         ::testing::Combine(::testing::Values("cpu", "thrust", "cub", "decoupled"), kEdgeSizes),
                         edgeCaseName);
INSTANTIATE_TEST_SUITE_P(EdgeSizes, LargeRunnerEdgeSortTest,
                         ::testing::Combine(::testing::Values("cpu", "thrust", "cub"), kEdgeSizes), edgeCaseName);

}  // namespace
