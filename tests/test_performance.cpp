// The report's performance.md (report/performance.h) from sweeps made by hand, as a GPU
// would make them: the block-size table with each column's fastest in bold, the
// array-size tables and sentences (where the GPU passes the CPU, the share of the copy,
// the trend), the bottlenecks, the explain data where there is some, and markdown that
// GitHub renders as meant.

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "commands/report.h"
#include "gfm_check.h"
#include "report/performance.h"

namespace {

using Harness::Op;
using Harness::Row;

constexpr double kCopyGBs = 4000;

Row rowOf(const std::string &backend, Op op, long long n, bool npot, std::optional<int> block, double ms) {
    Row row;
    row.op = op;
    row.backend = backend;
    row.size = n;
    row.npot = npot;
    row.blockSize = block;
    row.timing.samples = 10;
    row.timing.medianMs = ms;
    const double bytes = op == Op::Scan ? 8.0 * n : 7.0 * n;
    row.bandwidthGBs = bytes / (ms * 1e6);
    row.copyFraction = *row.bandwidthGBs / kCopyGBs;
    return row;
}

// Times that make a known story: the CPU linear, naive n log n, work-efficient and Thrust
// linear after a launch floor, the references close to the copy.
double modelMs(const std::string &backend, double n) {
    if (backend == "cpu") return n / 1e6;
    if (backend == "naive") return 0.02 + n * std::log2(n) / 2e8;
    if (backend == "efficient") return 0.05 + n / 5e7;
    if (backend == "thrust") return 0.01 + n / 3.5e8;
    if (backend == "decoupled") return 0.005 + n / 5e8;
    return 0.006 + n / 3.7e8;  // cub
}

Harness::JsonReport sizesReport() {
    Harness::JsonReport report;
    report.context.gpu = Harness::DeviceInfo{};
    report.context.gpu->name = "NVIDIA H200";
    report.context.gpu->computeMajor = 9;
    report.context.gpu->multiprocessors = 132;
    report.context.copyBandwidthGBs = kCopyGBs;
    report.context.hostCpu = "AMD EPYC 9654";
    for (long long n = 1 << 10; n <= 1 << 26; n *= 4) {
        for (const char *name : {"cpu", "naive", "efficient", "thrust", "decoupled", "cub"}) {
            // As a sweep writes them: the back ends that take a block size carry the one it ran at.
            const std::string backend = name;
            const std::optional<int> block =
                backend == "naive" || backend == "efficient" ? std::optional<int>(128) : std::nullopt;
            report.rows.push_back(rowOf(name, Op::Scan, n, false, block, modelMs(name, n)));
            if (backend != "naive" && backend != "thrust") {
                report.rows.push_back(rowOf(name, Op::Compact, n, false, block, 1.5 * modelMs(name, n)));
            }
        }
    }
    return report;
}

// Naive fastest at 256 threads, work-efficient at 128; SIZE - 3 alike.
Harness::JsonReport blocksReport() {
    Harness::JsonReport report;
    report.context.gpu = Harness::DeviceInfo{};
    report.context.gpu->name = "NVIDIA H200";
    const long long n = 1 << 24;
    for (int block : {128, 256, 512, 1024}) {
        for (bool npot : {false, true}) {
            const long long size = npot ? n - 3 : n;
            report.rows.push_back(rowOf("naive", Op::Scan, size, npot, block, block == 256 ? 2.0 : 2.5));
            report.rows.push_back(rowOf("efficient", Op::Scan, size, npot, block, 1.0 + block / 1024.0));
            report.rows.push_back(rowOf("efficient", Op::Compact, size, npot, block, 2.0 + block / 1024.0));
        }
    }
    return report;
}

Harness::PerformanceInputs inputsOf() {
    Harness::PerformanceInputs inputs;
    inputs.whose = "The project's own course back ends (cpu, naive, efficient, thrust)";
    inputs.command = "cis565_stream_compaction report";
    inputs.blocks = blocksReport();
    inputs.sizes = sizesReport();
    inputs.sizesBlockSize = 128;
    inputs.images = {"sizes-scan-time.png", "sizes-compact-bandwidth.png"};
    inputs.testOutput = "****************\n** SCAN TESTS **\n****************\n==== cpu scan, power-of-two ====\n    passed\n";
    return inputs;
}

bool has(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

TEST(Performance, TheSectionsPasteIntoGitHub) {
    const std::string md = Harness::performanceMarkdown(inputsOf());
    EXPECT_TRUE(GfmCheck::problems(md).empty()) << GfmCheck::describe(GfmCheck::problems(md)) << md;
    for (const char *heading : {"## Performance Analysis\n", "### 1. Block size optimisation\n", "### 2. Array size",
                                "### 3. Bottlenecks\n", "### 4. Thrust's timeline\n", "### 5. Test output\n"}) {
        EXPECT_TRUE(has(md, heading)) << heading;
    }
    EXPECT_TRUE(has(md, "measured on NVIDIA H200 (sm_90, 132 SMs), host CPU AMD EPYC 9654 by `cis565_stream_compaction report`"));
    EXPECT_TRUE(has(md, "These are the project's own course back ends, not a student's"));
    EXPECT_TRUE(has(md, "```text\n****************\n** SCAN TESTS **\n"));
}

TEST(Performance, TheBlockSizeTableMarksEachColumnsFastest) {
    const std::string md = Harness::performanceMarkdown(inputsOf());
    EXPECT_TRUE(has(md, "| block size | naive scan, power-of-two | naive scan, non-power-of-two | work-efficient scan, "
                        "power-of-two | work-efficient scan, non-power-of-two | work-efficient compact, power-of-two | "
                        "work-efficient compact, non-power-of-two |"));
    EXPECT_TRUE(has(md, "| 128 | 2.50 | 2.50 | **1.12** | **1.12** | **2.12** | **2.12** |"));
    EXPECT_TRUE(has(md, "| 256 | **2.00** | **2.00** | 1.25 | 1.25 | 2.25 | 2.25 |"));
    EXPECT_TRUE(has(md, "Fastest at the power of two (in bold): the naive scan at 256 threads, the work-efficient scan "
                        "at 128 threads, the work-efficient compact at 128 threads."));
    EXPECT_TRUE(has(md, "The array sizes below run at 128 threads per block."));
    EXPECT_EQ(Harness::bestBlockSize(*inputsOf().blocks, "naive", Op::Scan), 256);
    EXPECT_EQ(Harness::bestBlockSize(*inputsOf().blocks, "cpu", Op::Scan), std::nullopt);
}

// A submission without a setBlockSize hook: its rows carry no block size, each measured
// once, and nothing says that its array sizes ran at a block size.
TEST(Performance, FunctionsThatTakeNoBlockSizeAreSaidToBeMeasuredOnce) {
    Harness::PerformanceInputs inputs = inputsOf();
    inputs.blocks->rows.clear();
    for (bool npot : {false, true}) {
        const long long n = npot ? (1 << 24) - 3 : 1 << 24;
        inputs.blocks->rows.push_back(rowOf("naive", Op::Scan, n, npot, std::nullopt, 2.0));
        inputs.blocks->rows.push_back(rowOf("efficient", Op::Scan, n, npot, std::nullopt, 1.0));
    }
    const std::string md = Harness::performanceMarkdown(inputs);
    EXPECT_TRUE(has(md, "The naive scan and work-efficient scan take no block size from the harness (no setBlockSize "
                        "hook), so each was measured once"))
        << md;
    EXPECT_FALSE(has(md, "Fastest at the power of two"));
    EXPECT_FALSE(has(md, "The array sizes below run at"));
    EXPECT_TRUE(has(md, "| its own | 2.00 | 2.00 | 1.00 | 1.00 |\n"));  // their one figure each, in a row
    EXPECT_TRUE(has(md, "so each was measured once. "));
    EXPECT_TRUE(GfmCheck::problems(md).empty());
}

TEST(Performance, TheArraySizesSayWhereTheGpuPassesTheCpuAndHowFarFromTheCopy) {
    const std::string md = Harness::performanceMarkdown(inputsOf());
    EXPECT_FALSE(has(md, "sizes-scan-bandwidth.png"));  // not among the images
    const char *parts[] = {
        "![scan time against array size](sizes-scan-time.png)\n",
        "| n | cpu scan | naive scan | work-efficient scan | thrust scan | decoupled look-back scan | cub scan |",
        "Faster than the cpu scan: the naive scan from 2^16 on; the work-efficient scan from 2^16 on; the thrust scan "
        "from 2^14 on.",
        "At 2^26, against a device-to-device copy measured in the same run (4000 GB/s), the scans move their bytes at: "
        "thrust scan 67%, work-efficient scan 9.6%, naive scan 1.5%, decoupled look-back scan 96%, cub scan 72%.",
        "From 2^24 to 2^26 (×4 n) the times grow by: cpu scan ×4.0, naive scan ×4.3",
        // Flat while the launch floor dominates.
        "the naive scan up to 2^16, the work-efficient scan up to 2^20, the thrust scan up to 2^20;",
        "Faster than the cpu compact: the work-efficient compact from 2^16 on.",
    };
    for (const char *part : parts) EXPECT_TRUE(has(md, part)) << part;
}

// Rows of `backend`'s scan explained: `small` at 2^10, `large` at 2^26, `middle` between.
void explainRows(Harness::PerformanceInputs &inputs, const std::string &backend, const std::string &small,
                 const std::string &middle, const std::string &large) {
    for (Row &row : inputs.sizes->rows) {
        if (row.backend != backend || row.op != Op::Scan) continue;
        Harness::Explanation e;
        e.verdict = row.size == 1 << 10 ? small : row.size == 1 << 26 ? large : middle;
        e.bound = Harness::boundOfVerdict(e.verdict);
        e.kernels = 26;
        e.callMs = row.timing.medianMs;
        e.kernelMs = 0.9 * e.callMs;
        e.betweenMs = 0.1 * e.callMs;
        row.explanation = e;
    }
}

TEST(Performance, TheBottlenecksTakeTheExplainDataWhereThereIsSome) {
    Harness::PerformanceInputs inputs = inputsOf();
    std::string md = Harness::performanceMarkdown(inputs);
    EXPECT_TRUE(has(md, "- **thrust scan**: 0.202 ms at 2^26, 2661.2 GB/s (67% of the copy): close to what memory can "
                        "move, so memory I/O bounds it.\n"));
    EXPECT_TRUE(has(md, "- **cpu scan**: 67.1 ms at 2^26, 8.0 GB/s on one CPU core.\n"));
    EXPECT_TRUE(has(md, "were not traced; the sentences above come from the times alone."));
    EXPECT_TRUE(has(md, "### 4. Thrust's timeline\n\nNot traced. `nsys profile"));
    explainRows(inputs, "naive", "launch-bound: 26 kernels, 80% of the call between them",
                "kernel-bound: 26 kernels busy 90% of the call", "kernel-bound: 26 kernels busy 90% of the call");
    explainRows(inputs, "efficient", "most of the time in 2 cudaMalloc and 2 cudaMemcpy inside the timer (85% of the call)",
                "most of the time in 2 cudaMalloc and 2 cudaMemcpy inside the timer (85% of the call)",
                "most of the time in 2 cudaMalloc and 2 cudaMemcpy inside the timer (60% of the call)");
    inputs.thrustTimeline = "kernel 1  0.004 ms\nkernel 2  0.006 ms\n";
    inputs.thrustTrace = "thrust-scan-timeline.json";
    md = Harness::performanceMarkdown(inputs);
    EXPECT_TRUE(has(md, "inside its timer. Traced at 2^26: kernel-bound: 26 kernels busy 90% of the call; 26 kernels, "
                        "7.87 ms in them and 0.874 ms between them, of 8.74 ms. At 2^10: launch-bound: 26 kernels, "
                        "80% of the call between them.\n"));
    EXPECT_TRUE(has(md, "Traced at 2^26: most of the time in 2 cudaMalloc and 2 cudaMemcpy inside the timer (60% of the "
                        "call); 26 kernels, 1.25 ms in them and 0.139 ms between them, of 1.39 ms. Hint: your timer "
                        "brackets 2 cudaMalloc and 2 cudaMemcpy (60% of the call): start it after the copies in"));
    EXPECT_FALSE(has(md, "were not traced"));
    EXPECT_TRUE(has(md, "```text\nkernel 1  0.004 ms\nkernel 2  0.006 ms\n```\n"));
    EXPECT_TRUE(has(md, "[thrust-scan-timeline.json](thrust-scan-timeline.json)"));
    EXPECT_TRUE(GfmCheck::problems(md).empty());
    // Where CUPTI could not trace: the reason.
    Harness::Explanation untraced;
    untraced.verdict = "unavailable: another tool holds CUPTI";
    for (Row &row : inputs.sizes->rows) {
        if (row.explanation) row.explanation = untraced;
    }
    inputs.thrustTimeline.clear();
    inputs.thrustUntraced = "unavailable: another tool holds CUPTI";
    md = Harness::performanceMarkdown(inputs);
    EXPECT_TRUE(has(md, "were not traced (unavailable: another tool holds CUPTI); the sentences above"));
    EXPECT_TRUE(has(md, "Not traced (unavailable: another tool holds CUPTI). `nsys profile"));
}

TEST(Performance, WithoutAGpuTheCpuPartsAlone) {
    Harness::PerformanceInputs inputs = inputsOf();
    inputs.blocks.reset();
    Harness::JsonReport cpuOnly;
    for (const Row &row : inputs.sizes->rows) {
        if (row.backend == "cpu") cpuOnly.rows.push_back(row);
    }
    inputs.sizes = cpuOnly;
    inputs.backends.student = true;
    inputs.skipped = {"the block sizes, the GPU's figures and Thrust's timeline: no CUDA device"};
    inputs.blocksMissing = "no CUDA device";
    const std::string md = Harness::performanceMarkdown(inputs);
    EXPECT_TRUE(has(md, "measured on no GPU by"));
    EXPECT_TRUE(has(md, "Left out: the block sizes, the GPU's figures and Thrust's timeline: no CUDA device.\n"));
    EXPECT_TRUE(has(md, "### 1. Block size optimisation\n\nNot measured: no CUDA device.\n"));
    EXPECT_FALSE(has(md, "drawn as references"));
    EXPECT_FALSE(has(md, "These are the project's own"));
    EXPECT_TRUE(GfmCheck::problems(md).empty());
}

}  // namespace


TEST(ReportPlan, ItsSweepsAskForTheOpsTheirBackEndsOffer) {
    EXPECT_EQ(Harness::offeredOps({"naive"}), "scan");  // the naive scan has no compaction
    EXPECT_EQ(Harness::offeredOps({"naive", "efficient"}), "scan,compact");
    EXPECT_EQ(Harness::offeredOps({"cpu"}), "scan,compact");
    EXPECT_EQ(Harness::offeredOps({"no-such-back-end"}), "scan,compact");
}
