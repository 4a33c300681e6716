// How many calls a figure takes (RunSettings: a fixed --reps, or calls until the noise is
// known), the statistics of the samples and the interval of a ratio, checked on a host
// back end whose own timer reads a scripted sequence, and on hand-worked numbers.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include <stream_compaction/backends.h>

#include "measure/runner.h"
#include "measure/statistics.h"

namespace {

using StreamCompaction::Backend;
using namespace Harness;

// The scripted back end: each call's "time" is the next reading, cycled.
struct Script {
    std::vector<float> readings;
    std::size_t calls = 0;
    float current = 0;
};
Script script;

void scriptedScan(int n, int *odata, const int *idata) {
    int sum = 0;
    for (int i = 0; i < n; ++i) {
        odata[i] = sum;
        sum += idata[i];
    }
    script.current = script.readings[script.calls++ % script.readings.size()];
}

float scriptedTimer() { return script.current; }

const Backend kScripted{.name = "student-scripted", .title = "scripted", .onGpu = false, .scan = scriptedScan,
                        .implementationTimer = scriptedTimer};

Harness::Run runScripted(std::vector<float> readings, RunSettings settings) {
    script = Script{std::move(readings)};
    settings.warmup = 0;
    return run(kScripted, Op::Scan, std::vector<int>(64, 1), settings);
}

RunSettings untilKnown(int minSamples, double minTimeMs, double maxNoise, double maxTimeMs) {
    RunSettings s;
    s.reps = 0;
    s.minSamples = minSamples;
    s.minTimeMs = minTimeMs;
    s.maxNoise = maxNoise;
    s.maxTimeMs = maxTimeMs;
    return s;
}

TEST(Sampling, AFixedCountTakesExactlyThatMany) {
    RunSettings s;
    s.reps = 7;
    const Harness::Run r = runScripted({1, 2, 3}, s);
    EXPECT_EQ(r.timing.samples, 7);
    EXPECT_EQ(script.calls, 7u);
    EXPECT_FALSE(r.timing.outOfTime);
}

// Readings without noise stop at the first call that meets both minimums: 10 calls, and
// 50 ms of timed work at 2 ms a call takes 25.
TEST(Sampling, QuietReadingsStopOnceBothMinimumsAreMet) {
    Harness::Run r = runScripted({2}, untilKnown(10, 50, 0.005, 60000));
    EXPECT_EQ(r.timing.samples, 25);
    EXPECT_DOUBLE_EQ(r.timing.noise(), 0);
    EXPECT_FALSE(r.timing.outOfTime);
    r = runScripted({20}, untilKnown(10, 50, 0.005, 60000));
    EXPECT_EQ(r.timing.samples, 10);  // 200 ms after 10 calls: the count decides
}

// Readings of 1 and 3 alternate: a noise of about 50% never falls below 1%, so the calls
// go on until --max-time, and the row says so; a limit of 60% is met at once.
TEST(Sampling, NoisyReadingsRunUntilTheTimeLimit) {
    const Harness::Run noisy = runScripted({1, 3}, untilKnown(4, 0.001, 0.01, 30));
    EXPECT_TRUE(noisy.timing.outOfTime);
    EXPECT_GE(noisy.timing.samples, 4);
    EXPECT_GT(noisy.timing.noise(), 0.4);
    const Harness::Run tolerant = runScripted({1, 3}, untilKnown(4, 0.001, 0.6, 60000));
    EXPECT_FALSE(tolerant.timing.outOfTime);
    EXPECT_EQ(tolerant.timing.samples, 4);
}

// Calls slower than the whole time limit, on noisy readings: the limit stops the calls
// only once there are --min-samples of them, never with fewer (or none).
TEST(Sampling, TheTimeLimitNeverCutsBelowTheMinimumCount) {
    script = Script{{1, 3}};
    RunSettings s = untilKnown(6, 0.001, 0.0001, 1);  // a 1 ms limit; each call sleeps 2 ms
    s.warmup = 0;
    const Backend sleepy{.name = "student-sleepy", .title = "sleepy", .onGpu = false,
                         .scan = [](int n, int *odata, const int *idata) {
                             std::this_thread::sleep_for(std::chrono::milliseconds(2));
                             scriptedScan(n, odata, idata);
                         },
                         .implementationTimer = scriptedTimer};
    const Harness::Run r = run(sleepy, Op::Scan, std::vector<int>(64, 1), s);
    EXPECT_EQ(r.timing.samples, 6);
    EXPECT_TRUE(r.timing.outOfTime);
}

// Cells that take turns (a sweep's interleaving): the time a cell waits while the others
// run is not its own, so a long wait after the warm-up does not end it. Here the wait is
// far past the limit, and each cell still samples until its own calls have used it.
TEST(Sampling, TimeSpentByOtherCellsIsNotACellsOwn) {
    script = Script{{1, 2, 4}};  // noisy for both cells in turn: only the time limit ends the calls
    RunSettings s = untilKnown(3, 0.001, 0.0001, 20);
    s.warmup = 1;
    const std::vector<int> input(64, 1);
    Measurement first(kScripted, Op::Scan, input, s), second(kScripted, Op::Scan, input, s);
    first.warmUp();
    second.warmUp();
    std::this_thread::sleep_for(std::chrono::milliseconds(60));  // the other cells' turns
    EXPECT_FALSE(first.done());
    EXPECT_FALSE(second.done());
    int turns = 0;
    while (!first.done() || !second.done()) {
        if (!first.done()) first.sample();
        if (!second.done()) second.sample();
        ASSERT_LT(++turns, 10000000);
    }
    // Calls of microseconds fill 20 ms of their own with far more than the minimum; had
    // the wait counted, each would have stopped at the minimum of 3.
    EXPECT_GT(first.finish().timing.samples, 30);
    EXPECT_GT(second.finish().timing.samples, 30);
}

// 1, 2, 3, 4: mean 2.5, median 2.5, sample standard deviation sqrt(5/3).
TEST(Statistics, SummaryByHand) {
    const Statistics s = summarize({4, 1, 3, 2});
    EXPECT_EQ(s.samples, 4);
    EXPECT_DOUBLE_EQ(s.meanMs, 2.5);
    EXPECT_DOUBLE_EQ(s.medianMs, 2.5);
    EXPECT_DOUBLE_EQ(s.minMs, 1);
    EXPECT_DOUBLE_EQ(s.maxMs, 4);
    EXPECT_NEAR(s.stddevMs, std::sqrt(5.0 / 3.0), 1e-12);
    EXPECT_NEAR(s.noise(), std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
    const Statistics odd = summarize({5, 1, 9});
    EXPECT_DOUBLE_EQ(odd.medianMs, 5);
    const Statistics one = summarize({7});
    EXPECT_DOUBLE_EQ(one.stddevMs, 0);
    EXPECT_EQ(summarize({}).samples, 0);
}

// Rounds {1, 2, 3}, {4, 6} and {} (a round with no readings): medians 2 and 5, so the
// figure is their mean, 3.5, with relative standard error stddev(2, 5) / 3.5 / sqrt(2)
// = 3 / 7; the medians spread 5 / 2 - 1 = 1.5; the other statistics are the five
// readings together.
TEST(Statistics, PooledRoundsByHand) {
    const PooledRounds pooled = poolRounds({{3, 1, 2}, {6, 4}, {}});
    EXPECT_EQ(pooled.all.rounds, 2);
    EXPECT_EQ(pooled.all.samples, 5);
    EXPECT_DOUBLE_EQ(pooled.all.medianMs, 3.5);
    EXPECT_NEAR(pooled.all.roundsError, 3.0 / 7.0, 1e-12);
    EXPECT_DOUBLE_EQ(pooled.all.meanMs, 16.0 / 5);
    EXPECT_DOUBLE_EQ(pooled.all.minMs, 1);
    EXPECT_DOUBLE_EQ(pooled.all.maxMs, 6);
    EXPECT_DOUBLE_EQ(pooled.medianSpread, 1.5);
    // The spread is of the medians, not of the readings: {1, 10, 10} and {10, 10, 19}
    // have the same median, so the figure is 10 and the rounds add no error.
    const PooledRounds same = poolRounds({{1, 10, 10}, {10, 10, 19}});
    EXPECT_DOUBLE_EQ(same.medianSpread, 0);
    EXPECT_DOUBLE_EQ(same.all.medianMs, 10);
    EXPECT_DOUBLE_EQ(same.all.roundsError, 0);
    EXPECT_DOUBLE_EQ(poolRounds({{2, 2}}).medianSpread, 0);
    EXPECT_DOUBLE_EQ(poolRounds({{2, 4, 9}}).all.medianMs, 4);  // one round: its own median
    EXPECT_DOUBLE_EQ(poolRounds({{2, 4, 9}}).all.roundsError, 0);
    EXPECT_EQ(poolRounds({}).all.samples, 0);
    EXPECT_EQ(poolRounds({}).all.rounds, 0);
    EXPECT_DOUBLE_EQ(poolRounds({}).medianSpread, 0);
    // The calls' error: {0.9, 1.0, 1.1} has noise 10% over 3 readings, 5.77% for its
    // median; two such rounds make their mean's 5.77% / sqrt(2).
    EXPECT_NEAR(poolRounds({{0.9, 1.0, 1.1}}).callsError, 0.1 / std::sqrt(3.0), 1e-12);
    EXPECT_NEAR(poolRounds({{0.9, 1.0, 1.1}, {1.1, 0.9, 1.0}}).callsError, 0.1 / std::sqrt(6.0), 1e-12);
    EXPECT_DOUBLE_EQ(poolRounds({}).callsError, 0);
}

// Two groups of rounds 4% apart, as a state that lasts a process makes them: the pooled
// median of two slow rounds and one fast one sits inside the slow group, the mean of the
// medians a third of the way across, where one round's share puts it.
TEST(Statistics, TheFigureOfRoundsInTwoGroupsMovesByOneRoundsShare) {
    std::vector<double> fast, slow;
    for (int i = 0; i < 101; ++i) {
        fast.push_back(1.00 + 0.0001 * (i - 50));
        slow.push_back(1.04 + 0.0001 * (i - 50));
    }
    const PooledRounds pooled = poolRounds({slow, fast, slow});
    EXPECT_NEAR(pooled.all.medianMs, (1.04 + 1.00 + 1.04) / 3, 1e-12);
    EXPECT_NEAR(pooled.medianSpread, 0.04, 1e-12);
    // Rounds that disagree by more than their calls' noise widen the figure's error, by
    // Student's t for two degrees of freedom over 1.96.
    EXPECT_GT(pooled.all.roundsError, relativeError(pooled.all.noise(), pooled.all.samples));
    EXPECT_NEAR(pooled.all.relativeError(), pooled.all.roundsError * 4.303 / 1.959964, 1e-12);
}

// The table's values, its expansion past 30 degrees of freedom, and the normal limit.
TEST(Statistics, StudentsTQuantile) {
    EXPECT_DOUBLE_EQ(studentT975(1), 12.706);
    EXPECT_DOUBLE_EQ(studentT975(7), 2.365);
    EXPECT_DOUBLE_EQ(studentT975(30), 2.042);
    EXPECT_NEAR(studentT975(31), 2.0395, 0.0005);
    EXPECT_NEAR(studentT975(120), 1.9799, 0.0005);
    EXPECT_NEAR(studentT975(100000), 1.96, 0.0001);
    EXPECT_NEAR(studentT975(0), 1.96, 0.0001);
    for (int d = 1; d < 200; ++d) EXPECT_GT(studentT975(d), studentT975(d + 1)) << d;
}

// A figure's relative error is noise / sqrt(samples), or its rounds' error where larger,
// and a ratio's interval is as wide as its two sides' errors make it.
TEST(Statistics, TheRoundsErrorWidensARatiosInterval) {
    Statistics a = summarize(std::vector<double>(100, 1.0));
    a.stddevMs = 0.01;  // 1% noise on 100 samples: 0.001
    EXPECT_NEAR(a.relativeError(), 0.001, 1e-12);
    Statistics b = a;
    b.medianMs = 2;
    b.meanMs = 2;
    b.stddevMs = 0.02;
    EXPECT_NEAR(ratioInterval(b, a).high, 2 * std::exp(1.96 * std::sqrt(2.0) * 0.001), 1e-12);
    b.roundsError = 0.01;  // the rounds disagree: 1% standard error, over 8 rounds
    b.rounds = 8;
    const double roundsError = 0.01 * 2.365 / 1.959964;  // Student's t for 7 degrees of freedom
    EXPECT_NEAR(b.relativeError(), roundsError, 1e-15);
    const Interval wide = ratioInterval(b, a);
    const double width = 1.96 * std::sqrt(roundsError * roundsError + 0.001 * 0.001);
    EXPECT_DOUBLE_EQ(wide.value, 2);
    EXPECT_NEAR(wide.low, 2 * std::exp(-width), 1e-12);
    EXPECT_NEAR(wide.high, 2 * std::exp(width), 1e-12);
    b.rounds = 1;  // one round: no error of its own
    EXPECT_NEAR(b.relativeError(), relativeError(b.noise(), b.samples), 1e-15);
    const Interval same = ratioIntervalOfErrors(3, 0.001, 1.5, 0.001);
    EXPECT_NEAR(same.high, 2 * std::exp(1.96 * std::sqrt(2.0) * 0.001), 1e-12);
}

// The running noise the stopping rule reads agrees with the summary of the same samples.
TEST(Statistics, RunningNoiseAgreesWithTheSummary) {
    const std::vector<double> ms = {3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0};
    RunningNoise running;
    for (double x : ms) running.add(x);
    const Statistics s = summarize(ms);
    EXPECT_EQ(running.samples(), s.samples);
    EXPECT_NEAR(running.totalMs(), 31.0, 1e-12);
    EXPECT_NEAR(running.noise(), s.noise(), 1e-12);
    RunningNoise one;
    one.add(2);
    EXPECT_DOUBLE_EQ(one.noise(), 0);
}

// 2 ms over 1 ms with 1% noise on 100 samples each: relative errors 0.001, the ratio's
// sqrt(2) x 0.001, so the interval is 2 x exp(+-1.96 x 0.0014142).
TEST(Statistics, IntervalOfARatioByHand) {
    const Interval r = ratioIntervalOfErrors(2.0, relativeError(0.01, 100), 1.0, relativeError(0.01, 100));
    const double width = 1.96 * std::sqrt(2.0) * 0.001;
    EXPECT_DOUBLE_EQ(r.value, 2.0);
    EXPECT_NEAR(r.low, 2.0 * std::exp(-width), 1e-12);
    EXPECT_NEAR(r.high, 2.0 * std::exp(width), 1e-12);
    EXPECT_FALSE(r.tie());
}

// A 1% difference is a tie with 5% noise on 10 samples, and not with 0.1% on 1000.
TEST(Statistics, ARatioWhoseIntervalCoversOneIsATie) {
    EXPECT_TRUE(ratioIntervalOfErrors(1.01, relativeError(0.05, 10), 1.0, relativeError(0.05, 10)).tie());
    EXPECT_FALSE(ratioIntervalOfErrors(1.01, relativeError(0.001, 1000), 1.0, relativeError(0.001, 1000)).tie());
    // Nothing known of the noise.
    const Interval none = ratioIntervalOfErrors(1.01, relativeError(0, 1), 1.0, relativeError(0, 1));
    EXPECT_DOUBLE_EQ(none.low, none.high);
    EXPECT_FALSE(none.tie());
}

}  // namespace
