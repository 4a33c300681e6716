#pragma once
// The parsers of the command line's values (sizes, block sizes, ops, predicates, times,
// noise limits), each throwing std::invalid_argument with one line saying what was wrong
// and what is accepted, and the helpers that name what there is to choose from.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <stream_compaction/predicate.h>

#include "measure/operations.h"

namespace Harness {

/** A subcommand's bad input: its message is the one line printed before it exits 2. */
struct BadInput : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/**
 * A size as written on the command line: "1048576", "2^20" or "1M" (K, M and G are
 * 2^10, 2^20 and 2^30). Throws std::invalid_argument saying what is accepted when the
 * text is not a size, is zero, or is larger than kMaxSweepSize.
 */
long long parseSize(const std::string &text);

/**
 * Comma-separated sizes and power-of-two ranges: "1000,4096,1M,2^20", "2^16:2^28"
 * (every power of two from 2^16 to 2^28) or "2^16:2^28:2" (every second one). Throws
 * std::invalid_argument naming the bad item and what is accepted.
 */
std::vector<long long> parseSizeList(const std::string &text);

/**
 * One block size, in parseSize's syntax ("256", "2^8"; "1K" is 1024): a multiple of 32
 * from 32 to 1024. Throws std::invalid_argument saying what is accepted.
 */
int parseBlockSize(const std::string &text);

/** Like parseSizeList, each value a block size: a multiple of 32 from 32 to 1024. */
std::vector<int> parseBlockSizeList(const std::string &text);

/** "scan", "compact", "partition" or "sort"; throws std::invalid_argument naming them. */
Op parseOp(const std::string &name);

/** "nonzero", "mod:K" (K >= 1) or "gt:T"; throws std::invalid_argument naming them. */
StreamCompaction::Predicate parsePredicate(const std::string &text);

/**
 * "unknown back end 'cpus'; did you mean 'cpu'? back ends: cpu, naive, ...": `what` and
 * `plural` name the kind, the suggestion is the nearest of `names` when it is a likely
 * slip (a few letters off), and every name follows.
 */
std::string unknownNameMessage(const std::string &what, const std::string &plural, const std::string &name,
                               const std::vector<std::string> &names);

/** "2^20" for a power of two, else the plain number. */
std::string formatSize(long long n);

/**
 * A time as written on the command line: "0.05" or "0.05s" (seconds), "50ms"; returns ms.
 * Throws std::invalid_argument saying what is accepted when it is not a time above 0.
 */
double parseTimeMs(const std::string &text);

/**
 * A noise limit: "0.5" or "0.5%" (percent), above 0 and at most 100; returns a fraction.
 * Throws std::invalid_argument saying that the text is not `what` and what is accepted.
 */
double parseNoise(const std::string &text, const char *what = "a noise limit");

/** A whole number >= 0 written plainly in decimal ("128", not "+128", "0x80" or "1e3"), or -1. */
int parseCount(const std::string &text);

/** A seed: a whole number from 0 to 2^64 - 1 written plainly in decimal, or nothing. */
std::optional<std::uint64_t> parseSeed(const std::string &text);

/**
 * The candidate nearest to `word` when it is near enough to be a slip (at most a third of
 * its letters wrong, at least one allowed), or ""; of two as near, the one of its length
 * ("--sizez": --sizes, not --size). For "did you mean" in error lines.
 */
std::string nearestName(const std::string &word, const std::vector<std::string> &candidates);

/** "a, b, c": the names for an error line or --help. */
std::string joinedNames(const std::vector<std::string> &names);

/** Every back end's command-line name, in the library's order. */
std::vector<std::string> allBackendNames();

/** Every op's name ("scan", "compact", ...), in kAllOps' order. */
std::vector<std::string> opNameList();

}  // namespace Harness
