// The CUB, shared-memory and decoupled look-back back ends, every operation each offers,
// against the independent references: the edge sizes, sizes around each back end's tile
// (shared: 2048 elements at the default block size; decoupled: 8192, and 2048 up to 2^18),
// random, all-zero and all-non-zero inputs, poisoned outputs (Harness::run), repeated
// calls that reuse the look-back's tile status, and arrays that are not 16-byte aligned.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/decoupled.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>

#include "measure/runner.h"
#include "test_support.h"

namespace {

using Harness::Op;
using StreamCompaction::Backend;
using StreamCompaction::Predicate;

struct FastCase {
    const char *backend;
    Op op;
};

void PrintTo(const FastCase &which, std::ostream *os) { *os << which.backend << " " << Harness::opName(which.op); }

const std::vector<FastCase> &fastCases() {
    static const std::vector<FastCase> cases = {
        {"cub", Op::Scan},       {"cub", Op::Compact},       {"cub", Op::Partition},       {"cub", Op::Sort},
        {"shared", Op::Scan},    {"shared", Op::Compact},    {"decoupled", Op::Scan},      {"decoupled", Op::Compact},
        {"decoupled", Op::Partition},
    };
    return cases;
}

std::vector<int> fastSizes() {
    std::vector<int> sizes = TestSupport::edgeSizes();
    const int sharedTile = 2048, decoupledTile = 8192;
    for (int n : {sharedTile - 1, sharedTile, sharedTile + 1, 5 * sharedTile + 3,
                  decoupledTile - 1, decoupledTile, decoupledTile + 1, 3 * decoupledTile + 5,
                  1 << 18, (1 << 18) + 1,     // decoupled's last size of small tiles, and its first of full ones
                  100 * decoupledTile + 3}) {  // > 32 tiles: the look-back window slides
        sizes.push_back(n);
    }
    return sizes;
}

bool takesPredicate(Op op) { return op == Op::Compact || op == Op::Partition; }

// Runs one operation twice after a warm-up (so state kept between calls is exercised)
// and checks the last result.
void expectMatches(const Backend &backend, Op op, const std::vector<int> &input, Predicate keep) {
    Harness::RunSettings settings;
    settings.warmup = 1;
    settings.reps = 2;
    settings.keep = keep;
    const Harness::Run result = Harness::run(backend, op, input, settings);
    const Harness::Verdict verdict = Harness::verify(op, result, Harness::expected(op, input, keep));
    EXPECT_TRUE(verdict.passed()) << verdict.detail;
}

/** n values in [0, 50) with about a quarter zeros: the timing input. */
std::vector<int> timingInput(int n, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<int> values(1, 49);
    std::uniform_int_distribution<int> quarter(0, 3);
    std::vector<int> input(static_cast<std::size_t>(n));
    for (int &v : input) v = quarter(engine) == 0 ? 0 : values(engine);
    return input;
}

class FastBackendTest : public ::testing::TestWithParam<std::tuple<FastCase, int>> {};

TEST_P(FastBackendTest, MatchesReference) {
    if (!StreamCompaction::Common::deviceAvailable()) GTEST_SKIP() << "no CUDA device";
    const auto [which, n] = GetParam();
    const Backend *backend = StreamCompaction::findBackend(which.backend);
    ASSERT_NE(backend, nullptr) << which.backend << " is not registered";
    ASSERT_TRUE(Harness::offers(*backend, which.op));
    const auto seed = TestSupport::freshSeed();
    std::vector<std::pair<const char *, std::vector<int>>> inputs = {{"timing input", timingInput(n, seed)}};
    if (n <= (1 << 20) + 1) {  // the largest sizes get the timing input alone, to keep the suite quick
        inputs.emplace_back("signed input", TestSupport::randomInput(n, seed));
        inputs.emplace_back("whole-range input", TestSupport::wideInput(n, seed));
        inputs.emplace_back("all zeros", std::vector<int>(static_cast<std::size_t>(n), 0));
        inputs.emplace_back("no zeros", std::vector<int>(static_cast<std::size_t>(n), 7));
    }
    for (const auto &[kind, input] : inputs) {
        SCOPED_TRACE(testing::Message() << which.backend << " " << Harness::opName(which.op) << ", n = " << n << ", "
                                        << kind << ", seed " << seed);
        expectMatches(*backend, which.op, input, Predicate::nonZero());
    }
    if (takesPredicate(which.op) && n <= (1 << 20) + 1) {
        for (Predicate keep : {Predicate::multipleOf(3), Predicate::greaterThan(10)}) {
            SCOPED_TRACE(testing::Message() << which.backend << " " << Harness::opName(which.op) << ", n = " << n
                                            << ", keep " << keep.name() << ", seed " << seed);
            expectMatches(*backend, which.op, TestSupport::randomInput(n, seed), keep);
        }
    }
}

std::string fastCaseName(const testing::TestParamInfo<std::tuple<FastCase, int>> &info) {
    const FastCase &which = std::get<0>(info.param);
    return std::string(which.backend) + "_" + TestSupport::testName(which.op) + "_n" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Sizes, FastBackendTest,
                         testing::Combine(testing::ValuesIn(fastCases()), testing::ValuesIn(fastSizes())),
                         fastCaseName);

// The look-back's status words are kept between calls and told apart by the call's
// epoch: alternate large and small calls of all three operations, checking each.
TEST(DecoupledLookBack, CallsOfChangingSizeReuseTileStatus) {
    if (!StreamCompaction::Common::deviceAvailable()) GTEST_SKIP() << "no CUDA device";
    const Backend *decoupled = StreamCompaction::findBackend("decoupled");
    ASSERT_NE(decoupled, nullptr);
    const auto seed = TestSupport::freshSeed();
    for (int n : {(1 << 22) + 3, 5, 4097, 1 << 22, 1, 300000, (1 << 22) + 3}) {
        const std::vector<int> input = timingInput(n, seed + static_cast<std::uint64_t>(n));
        for (Op op : {Op::Scan, Op::Compact, Op::Partition}) {
            SCOPED_TRACE(testing::Message() << "decoupled " << Harness::opName(op) << ", n = " << n << ", seed " << seed);
            expectMatches(*decoupled, op, input, Predicate::nonZero());
        }
    }
}

// Arrays that start 4, 8 or 12 bytes past a 16-byte boundary: the vector loads and
// stores must fall back to scalar ones, and the results must not change.
TEST(DecoupledLookBack, UnalignedArrays) {
    if (!StreamCompaction::Common::deviceAvailable()) GTEST_SKIP() << "no CUDA device";
    using StreamCompaction::Common::DeviceBuffer;
    namespace Decoupled = StreamCompaction::Decoupled;
    const int n = 3 * 8192 + 7;
    const auto seed = TestSupport::freshSeed();
    const std::vector<int> input = timingInput(n, seed);
    const Predicate keep = Predicate::nonZero();
    DeviceBuffer<int> dIn(n + 4), dOut(n + 4);
    for (int inShift : {0, 1, 2, 3}) {
        const int outShift = (inShift + 1) % 4;
        SCOPED_TRACE(testing::Message() << "input " << inShift << " ints and output " << outShift
                                        << " ints past alignment, seed " << seed);
        SC_CUDA_CHECK(cudaMemcpy(dIn.get() + inShift, input.data(), n * sizeof(int), cudaMemcpyHostToDevice));
        int *out = dOut.get() + outShift;
        const int *in = dIn.get() + inShift;
        auto download = [&](int count) {
            std::vector<int> output(static_cast<std::size_t>(count));
            SC_CUDA_CHECK(cudaMemcpy(output.data(), out, count * sizeof(int), cudaMemcpyDeviceToHost));
            return output;
        };

        dOut.fillBytes(Harness::kPoisonByte, n + 4);
        Decoupled::backend().scan(n, out, in);
        EXPECT_EQ(download(n), Harness::expected(Op::Scan, input, keep).output);

        dOut.fillBytes(Harness::kPoisonByte, n + 4);
        const Harness::Expected compacted = Harness::expected(Op::Compact, input, keep);
        ASSERT_EQ(TestSupport::deviceKept(Decoupled::backend().compact, n, out, in, keep), compacted.kept);
        EXPECT_EQ(download(compacted.kept), compacted.output);

        dOut.fillBytes(Harness::kPoisonByte, n + 4);
        const Harness::Expected partitioned = Harness::expected(Op::Partition, input, keep);
        ASSERT_EQ(TestSupport::deviceKept(Decoupled::backend().partition, n, out, in, keep), partitioned.kept);
        EXPECT_EQ(download(n), partitioned.output);
    }
}

}  // namespace
