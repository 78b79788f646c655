// The programs' large blocks lie on transparent huge pages (preprocess/src/large_pages.cpp, linked
// into this test as into every program): a block of 64 MiB, once written, is mapped mostly in
// 2 MiB pages, as /proc/self/smaps reports them. Skipped where the system turns huge pages off.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The system's setting: the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled.
std::string thp_setting() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t open = all.find('['), close = all.find(']');
    return open == std::string::npos || close == std::string::npos
               ? std::string()
               : all.substr(open + 1, close - open - 1);
}

// AnonHugePages (bytes) of the mapping of this process that holds `address`, or -1.
long long huge_bytes_at(const void* address) {
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    std::ifstream in("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        unsigned long long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx ", &lo, &hi) == 2 &&
            line.find(':') > line.find(' ')) {
            inside = a >= lo && a < hi;
            continue;
        }
        long long kb = 0;
        if (inside && std::sscanf(line.c_str(), "AnonHugePages: %lld kB", &kb) == 1)
            return kb * 1024;
    }
    return -1;
}

TEST(LargePages, LargeBlocksLieOnHugePages) {
#ifndef ARDENT_LARGE_PAGES
    GTEST_SKIP() << "built without the large-page allocator (sanitized and fuzzing builds)";
#endif
    const std::string setting = thp_setting();
    if (setting != "madvise" && setting != "always")
        GTEST_SKIP() << "transparent huge pages are '" << setting
                     << "' here (/sys/kernel/mm/transparent_hugepage/enabled)";
    if (huge_bytes_at(&setting) < 0) GTEST_SKIP() << "/proc/self/smaps has no AnonHugePages";
    const size_t bytes = size_t{64} << 20;
    std::vector<unsigned char> block(bytes, 1);  // written once, as a grid-sized array is
    const long long huge = huge_bytes_at(block.data() + bytes / 2);
    std::printf("[ measured ] a %zu MiB block: %lld MiB on huge pages\n", bytes >> 20, huge >> 20);
    EXPECT_GE(huge, static_cast<long long>(bytes / 2))
        << "the block's mapping holds few huge pages: was it advised (large_pages.cpp)?";
}

}  // namespace
