#include "measure/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace Harness {

namespace {

// The q-quantile of sorted, non-empty `ms`, interpolated between its order statistics.
double quantile(const std::vector<double> &ms, double q) {
    const double at = q * static_cast<double>(ms.size() - 1);
    const auto below = static_cast<std::size_t>(at);
    const std::size_t above = std::min(below + 1, ms.size() - 1);
    return ms[below] + (at - static_cast<double>(below)) * (ms[above] - ms[below]);
}

}  // namespace

Statistics summarize(std::vector<double> ms) {
    Statistics s;
    s.samples = static_cast<int>(ms.size());
    if (ms.empty()) return s;
    std::sort(ms.begin(), ms.end());
    const std::size_t mid = ms.size() / 2;
    s.medianMs = ms.size() % 2 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2;
    s.minMs = ms.front();
    s.maxMs = ms.back();
    s.p10Ms = quantile(ms, 0.1);
    s.p90Ms = quantile(ms, 0.9);
    s.meanMs = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
    if (ms.size() > 1) {
        double squares = 0;
        for (double x : ms) squares += (x - s.meanMs) * (x - s.meanMs);
        s.stddevMs = std::sqrt(squares / static_cast<double>(ms.size() - 1));
    }
    return s;
}

double Statistics::noise() const {
    if (medianMs <= 0) return 0;
    if (p90Ms <= 0) return meanMs > 0 ? stddevMs / meanMs : 0;
    return (p90Ms - p10Ms) / (2 * kNormal90 * medianMs);
}

double relativeError(double noise, int samples) {
    return samples > 1 && std::isfinite(noise) && noise > 0
               ? kMedianOverMean * noise / std::sqrt(static_cast<double>(samples))
               : 0;
}

double medianNoise(std::vector<double> &ms) {
    const std::size_t n = ms.size();
    if (n == 0) return std::numeric_limits<double>::infinity();
    const auto nth = [&ms](std::size_t k) {  // the k-th smallest, from 0
        std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(k), ms.end());
        return ms[k];
    };
    const double half = static_cast<double>(n) / 2;
    const double reach = kNormal975 / 2 * std::sqrt(static_cast<double>(n));
    // The ranks from 1 of the interval's ends, clamped to the samples.
    const auto low = static_cast<std::size_t>(std::max(1.0, std::floor(half - reach)));
    const auto high = static_cast<std::size_t>(std::min(static_cast<double>(n), std::ceil(1 + half + reach)));
    const double spread = nth(high - 1) - nth(low - 1);
    const double median = n % 2 ? nth(n / 2) : (nth(n / 2 - 1) + nth(n / 2)) / 2;
    if (median <= 0) return spread == 0 ? 0 : std::numeric_limits<double>::infinity();
    return spread / (2 * median);
}

double studentT975(int degrees) {
    static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                        2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                        2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    constexpr double z = kNormal975;
    if (degrees < 1) return z;
    if (degrees <= 30) return kTable[degrees - 1];
    // Past the table, the Cornish-Fisher expansion in 1 / degrees (2.0423 at 30).
    const double d = degrees;
    return z + (z * z * z + z) / (4 * d) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

double figureError(double noise, int samples, double roundsError, int rounds) {
    const double ofRounds = rounds > 1 ? roundsError * studentT975(rounds - 1) / kNormal975 : 0;
    return std::max(relativeError(noise, samples), ofRounds);
}

double meanError(const Statistics &s) {
    return s.samples > 1 && s.meanMs > 0 ? s.stddevMs / s.meanMs / std::sqrt(static_cast<double>(s.samples)) : 0;
}

double Statistics::relativeError() const { return figureError(noise(), samples, roundsError, rounds); }

PooledRounds poolRounds(const std::vector<std::vector<double>> &rounds) {
    PooledRounds pooled;
    std::vector<double> all, medians;
    double callsVariance = 0;  // the sum of the rounds' medians' squared relative errors
    for (const std::vector<double> &round : rounds) {
        if (round.empty()) continue;
        const Statistics own = summarize(round);
        medians.push_back(own.medianMs);
        const double error = relativeError(own.noise(), own.samples);
        callsVariance += error * error;
        all.insert(all.end(), round.begin(), round.end());
    }
    pooled.all = summarize(std::move(all));
    pooled.all.rounds = static_cast<int>(medians.size());
    if (medians.empty()) return pooled;
    const Statistics ofMedians = summarize(medians);
    pooled.all.medianMs = ofMedians.meanMs;
    pooled.all.roundsError = meanError(ofMedians);
    pooled.medianSpread = ofMedians.minMs > 0 ? ofMedians.maxMs / ofMedians.minMs - 1 : 0;
    pooled.callsError = std::sqrt(callsVariance) / static_cast<double>(medians.size());
    return pooled;
}

void RunningMedianNoise::add(double ms) {
    ++samples_;
    if (std::isnan(ms)) return;
    ms_.push_back(ms);
    totalMs_ += ms;
    if (ms_.size() < nextJudgement_) return;
    noise_ = medianNoise(ms_);
    nextJudgement_ = ms_.size() + std::max<std::size_t>(1, ms_.size() / 16);
}

void RunningNoise::add(double ms) {
    ++samples_;
    const double delta = ms - mean_;
    mean_ += delta / samples_;
    squares_ += delta * (ms - mean_);
}

double RunningNoise::noise() const {
    return samples_ > 1 && mean_ > 0 ? std::sqrt(squares_ / (samples_ - 1)) / mean_ : 0;
}

Interval ratioIntervalOfErrors(double numeratorMs, double numeratorError, double denominatorMs,
                               double denominatorError) {
    Interval interval;
    interval.value = numeratorMs / denominatorMs;
    const double width = 1.96 * std::sqrt(numeratorError * numeratorError + denominatorError * denominatorError);
    interval.low = interval.value * std::exp(-width);
    interval.high = interval.value * std::exp(width);
    return interval;
}

Interval ratioInterval(const Statistics &a, const Statistics &b) {
    return ratioIntervalOfErrors(a.medianMs, a.relativeError(), b.medianMs, b.relativeError());
}

}  // namespace Harness
