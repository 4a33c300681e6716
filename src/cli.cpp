#include "cli.h"

#include <cctype>
#include <limits>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <stream_compaction/backends.h>

#ifndef SC_VERSION
#define SC_VERSION "unknown"
#endif

namespace Harness {

namespace {

constexpr long long kMaxSize = std::numeric_limits<int>::max();

[[noreturn]] void notASize(const std::string &text, const std::string &why) {
    throw std::invalid_argument(fmt::format("'{}' {}; sizes are whole numbers from 1 to 2^31 - 1, "
                                            "written 1048576, 2^20 or 1M (K, M, G = 2^10, 2^20, 2^30)",
                                            text, why));
}

// Digits only, no sign or spaces; fails on overflow past kMaxSize.
long long parseDigits(const std::string &digits, const std::string &text) {
    if (digits.empty()) notASize(text, "is not a size");
    long long value = 0;
    for (char c : digits) {
        if (!std::isdigit(static_cast<unsigned char>(c))) notASize(text, "is not a size");
        value = value * 10 + (c - '0');
        if (value > kMaxSize) notASize(text, "is too large");
    }
    return value;
}

std::string joinedBackendNames() {
    std::string names;
    for (const auto &backend : StreamCompaction::backends()) {
        if (!names.empty()) names += ", ";
        names += backend.name;
    }
    return names;
}

// A whole number written plainly ("128", not "128.0" or " 128"), or -1.
int parseCount(const std::string &text) {
    try {
        std::size_t used = 0;
        int value = std::stoi(text, &used);
        return used == text.size() && std::isdigit(static_cast<unsigned char>(text[0])) ? value : -1;
    } catch (const std::exception &) {
        return -1;
    }
}

// Adapts a throwing parser to a CLI11 validator, whose message CLI11 prefixes with the
// flag's name.
template <typename Check>
CLI::Validator validator(const char *name, Check check) {
    return CLI::Validator(
        [check](std::string &value) {
            try {
                check(value);
                return std::string();
            } catch (const std::invalid_argument &e) {
                return std::string(e.what());
            }
        },
        name);
}

}  // namespace

long long parseSize(const std::string &text) {
    long long value = 0;
    const auto caret = text.find('^');
    if (caret != std::string::npos) {
        if (parseDigits(text.substr(0, caret), text) != 2) notASize(text, "is not a power of two");
        const long long exponent = parseDigits(text.substr(caret + 1), text);
        if (exponent > 30) notASize(text, "is too large");
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
        if (value > (kMaxSize >> shift)) notASize(text, "is too large");
        value <<= shift;
    }
    if (value == 0) notASize(text, "is zero");
    return value;
}

std::string formatSize(long long n) {
    if (n > 0 && (n & (n - 1)) == 0) {
        int exponent = 0;
        while ((1LL << exponent) < n) ++exponent;
        return fmt::format("2^{}", exponent);
    }
    return std::to_string(n);
}

int parseCommandLine(int argc, const char *const *argv, Options &options) {
    CLI::App app{"CIS 565 Project 2: scan and stream compaction on the CPU and the GPU.\n"
                 "With no arguments, runs the course's test sequence on 2^20 random ints.",
                 "cis565_stream_compaction"};
    app.set_version_flag("--version", "cis565_stream_compaction " SC_VERSION);

    std::string sizeText;
    app.add_option("--size", sizeText, "Array size SIZE for the test sequence (NPOT = SIZE - 3): 1048576, 2^20 or 1M")
        ->check(validator("SIZE", [](const std::string &text) {
            if (parseSize(text) < 4) {
                throw std::invalid_argument(fmt::format(
                    "'{}' is too small; the test sequence needs SIZE >= 4 for its non-power-of-two size SIZE - 3",
                    text));
            }
        }));
    app.add_option("--block-size", options.blockSize, "Threads per block for every GPU back end (default 128)")
        ->check(validator("32..1024", [](const std::string &text) {
            if (!StreamCompaction::Common::validBlockSize(parseCount(text))) {
                throw std::invalid_argument(
                    fmt::format("'{}' is not a block size; use a multiple of 32 from 32 to 1024", text));
            }
        }));
    app.add_option("--seed", options.seed, "Seed of the random inputs (default 565)");
    app.add_option("--backends", options.backends,
                   "Comma-separated back ends to run: " + joinedBackendNames() + " (default: all)")
        ->delimiter(',')
        ->check(validator("BACKEND", [](const std::string &name) {
            if (!StreamCompaction::findBackend(name)) {
                throw std::invalid_argument(
                    fmt::format("'{}' is not a back end; choose from {}", name, joinedBackendNames()));
            }
        }));
    app.add_option("--reps", options.reps, "Timed calls per figure; the median is printed (default 5)")
        ->check(validator("1..1000", [](const std::string &text) {
            const int reps = parseCount(text);
            if (reps < 1 || reps > 1000) {
                throw std::invalid_argument(fmt::format("'{}' is not a count of runs; use 1 to 1000", text));
            }
        }));

    try {
        app.parse(argc, argv);
    } catch (const CLI::Success &e) {
        return app.exit(e);  // --help, --version
    } catch (const CLI::ParseError &e) {
        fmt::print(stderr, "cis565_stream_compaction: {}\n", e.what());
        return 2;
    }
    if (!sizeText.empty()) options.size = parseSize(sizeText);
    if (options.backends.empty()) {
        for (const auto &backend : StreamCompaction::backends()) options.backends.push_back(backend.name);
    }
    return -1;
}

}  // namespace Harness
