// Ardent's programs allocate their large blocks on transparent huge pages. A hall's grid-sized
// arrays (the air model, the decomposition's runs and owners, the solver's layout, the recorded
// signals) are hundreds of MB of fresh memory, and each 4 KiB page of it costs a page fault when
// first written: on the virtual machines we measured, those faults were half of the Musikverein's
// preprocessing at 1650 Hz (docs/benchmarks.md, "Preprocessing on huge pages"). Linux maps a
// range advised with MADV_HUGEPAGE in 2 MiB pages when the system's setting is `madvise` (the
// usual default) or `always`, 512 times fewer faults; under `never` the advice does nothing.
//
// This file replaces the global operator new and delete (C++'s replaceable allocation
// functions): blocks of kLargeBlock bytes and more are advised, everything comes from malloc and
// goes back to free. It is linked into executables only (the ardent_large_pages object library),
// never into a library, so a program has one definition; sanitized and fuzzing builds leave it
// out so that their own allocators see every block. ARDENT_HUGE_PAGES=0 in the environment turns
// the advice off (for measurements against the system's default).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Smaller blocks hold at most one whole huge page, and glibc serves many of them from its heap.
constexpr std::size_t kLargeBlock = 2 * kHugePage;

// The whole huge pages inside [p, p + n): advised before anything touches them (malloc maps
// fresh memory for most blocks this large), so that the first write maps 2 MiB at a time.
void advise_huge(void* p, std::size_t n) {
#ifdef __linux__
    if (n < kLargeBlock) return;
    static const bool off = [] {
        const char* v = std::getenv("ARDENT_HUGE_PAGES");
        return v && v[0] == '0' && v[1] == '\0';
    }();
    if (off) return;
    const auto first = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + n) & ~(kHugePage - 1);
    // Advice only: a kernel without transparent huge pages refuses it, and the block stays usable.
    if (end > first) madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
#else
    (void)p;
    (void)n;
#endif
}

void* allocate(std::size_t n) {
    for (;;) {
        if (void* p = std::malloc(n ? n : 1)) {
            advise_huge(p, n);
            return p;
        }
        const std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}

void* allocate_nothrow(std::size_t n) noexcept {
    try {
        return allocate(n);
    } catch (...) {
        return nullptr;
    }
}

}  // namespace

void* operator new(std::size_t n) {
    return allocate(n);
}
void* operator new[](std::size_t n) {
    return allocate(n);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    return allocate_nothrow(n);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
    return allocate_nothrow(n);
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete[](void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    std::free(p);
}
