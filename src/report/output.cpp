#include "report/output.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace Harness {

void Output::write(const std::string &text) {
    std::fputs(text.c_str(), file_);
    if (std::fflush(file_) != 0 || std::ferror(file_))
        throw std::runtime_error(fmt::format("cannot write {}: {}", where_, std::strerror(errno)));
}

}  // namespace Harness
