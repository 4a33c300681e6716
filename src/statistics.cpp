#include "statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace Harness {

Statistics summarize(std::vector<double> ms) {
    Statistics s;
    s.samples = static_cast<int>(ms.size());
    if (ms.empty()) return s;
    std::sort(ms.begin(), ms.end());
    const std::size_t mid = ms.size() / 2;
    s.medianMs = ms.size() % 2 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2;
    s.minMs = ms.front();
    s.maxMs = ms.back();
    s.meanMs = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
    if (ms.size() > 1) {
        double squares = 0;
        for (double x : ms) squares += (x - s.meanMs) * (x - s.meanMs);
        s.stddevMs = std::sqrt(squares / static_cast<double>(ms.size() - 1));
    }
    return s;
}

double relativeError(double noise, int samples) {
    return samples > 1 && std::isfinite(noise) && noise > 0 ? noise / std::sqrt(static_cast<double>(samples)) : 0;
}

double Statistics::relativeError() const { return std::max(Harness::relativeError(noise(), samples), roundsError); }

PooledRounds poolRounds(const std::vector<std::vector<double>> &rounds) {
    PooledRounds pooled;
    std::vector<double> all, medians;
    for (const std::vector<double> &round : rounds) {
        if (round.empty()) continue;
        medians.push_back(summarize(round).medianMs);
        all.insert(all.end(), round.begin(), round.end());
    }
    pooled.all = summarize(std::move(all));
    pooled.rounds = static_cast<int>(medians.size());
    if (medians.empty()) return pooled;
    const Statistics ofMedians = summarize(medians);
    pooled.all.medianMs = ofMedians.meanMs;
    pooled.all.roundsError = relativeError(ofMedians.noise(), ofMedians.samples);
    pooled.medianSpread = ofMedians.minMs > 0 ? ofMedians.maxMs / ofMedians.minMs - 1 : 0;
    return pooled;
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

Interval ratioInterval(double numeratorMs, double numeratorNoise, int numeratorSamples, double denominatorMs,
                       double denominatorNoise, int denominatorSamples) {
    return ratioIntervalOfErrors(numeratorMs, relativeError(numeratorNoise, numeratorSamples), denominatorMs,
                                 relativeError(denominatorNoise, denominatorSamples));
}

Interval ratioInterval(const Statistics &a, const Statistics &b) {
    return ratioIntervalOfErrors(a.medianMs, a.relativeError(), b.medianMs, b.relativeError());
}

}  // namespace Harness
