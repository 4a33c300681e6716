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
    return RunSettings{
        .reps = 0, .minSamples = minSamples, .minTimeMs = minTimeMs, .maxNoise = maxNoise, .maxTimeMs = maxTimeMs};
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

// Readings of 1 and 3 alternate: the middle readings hold both, so the median's 95%
// interval spans 1 to 3 however many calls there are and never narrows to 1%: the calls
// go on until --max-time, and the row says so. A limit of 60% is met at once: the four
// readings' interval is their range, 1 to 3, over twice their median of 2, 50%.
TEST(Sampling, NoisyReadingsRunUntilTheTimeLimit) {
    const Harness::Run noisy = runScripted({1, 3}, untilKnown(4, 0.001, 0.01, 30));
    EXPECT_TRUE(noisy.timing.outOfTime);
    EXPECT_GE(noisy.timing.samples, 4);
    EXPECT_GT(noisy.timing.noise(), 0.2);  // 2 / (2 x 1.2816 x a median of 1, 2 or 3)
    const Harness::Run tolerant = runScripted({1, 3}, untilKnown(4, 0.001, 0.6, 60000));
    EXPECT_FALSE(tolerant.timing.outOfTime);
    EXPECT_EQ(tolerant.timing.samples, 4);
}

// 101 readings about 1 ms (0.995 to 1.0048, 0.0001 apart) of which two are 18 ms, as a
// busy machine's CPU calls: the outliers do not keep the calls going. Their median's
// interval is 0.11% wide (medianNoiseByHand), within 0.5% as soon as it is judged, so the
// calls stop at the minimum of 101 even though standard deviation / mean is above 100%.
TEST(Sampling, OutliersDoNotKeepTheCallsGoing) {
    std::vector<float> readings;
    for (int i = 0; i < 99; ++i) readings.push_back(static_cast<float>(1 + 0.0001 * (i - 50)));
    readings.insert(readings.begin() + 3, 18.0f);
    readings.insert(readings.begin() + 40, 18.0f);
    const Harness::Run r = runScripted(readings, untilKnown(101, 0.001, 0.005, 60000));
    EXPECT_EQ(r.timing.samples, 101);
    EXPECT_FALSE(r.timing.outOfTime);
    EXPECT_GT(r.timing.stddevMs / r.timing.meanMs, 1);
    EXPECT_LT(r.timing.noise(), 0.004);
    // Readings spread evenly from 0.5 to 1.5 ms: their median's interval narrows only as
    // 0.98 / sqrt(n), to 0.1% after about a million calls, far past a 20 ms limit.
    std::vector<float> spread;
    for (int i = 0; i <= 100; ++i) spread.push_back(static_cast<float>(0.5 + 0.01 * i));
    const Harness::Run noisy = runScripted(spread, untilKnown(101, 0.001, 0.001, 20));
    EXPECT_TRUE(noisy.timing.outOfTime);
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

// 1, 2, 3, 4: mean 2.5, median 2.5, sample standard deviation sqrt(5/3); the 10th and
// 90th percentiles 1.3 and 3.7 (0.3 and 2.7 of the way along), so the noise is
// 2.4 / (2 x 1.281552 x 2.5).
TEST(Statistics, SummaryByHand) {
    const Statistics s = summarize({4, 1, 3, 2});
    EXPECT_EQ(s.samples, 4);
    EXPECT_DOUBLE_EQ(s.meanMs, 2.5);
    EXPECT_DOUBLE_EQ(s.medianMs, 2.5);
    EXPECT_DOUBLE_EQ(s.minMs, 1);
    EXPECT_DOUBLE_EQ(s.maxMs, 4);
    EXPECT_NEAR(s.stddevMs, std::sqrt(5.0 / 3.0), 1e-12);
    EXPECT_NEAR(s.p10Ms, 1.3, 1e-12);
    EXPECT_NEAR(s.p90Ms, 3.7, 1e-12);
    EXPECT_NEAR(s.noise(), 2.4 / (2 * 1.281552 * 2.5), 1e-12);
    // Without percentiles (a summary from an older report): standard deviation / mean.
    Statistics bare;
    bare.samples = 4;
    bare.medianMs = 2;
    bare.meanMs = 2;
    bare.stddevMs = 0.1;
    EXPECT_DOUBLE_EQ(bare.noise(), 0.05);
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
    // The calls' error: {0.9, 1.0, 1.1} has percentiles 0.92 and 1.08, so noise 0.16 /
    // (2 x 1.281552), and its median 1.253314 x that / sqrt(3); two such rounds make
    // their mean's that / sqrt(2).
    const double medianError = 1.253314 * 0.16 / (2 * 1.281552) / std::sqrt(3.0);
    EXPECT_NEAR(poolRounds({{0.9, 1.0, 1.1}}).callsError, medianError, 1e-12);
    EXPECT_NEAR(poolRounds({{0.9, 1.0, 1.1}, {1.1, 0.9, 1.0}}).callsError, medianError / std::sqrt(2.0), 1e-12);
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

// A figure's relative error is its median's, 1.253314 x noise / sqrt(samples), or its
// rounds' error where larger, and a ratio's interval is as wide as its two sides' errors
// make it.
TEST(Statistics, TheRoundsErrorWidensARatiosInterval) {
    Statistics a = summarize(std::vector<double>(100, 1.0));
    a.p10Ms = 1 - 0.01 * 1.281552;  // 1% noise on 100 samples: 1.253314 x 0.001
    a.p90Ms = 1 + 0.01 * 1.281552;
    const double e = 1.253314 * 0.001;
    EXPECT_NEAR(a.relativeError(), e, 1e-12);
    Statistics b = a;
    b.medianMs = 2;
    b.p10Ms = 2 - 0.02 * 1.281552;
    b.p90Ms = 2 + 0.02 * 1.281552;
    EXPECT_NEAR(ratioInterval(b, a).high, 2 * std::exp(1.96 * std::sqrt(2.0) * e), 1e-12);
    b.roundsError = 0.01;  // the rounds disagree: 1% standard error, over 8 rounds
    b.rounds = 8;
    const double roundsError = 0.01 * 2.365 / 1.959964;  // Student's t for 7 degrees of freedom
    EXPECT_NEAR(b.relativeError(), roundsError, 1e-15);
    const Interval wide = ratioInterval(b, a);
    const double width = 1.96 * std::sqrt(roundsError * roundsError + e * e);
    EXPECT_DOUBLE_EQ(wide.value, 2);
    EXPECT_NEAR(wide.low, 2 * std::exp(-width), 1e-12);
    EXPECT_NEAR(wide.high, 2 * std::exp(width), 1e-12);
    b.rounds = 1;  // one round: no error of its own
    EXPECT_NEAR(b.relativeError(), relativeError(b.noise(), b.samples), 1e-15);
    const Interval same = ratioIntervalOfErrors(3, 0.001, 1.5, 0.001);
    EXPECT_NEAR(same.high, 2 * std::exp(1.96 * std::sqrt(2.0) * 0.001), 1e-12);
}

// One 18 ms call among 0.0003 ms ones widens neither the figure's noise nor its ratio's
// interval: the percentiles stay among the 0.0003 ms calls.
TEST(Statistics, OneOutlierDoesNotWidenTheInterval) {
    std::vector<double> ms(99, 0.0003);
    for (std::size_t i = 0; i < ms.size(); ++i) ms[i] += 0.000001 * static_cast<double>(i % 3);
    const Statistics quiet = summarize(ms);
    ms.push_back(18);
    const Statistics busy = summarize(ms);
    EXPECT_GT(busy.stddevMs / busy.meanMs, 5);
    EXPECT_LT(busy.noise(), 0.01);
    EXPECT_NEAR(busy.noise(), quiet.noise(), 1e-9);
    const Interval r = ratioInterval(busy, quiet);
    EXPECT_LT(r.high / r.low, 1.002);
}

// The noise of a median by hand. n = 101: the interval's ranks are floor(50.5 - 9.8487)
// = 40 and ceil(1 + 50.5 + 9.8487) = 62, the 40th and 62nd smallest readings.
TEST(Statistics, MedianNoiseByHand) {
    // 99 readings 1 + 0.0001 (i - 50) and two of 18 ms: the 40th and 62nd are 0.9989 and
    // 1.0011, the median 1, so the half-width is 0.0022 / 2 = 0.11%.
    std::vector<double> outliers;
    for (int i = 0; i < 99; ++i) outliers.push_back(1 + 0.0001 * (i - 50));
    outliers.insert(outliers.begin() + 7, 18);
    outliers.push_back(18);
    EXPECT_NEAR(medianNoise(outliers), 0.0011, 1e-12);
    // 0.5 to 1.5 ms, 0.01 apart: the 40th and 62nd are 0.89 and 1.11: 11%.
    std::vector<double> spread;
    for (int i = 100; i >= 0; --i) spread.push_back(0.5 + 0.01 * i);
    EXPECT_NEAR(medianNoise(spread), 0.11, 1e-12);
    // 100 readings, 1 and 3 by turns: ranks floor(50 - 9.7998) = 40 and ceil(60.7998) = 61
    // hold a 1 and a 3 about a median of 2: (3 - 1) / (2 x 2) = 50%, at any count.
    std::vector<double> twoGroups;
    for (int i = 0; i < 100; ++i) twoGroups.push_back(i % 2 ? 3 : 1);
    EXPECT_DOUBLE_EQ(medianNoise(twoGroups), 0.5);
    // Three readings: the interval is their range, (4 - 1) / (2 x 2).
    std::vector<double> three = {4, 1, 2};
    EXPECT_DOUBLE_EQ(medianNoise(three), 0.75);
    std::vector<double> equal(10, 0.0);
    EXPECT_DOUBLE_EQ(medianNoise(equal), 0);
    std::vector<double> none;
    EXPECT_TRUE(std::isinf(medianNoise(none)));
}

// The running judgement: at every reading up to 16, the medianNoise of them all; later,
// of the readings up to the last judgement; readings that are not numbers are counted
// and left out.
TEST(Statistics, RunningMedianNoiseJudgesOnASchedule) {
    RunningMedianNoise running;
    EXPECT_TRUE(std::isinf(running.noise()));
    std::vector<double> so;
    for (double x : {4.0, 1.0, 2.0}) {
        running.add(x);
        so.push_back(x);
    }
    EXPECT_DOUBLE_EQ(running.noise(), 0.75);
    running.add(std::nan(""));
    EXPECT_EQ(running.samples(), 4);
    EXPECT_DOUBLE_EQ(running.totalMs(), 7);
    EXPECT_DOUBLE_EQ(running.noise(), 0.75);
    // Past 32 readings the judgement comes every n / 16: 34 readings are judged at 34,
    // and the 35th, far off, waits for the next at 36.
    RunningMedianNoise later;
    std::vector<double> ms;
    for (int i = 0; i < 34; ++i) {
        ms.push_back(1 + 0.001 * i);
        later.add(ms.back());
    }
    std::vector<double> copy = ms;
    const double judged = medianNoise(copy);
    later.add(1000);
    EXPECT_DOUBLE_EQ(later.noise(), judged);
    later.add(1000);
    ms.insert(ms.end(), {1000, 1000});
    EXPECT_DOUBLE_EQ(later.noise(), medianNoise(ms));
}

// The running standard deviation / mean agrees with the summary of the same values.
TEST(Statistics, RunningNoiseAgreesWithTheSummary) {
    const std::vector<double> ms = {3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0};
    RunningNoise running;
    for (double x : ms) running.add(x);
    const Statistics s = summarize(ms);
    EXPECT_EQ(running.samples(), s.samples);
    EXPECT_NEAR(running.totalMs(), 31.0, 1e-12);
    EXPECT_NEAR(running.noise(), s.stddevMs / s.meanMs, 1e-12);
    RunningNoise one;
    one.add(2);
    EXPECT_DOUBLE_EQ(one.noise(), 0);
}

// 2 ms over 1 ms with 1% noise on 100 samples each: relative errors 1.253314 x 0.001,
// the ratio's sqrt(2) x that, so the interval is 2 x exp(+-1.96 x sqrt(2) x 0.0012533).
TEST(Statistics, IntervalOfARatioByHand) {
    const Interval r = ratioIntervalOfErrors(2.0, relativeError(0.01, 100), 1.0, relativeError(0.01, 100));
    const double width = 1.96 * std::sqrt(2.0) * 1.253314 * 0.001;
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
