#pragma once
// The statistics of a cell's timed samples, and the interval of a ratio of two cells'
// medians: what the sweep's stopping rule, its speed-ups and the compare command share.

#include <cstddef>
#include <limits>
#include <vector>

namespace Harness {

/** A summary of timed samples, in ms. */
struct Statistics {
    int samples = 0;
    double meanMs = 0;
    double medianMs = 0;  // the mean of the middle two for an even count
    double minMs = 0;
    double maxMs = 0;
    double stddevMs = 0;  // the sample standard deviation (n - 1); 0 for fewer than two samples
    // The 10th and 90th percentiles (linear interpolation between order statistics): the
    // spread the tables show, which one outlier does not move.
    double p10Ms = 0;
    double p90Ms = 0;
    // Measured in several rounds (poolRounds): how many, and the relative standard error
    // of the mean of the rounds' medians, which medianMs then is; 0 for one round.
    int rounds = 0;
    double roundsError = 0;

    /**
     * The relative noise of one call, robust to outliers: the 10th to 90th percentile
     * spread over 2 x 1.2816 x the median, which for normally distributed times is
     * standard deviation / mean, and which calls slower than the 90th percentile (one
     * 18 ms call among 0.0003 ms ones) do not move. A summary without percentiles (p90Ms
     * 0, as an older report's) falls back to standard deviation / mean; 0 without samples.
     */
    double noise() const;
    /** figureError(noise(), samples, roundsError, rounds). */
    double relativeError() const;
};

/** The two-sided 95% quantile of the normal distribution. */
constexpr double kNormal975 = 1.959964;

/** The normal distribution's 90% quantile: p90 - p10 is 2 x it standard deviations. */
constexpr double kNormal90 = 1.281552;

/** sqrt(pi / 2): the standard error of a median over that of a mean, for normal samples. */
constexpr double kMedianOverMean = 1.253314;

/**
 * The relative standard error of a median of `samples` calls whose noise() is `noise`:
 * 1.2533 x noise / sqrt(samples); 0 where it cannot be known (fewer than two samples).
 */
double relativeError(double noise, int samples);

/**
 * The relative standard error of the mean of `s`'s samples, standard deviation / mean /
 * sqrt(samples): the error of a figure that is a mean of rounds' or processes' medians.
 */
double meanError(const Statistics &s);

/**
 * The noise of the median of `ms`: the half-width of its distribution-free 95%
 * confidence interval, relative to it. The interval runs between the order statistics of
 * ranks n/2 - 0.98 sqrt(n) and 1 + n/2 + 0.98 sqrt(n) (the binomial ranks in the normal
 * approximation; the whole range for a few samples), so outliers on either side do not
 * widen it, while times that really spread (or split into two groups) do. 0 when the
 * middle readings are equal; infinite for no reading, or a median of 0 with a spread.
 * Reorders `ms` (O(n): nth_element). The stopping rule compares it with --max-noise.
 */
double medianNoise(std::vector<double> &ms);

/**
 * The two-sided 95% quantile of Student's t with `degrees` degrees of freedom (12.706 for
 * 1, 2.365 for 7, 1.96 in the limit); 1.96 below 1.
 */
double studentT975(int degrees);

/**
 * A figure's relative standard error as a 95% interval takes it (1.96 x it is the
 * half-width): noise / sqrt(samples), or, where larger, the error of the mean of its
 * `rounds` rounds' medians scaled by studentT975(rounds - 1) / 1.96, since a few rounds
 * know their own spread only roughly. The rounds' error is larger when they disagree by
 * more than their calls' noise says they should: a state that lasts a round (a process).
 */
double figureError(double noise, int samples, double roundsError, int rounds);

/** The summary of `ms`; all zeros for an empty list. */
Statistics summarize(std::vector<double> ms);

/**
 * A cell measured in several rounds (--rounds, each on freshly allocated buffers, and
 * --processes, each process's rounds): the rounds are its replicates. `all` summarizes
 * every round's samples together, except that its median is the mean of the rounds'
 * medians, with that mean's relative standard error in roundsError: a state that lasts
 * a round (a process's) then moves the figure by its own share, not by the share of a
 * pooled median, which jumps between two groups of rounds. medianSpread is how far the
 * rounds' medians spread, the largest over the smallest less 1 (0.05 is 5%; 0 for one
 * round or none). Rounds without samples are left out.
 */
struct PooledRounds {
    Statistics all;  // all.rounds: the rounds with samples
    double medianSpread = 0;
    // The relative standard error of all.medianMs from the calls' noise alone: each round's
    // median within its noise / sqrt(samples), over their mean (0 for no round).
    double callsError = 0;
};
PooledRounds poolRounds(const std::vector<std::vector<double>> &rounds);

/**
 * A figure's samples as they arrive and the medianNoise() of them, judged again each time
 * the count has grown by a sixteenth (at every sample up to 16): a stopping rule asked
 * after every sample then costs O(1) per sample, amortized, and reads a judgement at most
 * a sixteenth of the samples old. Readings that are not numbers count as samples but are
 * left out of the judgement and the total.
 */
class RunningMedianNoise {
public:
    void add(double ms);
    int samples() const { return samples_; }
    double totalMs() const { return totalMs_; }
    /** medianNoise() as of the last judgement; infinite before two readings. */
    double noise() const { return noise_; }

private:
    std::vector<double> ms_;  // the numbers so far, in the order nth_element left them
    int samples_ = 0;
    double totalMs_ = 0;
    double noise_ = std::numeric_limits<double>::infinity();
    std::size_t nextJudgement_ = 2;
};

/**
 * The count, mean and standard deviation / mean of values as they arrive (Welford's
 * update), without keeping them.
 */
class RunningNoise {
public:
    void add(double ms);
    int samples() const { return samples_; }
    double totalMs() const { return mean_ * samples_; }
    /** Standard deviation (n - 1) / mean; 0 for fewer than two values. */
    double noise() const;

private:
    int samples_ = 0;
    double mean_ = 0;
    double squares_ = 0;  // the sum of squared differences from the mean
};

/**
 * A ratio of two figures with its approximate 95% interval. Each figure's relative
 * standard error is its median's (relativeError); the ratio's is their root sum of squares,
 * and the interval is ratio x exp(+-1.96 x that), which stays positive.
 */
struct Interval {
    double value = 0;
    double low = 0;
    double high = 0;

    /** Whether the interval covers 1: the two figures are a tie. */
    bool tie() const { return low <= 1 && 1 <= high; }
};

/**
 * numerator / denominator of two figures, each with its relative standard error (0 gives
 * that side no width).
 */
Interval ratioIntervalOfErrors(double numeratorMs, double numeratorError, double denominatorMs,
                               double denominatorError);

/** a.medianMs / b.medianMs, each side's width from its relativeError(). */
Interval ratioInterval(const Statistics &a, const Statistics &b);

}  // namespace Harness
