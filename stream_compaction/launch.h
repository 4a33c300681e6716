#pragma once
// Launch shapes: the run-time block size of the GPU back ends that take one, grid sizes,
// the device's multiprocessor count for grids sized to fill the GPU once, the shared
// memory a block may take, and the GPU family whose tile shapes the fast back ends use.

#include <cstddef>
#include <optional>
#include <utility>

namespace StreamCompaction {
namespace Common {

/** Threads per block used by every GPU back end (default 128). */
int blockSize();
/** Sets the block size; throws std::invalid_argument unless a multiple of 32 in [32, 1024]. */
void setBlockSize(int threads);
/** Whether `threads` is an accepted block size. */
bool validBlockSize(int threads);

/** Blocks needed to give one thread to each of `items` items. */
inline unsigned int blocksFor(long long items, int threads) {
    return static_cast<unsigned int>((items + threads - 1) / threads);
}

/**
 * The current device's multiprocessor count, for grids sized to fill the GPU once.
 * Queried once, by the first Operation on a device, so never inside a timed region.
 */
int multiprocessorCount();

/**
 * The shared memory one block may opt in to on the current device
 * (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on the H200, 64 KiB on sm_75, 99 KiB on
 * sm_86 and sm_89), or less while limitSharedMemoryForTesting holds a lower limit.
 */
std::size_t sharedMemoryPerBlock();

/**
 * Throws Unsupported ("needs 98 KiB of shared memory per block, this GPU allows 64 KiB")
 * when a kernel's `bytes` of shared memory per block exceed sharedMemoryPerBlock().
 * Kernels that opt in to dynamic shared memory call it before they launch anything.
 */
void requireSharedMemory(std::size_t bytes);

/** A test hook: behave as if the GPU allowed at most `bytes` per block; 0 lifts it. */
void limitSharedMemoryForTesting(std::size_t bytes);

/**
 * The GPU families that the fast back ends (decoupled, onesweep, shared) choose their
 * compile-time tile shapes for: each back end has one policy per family (threads, items
 * per thread, blocks per multiprocessor), and families whose hardware wants the same shape
 * share one policy type, so that it is compiled once. Every policy is compiled for every
 * architecture of the build; the family picks one at run time.
 */
enum class PolicyFamily {
    Turing,     // sm_75
    Ampere,     // sm_80 to sm_89 (Ampere and Ada)
    Hopper,     // sm_90
    Blackwell,  // sm_100 and later
};

/** Every family, in order of compute capability. */
inline constexpr PolicyFamily kPolicyFamilies[] = {PolicyFamily::Turing, PolicyFamily::Ampere, PolicyFamily::Hopper,
                                                   PolicyFamily::Blackwell};

/** "turing", "ampere", "hopper", "blackwell". */
const char *policyFamilyName(PolicyFamily family);

/**
 * The family of a compute capability's major number: below 8 Turing (sm_75 is the oldest
 * GPU the build targets), 8 Ampere (sm_80, sm_86, sm_89), 9 Hopper, 10 and later
 * Blackwell (sm_100, sm_120).
 */
PolicyFamily policyFamilyFor(int computeMajor);

/**
 * The current device's family, read once from its compute capability (by the first
 * Operation's untimed preparation), or the family forcePolicyFamilyForTesting holds.
 */
PolicyFamily policyFamily();

/** A test hook: the fast back ends use `family`'s policies whatever the device; nullopt lifts it. */
void forcePolicyFamilyForTesting(std::optional<PolicyFamily> family);

/**
 * Calls launch(Policy{}) with the policy type that Policies names for `family`
 * (Policies::Turing, ::Ampere, ::Hopper, ::Blackwell) and returns what it returns. A
 * generic lambda is instantiated once per distinct policy type.
 */
template <typename Policies, typename Launch>
decltype(auto) withPolicy(PolicyFamily family, Launch &&launch) {
    switch (family) {
        case PolicyFamily::Turing: return launch(typename Policies::Turing{});
        case PolicyFamily::Ampere: return launch(typename Policies::Ampere{});
        case PolicyFamily::Blackwell: return launch(typename Policies::Blackwell{});
        case PolicyFamily::Hopper: break;
    }
    return launch(typename Policies::Hopper{});
}

/**
 * withPolicy with SmallPolicies for a call on at most `limit` items and Policies for a
 * larger one: where a small array's full tiles are fewer than the SMs, smaller tiles
 * spread it over more of them.
 */
template <typename SmallPolicies, typename Policies, typename Launch>
decltype(auto) withPolicyBySize(PolicyFamily family, long long n, long long limit, Launch &&launch) {
    if (n <= limit) return withPolicy<SmallPolicies>(family, std::forward<Launch>(launch));
    return withPolicy<Policies>(family, std::forward<Launch>(launch));
}

}  // namespace Common
}  // namespace StreamCompaction
