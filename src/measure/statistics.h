#pragma once
// The statistics of a cell's timed samples, and the interval of a ratio of two cells'
// medians: what the sweep's stopping rule, its speed-ups and the compare command share.

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

    /** The relative noise: standard deviation / mean (0.005 is 0.5%); 0 without samples. */
    double noise() const { return meanMs > 0 ? stddevMs / meanMs : 0; }
    /** figureError(noise(), samples, roundsError, rounds). */
    double relativeError() const;
};

/** noise / sqrt(samples): a figure's relative standard error; 0 where it cannot be known. */
double relativeError(double noise, int samples);

/** The two-sided 95% quantile of the normal distribution. */
constexpr double kNormal975 = 1.959964;

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
 * The count, mean and noise of samples as they arrive (Welford's update), so that a
 * stopping rule asked after every sample does not summarize them all again.
 */
class RunningNoise {
public:
    void add(double ms);
    int samples() const { return samples_; }
    double totalMs() const { return mean_ * samples_; }
    /** Standard deviation (n - 1) / mean, as Statistics::noise(); 0 for fewer than two samples. */
    double noise() const;

private:
    int samples_ = 0;
    double mean_ = 0;
    double squares_ = 0;  // the sum of squared differences from the mean
};

/**
 * A ratio of two figures with its approximate 95% interval. Each figure's relative
 * standard error is its noise / sqrt(samples); the ratio's is their root sum of squares,
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
