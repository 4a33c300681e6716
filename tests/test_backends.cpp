// Every back end in the registry, every operation it offers, through the harness's
// runner (poisoned outputs, independent references), at the edge sizes.

#include <gtest/gtest.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/device_memory.h>
#include <stream_compaction/errors.h>
#include <stream_compaction/launch.h>

#include "measure/runner.h"
#include "test_support.h"

namespace {

using StreamCompaction::Backend;
using StreamCompaction::Predicate;

struct Case {
    const Backend *backend;
    Harness::Op op;
};

void PrintTo(const Case &which, std::ostream *os) { *os << which.backend->name << " " << Harness::opName(which.op); }

std::vector<Case> allCases() {
    std::vector<Case> cases;
    for (const Backend &backend : StreamCompaction::backends()) {
        for (Harness::Op op : Harness::kAllOps) {
            if (Harness::offers(backend, op)) cases.push_back({&backend, op});
        }
    }
    return cases;
}

// One untimed call of a case on `input`, checked against the reference: the verdict.
Harness::Verdict runOnce(const Case &which, const std::vector<int> &input) {
    Harness::RunSettings settings;
    settings.warmup = 0;
    settings.reps = 1;
    const Harness::Run result = Harness::run(*which.backend, which.op, input, settings);
    return Harness::verify(which.op, result, Harness::expected(which.op, input, settings.keep));
}

class RegistryTest : public ::testing::TestWithParam<std::tuple<Case, int>> {};

TEST_P(RegistryTest, MatchesReference) {
    const auto [which, n] = GetParam();
    if (which.backend->onGpu) SKIP_WITHOUT_GPU();
    const auto seed = TestSupport::freshSeed();
    const std::vector<int> input = TestSupport::randomInput(n, seed);
    Harness::RunSettings settings;
    settings.warmup = 0;
    settings.reps = 1;
    // The textbook's predicates too, on the operations that take one.
    for (Predicate keep : {Predicate::nonZero(), Predicate::multipleOf(3), Predicate::greaterThan(10)}) {
        SCOPED_TRACE(testing::Message() << which.backend->name << " " << Harness::opName(which.op) << ", n = " << n
                                        << ", keep " << keep.name() << ", seed " << seed);
        settings.keep = keep;
        const Harness::Run result = Harness::run(*which.backend, which.op, input, settings);
        const Harness::Verdict verdict = Harness::verify(which.op, result, Harness::expected(which.op, input, keep));
        EXPECT_TRUE(verdict.passed()) << verdict.detail;
        if (which.op != Harness::Op::Compact && which.op != Harness::Op::Partition) break;
    }
}

std::string caseName(const testing::TestParamInfo<std::tuple<Case, int>> &info) {
    const Case &which = std::get<0>(info.param);
    return std::string(which.backend->name) + "_" + TestSupport::testName(which.op) + "_n" +
           std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, RegistryTest,
                         testing::Combine(testing::ValuesIn(allCases()), testing::ValuesIn(TestSupport::edgeSizes())),
                         caseName);

// The GPU back ends at the smallest and largest block sizes.
TEST(BlockSizes, GpuBackEndsAtEveryAcceptedExtreme) {
    SKIP_WITHOUT_GPU();
    const int before = StreamCompaction::Common::blockSize();
    for (int threads : {32, 96, 1024}) {
        StreamCompaction::Common::setBlockSize(threads);
        for (int n : {1, 33, 1023, 1025, (1 << 18) + 5}) {
            const auto seed = TestSupport::freshSeed();
            const std::vector<int> input = TestSupport::randomInput(n, seed);
            for (const Case &which : allCases()) {
                if (!which.backend->onGpu) continue;
                SCOPED_TRACE(testing::Message() << which.backend->name << " " << Harness::opName(which.op)
                                                << ", block " << threads << ", n = " << n << ", seed " << seed);
                const Harness::Verdict verdict = runOnce(which, input);
                EXPECT_TRUE(verdict.passed()) << verdict.detail;
            }
        }
    }
    StreamCompaction::Common::setBlockSize(before);
}

// On a GPU that allows less shared memory per block than the H200 (sm_75's 64 KiB,
// sm_86's and sm_89's 99 KiB), every GPU back end at every accepted block size is either
// correct or skipped plainly, before it runs anything: "needs N KiB of shared memory per
// block, this GPU allows 64 KiB". At 64 KiB the shared scan at 1024 threads cannot run,
// so the check of the skip is reached.
TEST(SharedMemoryLimits, EveryBackEndIsCorrectOrSkippedPlainly) {
    SKIP_WITHOUT_GPU();
    namespace Common = StreamCompaction::Common;
    const int before = Common::blockSize();
    const int n = 100003;
    const auto seed = TestSupport::freshSeed();
    const std::vector<int> input = TestSupport::randomInput(n, seed);
    for (const std::size_t limit : {std::size_t{64} * 1024, std::size_t{99} * 1024}) {
        Common::limitSharedMemoryForTesting(limit);
        const std::string allows = "this GPU allows " + std::to_string(limit / 1024) + " KiB";
        int skipped = 0;
        for (int threads = 32; threads <= 1024; threads += 32) {
            Common::setBlockSize(threads);
            for (const Case &which : allCases()) {
                if (!which.backend->onGpu) continue;
                SCOPED_TRACE(testing::Message() << which.backend->name << " " << Harness::opName(which.op)
                                                << ", block " << threads << ", limit " << limit << ", seed " << seed);
                try {
                    const Harness::Verdict verdict = runOnce(which, input);
                    EXPECT_TRUE(verdict.passed()) << verdict.detail;
                } catch (const StreamCompaction::Unsupported &e) {
                    ++skipped;
                    const std::string what = e.what();
                    EXPECT_EQ(what.rfind("needs ", 0), 0u) << what;
                    EXPECT_NE(what.find(" KiB of shared memory per block, " + allows), std::string::npos) << what;
                }
            }
        }
        if (limit == 64 * 1024) {
            EXPECT_GT(skipped, 0) << "nothing needed more than 64 KiB";
        }
    }
    Common::limitSharedMemoryForTesting(0);
    Common::setBlockSize(before);
}

// The course output's labels are "<title> <op>": a title that already names the op
// would print "radix sort sort".
TEST(Registry, TitlesDoNotNameTheirOps) {
    for (const Case &which : allCases()) {
        const std::string title = which.backend->title;
        EXPECT_EQ(title.find(Harness::opName(which.op)), std::string::npos) << title;
    }
}

// A call at n = 0 times its empty region, like any other call, rather than leaving the
// timer holding the previous call's time (which the harness would then report).
TEST(Registry, AnEmptyCallIsTimedToo) {
    SKIP_WITHOUT_GPU();
    // The median of three calls each, on 2^24 elements: another process's kernels on the
    // GPU (ctest runs GPU tests side by side) can stretch one empty call's events.
    const std::vector<int> large = TestSupport::randomInput(1 << 24, TestSupport::freshSeed());
    Harness::RunSettings settings;
    settings.warmup = 1;
    settings.reps = 3;
    for (const Case &which : allCases()) {
        if (!which.backend->onGpu) continue;
        SCOPED_TRACE(testing::Message() << which.backend->name << " " << Harness::opName(which.op));
        // Up to five tries: a call timed with a host synchronisation (Thrust's compaction
        // and partition) waits for whatever the other processes run on the GPU, which can
        // stretch any one try.
        bool shorter = false;
        double largeMs = 0, emptyMs = 0;
        for (int attempt = 0; attempt < 5 && !shorter; ++attempt) {
            largeMs = Harness::run(*which.backend, which.op, large, settings).timing.medianMs;
            emptyMs = Harness::run(*which.backend, which.op, {}, settings).timing.medianMs;
            shorter = emptyMs < largeMs;
        }
        EXPECT_TRUE(shorter) << "empty " << emptyMs << " ms, 2^24 elements " << largeMs << " ms";
    }
}

// releaseWorkspaces() frees every back end's cached device memory, Thrust's temporary
// storage included: the sweep and sc_stress rely on it between cells. Counted by the
// library (cachedDeviceBytes), not by the GPU's free memory, which the other tests that
// CTest runs beside this one move too.
TEST(Registry, ReleaseWorkspacesFreesThrustsTemporaryStorage) {
    SKIP_WITHOUT_GPU();
    namespace Common = StreamCompaction::Common;
    const Backend *thrust = StreamCompaction::findBackend("thrust");
    ASSERT_NE(thrust, nullptr);
    Common::releaseWorkspaces();
    ASSERT_EQ(Common::cachedDeviceBytes(), 0u);
    Harness::RunSettings settings;
    settings.warmup = 0;
    settings.reps = 1;
    Harness::run(*thrust, Harness::Op::Sort, TestSupport::randomInput(1 << 24, TestSupport::freshSeed()), settings);
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    EXPECT_GT(Common::cachedDeviceBytes(), 32 * kMiB);  // the sort's 64 MiB of scratch, cached
    Common::releaseWorkspaces();
    EXPECT_EQ(Common::cachedDeviceBytes(), 0u);
}

// The decoupled back end's tile status words are cached device memory too: released,
// they are counted no more, and the next call allocates and clears them again, so a
// look-back never reads a word left over from before (compaction at 101 tiles, twice).
TEST(Registry, ReleaseWorkspacesFreesDecoupledTileStatus) {
    SKIP_WITHOUT_GPU();
    namespace Common = StreamCompaction::Common;
    const Backend *decoupled = StreamCompaction::findBackend("decoupled");
    ASSERT_NE(decoupled, nullptr);
    const std::vector<int> input = TestSupport::randomInput(819203, TestSupport::freshSeed());
    Harness::RunSettings settings;
    settings.warmup = 0;
    settings.reps = 1;
    const Harness::Expected want = Harness::expected(Harness::Op::Compact, input, settings.keep);
    Common::releaseWorkspaces();
    for (int call = 0; call < 2; ++call) {
        SCOPED_TRACE(testing::Message() << "call " << call);
        const Harness::Run result = Harness::run(*decoupled, Harness::Op::Compact, input, settings);
        const Harness::Verdict verdict = Harness::verify(Harness::Op::Compact, result, want);
        EXPECT_TRUE(verdict.passed()) << verdict.detail;
        EXPECT_GT(Common::cachedDeviceBytes(), 0u);
        Common::releaseWorkspaces();
        EXPECT_EQ(Common::cachedDeviceBytes(), 0u);
    }
}

}  // namespace
