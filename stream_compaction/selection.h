#pragma once
// Selection helpers that compaction and partition back ends share: a compaction run in
// chunks (for libraries that fail past 2^31 - 1 kept elements) and the fix-up that makes
// a back-to-front partition stable.

#include <cstddef>

namespace StreamCompaction {
namespace Common {

/**
 * A compaction of n elements run as compactions of at most `chunk` elements, each
 * writing after the last: `selectChunk(first, count, written)` compacts elements
 * [first, first + count) to output position `written` and returns how many it kept.
 * Returns the total kept. The 64-bit API uses it where a library's own compaction
 * fails past 2^31 - 1 kept elements (thrust.cu, cub.cu).
 */
template <typename SelectChunk>
std::size_t selectInChunks(std::size_t n, std::size_t chunk, SelectChunk selectChunk) {
    std::size_t written = 0;
    for (std::size_t first = 0; first < n; first += chunk) {
        const std::size_t count = n - first < chunk ? n - first : chunk;
        written += selectChunk(first, count, written);
    }
    return written;
}

/** The chunk in which the 64-bit API runs a library's compaction (see selectInChunks). */
constexpr std::size_t kLibrarySelectChunk = std::size_t{1} << 30;

/**
 * The stable-partition fix-up, on the default stream: reverses dData[*dStart, n) in
 * place, the start read on the device (no host round trip). Turns a partition that wrote
 * its rejected elements from the back, in reverse order (the decoupled back end's, or
 * cub::DevicePartition::If's), into a stable one: 8 bytes moved per rejected element.
 */
void reverseTail(long long n, int *dData, const int *dStart);
void reverseTail(long long n, int *dData, const long long *dStart);

}  // namespace Common
}  // namespace StreamCompaction
