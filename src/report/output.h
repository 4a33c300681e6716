#pragma once
// Where a report goes: every write is flushed at once, so that the rows finished so far
// are on disk whatever happens next, and a write that fails (a full disk, a removed file)
// throws, naming the destination, instead of losing the report silently.

#include <cstdio>
#include <string>
#include <utility>

namespace Harness {

class Output {
public:
    Output(std::FILE *file, std::string where) : file_(file), where_(std::move(where)) {}

    /** Writes and flushes `text`; throws std::runtime_error "cannot write WHERE: why". */
    void write(const std::string &text);

private:
    std::FILE *file_;
    std::string where_;
};

}  // namespace Harness
