// Uses the library through its installed headers: the CPU back end's course API, a
// registry lookup, and a GPU back end through the host-array adapter when a GPU is
// present. Exits 0 when every result is right.
#include <cstdio>
#include <vector>

#include <stream_compaction/backends.h>
#include <stream_compaction/cpu.h>
#include <stream_compaction/errors.h>

int main() {
    namespace SC = StreamCompaction;
    const std::vector<int> in = {3, 0, 1, 0, 4};
    std::vector<int> out(in.size(), -1);
    SC::CPU::scan(static_cast<int>(in.size()), out.data(), in.data());
    const std::vector<int> sums = {0, 3, 3, 4, 4};
    if (out != sums) {
        std::printf("cpu scan: wrong result\n");
        return 1;
    }
    const SC::Backend *cub = SC::findBackend("cub");
    if (!cub || !cub->reference) {
        std::printf("registry: no cub row\n");
        return 1;
    }
    if (!SC::Common::deviceAvailable()) {
        std::printf("consumer: cpu scan passed; GPU skipped: no CUDA device\n");
        return 0;
    }
    std::vector<int> kept(in.size(), -1);
    const int count = SC::hostCompact(*cub, static_cast<int>(in.size()), kept.data(), in.data());
    if (count != 3 || kept[0] != 3 || kept[1] != 1 || kept[2] != 4) {
        std::printf("cub compact: wrong result\n");
        return 1;
    }
    std::printf("consumer: cpu scan and cub compact passed\n");
    return 0;
}
