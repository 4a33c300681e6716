#include "sweep/outputs.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace Harness {

std::string Outputs::open(const Options &options) {
    reporters_.push_back(makeReporter(options.format, stdout, "stdout"));
    const auto openFile = [this](const std::string &path, bool context) {
        files_.emplace_back(std::fopen(path.c_str(), "w"));
        std::FILE *file = files_.back().get();
        if (!file) return fmt::format("--output: cannot write '{}': {}", path, std::strerror(errno));
        const std::string where = "'" + path + "'";
        reporters_.push_back(context ? makeContextReporter(file, where) : makeReporter(*formatForPath(path), file, where));
        return std::string();
    };
    for (const std::string &path : options.outputs) {
        std::string problem = openFile(path, false);
        if (problem.empty() && formatForPath(path) == Format::Csv) problem = openFile(contextPathFor(path), true);
        if (!problem.empty()) return problem;
    }
    return "";
}

std::vector<Reporter *> Outputs::reporters() const {
    std::vector<Reporter *> all;
    for (const auto &reporter : reporters_) all.push_back(reporter.get());
    return all;
}

void endAfterError(const std::vector<Reporter *> &open, const std::string &why) noexcept {
    for (Reporter *reporter : open) {
        try {
            reporter->endOp();
            reporter->stop(why);
            reporter->end();
        } catch (...) {
        }
    }
}

}  // namespace Harness
