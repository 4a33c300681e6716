#include "platform/progress.h"

#include <cstdio>

#include <fmt/format.h>

namespace Harness {

Progress::Progress(long long total, bool enabled, std::string prefix)
    : total_(total), enabled_(enabled), prefix_(std::move(prefix)), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { clear(); }

void Progress::show(long long number, const std::string &what) {
    if (!enabled_) return;
    const long long done = number - 1;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string left =
        done > 0 ? fmt::format(", about {} left", clockText(elapsed / done * (total_ - done))) : "";
    fmt::print(stderr, "\r\033[K{}[{}/{}, {} elapsed{}] {}", prefix_, number, total_, clockText(elapsed), left, what);
    std::fflush(stderr);
    shown_ = true;
}

void Progress::clear() {
    if (!shown_) return;
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
    shown_ = false;
}

std::string Progress::clockText(double seconds) {
    const auto whole = static_cast<long long>(seconds);
    return whole >= 3600 ? fmt::format("{}:{:02}:{:02}", whole / 3600, whole / 60 % 60, whole % 60)
                         : fmt::format("{}:{:02}", whole / 60, whole % 60);
}

}  // namespace Harness
