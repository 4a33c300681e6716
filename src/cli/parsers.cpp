#include "cli/parsers.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stream_compaction/backends.h>
#include <stream_compaction/launch.h>

#include "cli/options.h"

namespace Harness {

namespace {

[[noreturn]] void notASize(const std::string &text, const std::string &why) {
    throw std::invalid_argument(fmt::format("'{}' {}; sizes are whole numbers from 1 to 2^33 (2^31 - 1 for the "
                                            "test sequence), written 1048576, 2^20 or 1M (K, M, G = 2^10, 2^20, 2^30)",
                                            text, why));
}

// Digits only, no sign or spaces; fails on overflow past kMaxSweepSize.
long long parseDigits(const std::string &digits, const std::string &text) {
    if (digits.empty()) notASize(text, "is not a size");
    long long value = 0;
    for (char c : digits) {
        if (!std::isdigit(static_cast<unsigned char>(c))) notASize(text, "is not a size");
        value = value * 10 + (c - '0');
        if (value > kMaxSweepSize) notASize(text, "is too large");
    }
    return value;
}

// A whole number written plainly in decimal: "128", "-5"; not "+128", "0x80", "128.0",
// " 128" or past T's range. A leading 0 is decimal too ("0256" is 256).
template <typename T>
std::optional<T> parseDecimal(const std::string &text) {
    T value{};
    const char *end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || stop != end) return std::nullopt;
    return value;
}

// The number of single-character edits (insertions, deletions, substitutions and swaps
// of neighbours) that turn `a` into `b`: the optimal string alignment distance.
std::size_t editDistance(const std::string &a, const std::string &b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[a.size()][b.size()];
}

// The candidate nearest to `word` when it is near enough to be a slip (at most a third of
// its letters wrong, at least one allowed), or ""; of two as near, the one of its length
// ("--sizez": --sizes, not --size).
}  // namespace

std::string nearestName(const std::string &word, const std::vector<std::string> &candidates) {
    const auto lengthGap = [&word](const std::string &c) {
        return c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    };
    std::string best;
    std::size_t bestDistance = std::max<std::size_t>(1, word.size() / 3) + 1;
    for (const std::string &candidate : candidates) {
        const std::size_t distance = editDistance(word, candidate);
        const bool asNearAndCloserInLength =
            distance == bestDistance && !best.empty() && lengthGap(candidate) < lengthGap(best);
        if (distance < bestDistance || asNearAndCloserInLength) {
            best = candidate;
            bestDistance = distance;
        }
    }
    return best;
}

namespace {

[[noreturn]] void unknownName(const std::string &what, const std::string &plural, const std::string &name,
                              const std::vector<std::string> &names) {
    throw std::invalid_argument(unknownNameMessage(what, plural, name, names));
}

bool isPowerOfTwo(long long n) { return n > 0 && (n & (n - 1)) == 0; }

int exponentOf(long long powerOfTwo) {
    int exponent = 0;
    while ((1LL << exponent) < powerOfTwo) ++exponent;
    return exponent;
}

std::vector<std::string> split(const std::string &text, char separator) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (std::size_t at = text.find(separator); at != std::string::npos; at = text.find(separator, start)) {
        parts.push_back(text.substr(start, at - start));
        start = at + 1;
    }
    parts.push_back(text.substr(start));
    return parts;
}

[[noreturn]] void notASizeList(const std::string &item, const std::string &why) {
    throw std::invalid_argument(fmt::format("'{}' {}; write a list (1000,4096,1M,2^20) or a power-of-two range "
                                            "START:STOP[:STEP] (2^16:2^28, or 2^16:2^28:2 for every second one)",
                                            item, why));
}

// START:STOP[:STEP]: the powers of two from START to STOP, STEP apart in the exponent.
void appendRange(const std::string &item, std::vector<long long> &sizes) {
    const std::vector<std::string> parts = split(item, ':');
    if (parts.size() > 3) notASizeList(item, "has more than two ':'");
    const long long start = parseSize(parts[0]);
    const long long stop = parseSize(parts[1]);
    if (!isPowerOfTwo(start) || !isPowerOfTwo(stop)) notASizeList(item, "is a range whose ends are not powers of two");
    if (start > stop) notASizeList(item, "starts above its stop");
    const int step = parts.size() == 3 ? parseCount(parts[2]) : 1;
    if (step < 1) notASizeList(item, "has a step that is not a whole number of at least 1");
    for (long long exponent = exponentOf(start); exponent <= exponentOf(stop); exponent += step) {
        sizes.push_back(1LL << exponent);
    }
}

[[noreturn]] void notBlockSizes(const std::string &text) {
    throw std::invalid_argument(fmt::format("'{}' is not a block size; use multiples of 32 from 32 to 1024, as a "
                                            "list (128,256,512,1024) or a range (2^7:2^10)",
                                            text));
}

[[noreturn]] void notBlockSize(const std::string &text) {
    throw std::invalid_argument(fmt::format("'{}' is not a block size; use a multiple of 32 from 32 to 1024, written "
                                            "256, 2^8 or 1K",
                                            text));
}

}  // namespace

std::string joinedNames(const std::vector<std::string> &names) { return fmt::format("{}", fmt::join(names, ", ")); }

std::vector<std::string> allBackendNames() {
    std::vector<std::string> names;
    for (const auto &backend : StreamCompaction::backends()) names.push_back(backend.name);
    return names;
}

int parseCount(const std::string &text) {
    const std::optional<int> value = text.empty() || text[0] == '-' ? std::nullopt : parseDecimal<int>(text);
    return value.value_or(-1);
}

std::vector<std::string> opNameList() {
    std::vector<std::string> names;
    for (Op op : kAllOps) names.push_back(opName(op));
    return names;
}

std::optional<std::uint64_t> parseSeed(const std::string &text) { return parseDecimal<std::uint64_t>(text); }

std::string unknownNameMessage(const std::string &what, const std::string &plural, const std::string &name,
                               const std::vector<std::string> &names) {
    const std::string guess = nearestName(name, names);
    return fmt::format("unknown {} '{}'; {}{}: {}", what, name,
                       guess.empty() ? "" : fmt::format("did you mean '{}'? ", guess), plural, joinedNames(names));
}

long long parseSize(const std::string &text) {
    long long value = 0;
    const auto caret = text.find('^');
    if (caret != std::string::npos) {
        if (parseDigits(text.substr(0, caret), text) != 2) notASize(text, "is not a power of two");
        const long long exponent = parseDigits(text.substr(caret + 1), text);
        if (exponent > exponentOf(kMaxSweepSize)) notASize(text, "is too large");
        value = 1LL << exponent;
    } else {
        int shift = 0;
        std::string digits = text;
        if (!digits.empty()) {
            switch (std::toupper(static_cast<unsigned char>(digits.back()))) {
                case 'K': shift = 10; break;
                case 'M': shift = 20; break;
                case 'G': shift = 30; break;
                default: break;
            }
            if (shift) digits.pop_back();
        }
        value = parseDigits(digits, text);
        if (value > (kMaxSweepSize >> shift)) notASize(text, "is too large");
        value <<= shift;
    }
    if (value == 0) notASize(text, "is zero");
    return value;
}

std::vector<long long> parseSizeList(const std::string &text) {
    std::vector<long long> sizes;
    for (const std::string &item : split(text, ',')) {
        if (item.find(':') != std::string::npos) {
            appendRange(item, sizes);
        } else {
            sizes.push_back(parseSize(item));
        }
    }
    return sizes;
}

int parseBlockSize(const std::string &text) {
    if (text.find_first_of(",:") != std::string::npos) notBlockSize(text);
    try {
        return parseBlockSizeList(text).front();
    } catch (const std::invalid_argument &) {
        notBlockSize(text);
    }
}

std::vector<int> parseBlockSizeList(const std::string &text) {
    std::vector<long long> sizes;
    try {
        sizes = parseSizeList(text);
    } catch (const std::invalid_argument &) {
        notBlockSizes(text);
    }
    std::vector<int> blockSizes;
    for (long long size : sizes) {
        if (size > 1024 || !StreamCompaction::Common::validBlockSize(static_cast<int>(size))) {
            notBlockSizes(std::to_string(size));
        }
        blockSizes.push_back(static_cast<int>(size));
    }
    return blockSizes;
}

Op parseOp(const std::string &name) {
    for (Op op : kAllOps) {
        if (name == opName(op)) return op;
    }
    unknownName("operation", "operations", name, opNameList());
}

StreamCompaction::Predicate parsePredicate(const std::string &text) {
    using StreamCompaction::Predicate;
    if (text == "nonzero") return Predicate::nonZero();
    const auto colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    const std::string operand = colon == std::string::npos ? "" : text.substr(colon + 1);
    // mod:K for any int K but 0 (a negative K keeps what -K keeps; mod:-1 keeps every int).
    const std::optional<int> value = parseDecimal<int>(operand);
    if (kind == "mod" && value && *value != 0) return Predicate::multipleOf(*value);
    if (kind == "gt" && value) return Predicate::greaterThan(*value);
    throw std::invalid_argument(fmt::format(
        "'{}' is not a predicate; use nonzero, mod:K (keep multiples of K, K not 0) or gt:T (keep values above T)",
        text));
}

double parseTimeMs(const std::string &text) {
    std::string number = text;
    double scale = 1000;  // seconds by default
    if (number.size() > 2 && number.compare(number.size() - 2, 2, "ms") == 0) {
        number.resize(number.size() - 2);
        scale = 1;
    } else if (!number.empty() && number.back() == 's') {
        number.pop_back();
    }
    char *end = nullptr;
    const double value = number.empty() ? 0 : std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !(value > 0) || !std::isfinite(value) ||
        value * scale > 3.6e6) {
        throw std::invalid_argument(
            fmt::format("'{}' is not a time; use seconds above 0 and at most an hour: 0.05, 0.05s or 50ms", text));
    }
    return value * scale;
}

double parseNoise(const std::string &text, const char *what) {
    std::string number = text;
    if (!number.empty() && number.back() == '%') number.pop_back();
    char *end = nullptr;
    const double value = number.empty() ? 0 : std::strtod(number.c_str(), &end);
    if (number.empty() || end != number.c_str() + number.size() || !(value > 0) || !(value <= 100)) {
        throw std::invalid_argument(
            fmt::format("'{}' is not {}; use a percentage above 0 and at most 100: 0.5 or 0.5%", text, what));
    }
    return value / 100;
}

std::string formatSize(long long n) {
    return isPowerOfTwo(n) ? fmt::format("2^{}", exponentOf(n)) : std::to_string(n);
}

}  // namespace Harness
