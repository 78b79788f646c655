// ardent::call_isolated (isolated_call.h): a call in a child process hands back its bytes or its
// InputError, and a crash, a memory budget run out or a hang in it becomes an IsolatedCallError
// in the caller, which goes on.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/isolated_call.h"

namespace {

using ardent::call_isolated;
using ardent::IsolatedCallError;

IsolatedCallError::Kind kind_of(const std::function<std::string()>& work,
                                const ardent::IsolationLimits& limits,
                                std::string* what = nullptr) {
    try {
        call_isolated(work, limits);
    } catch (const IsolatedCallError& e) {
        if (what) *what = e.what();
        return e.kind();
    }
    ADD_FAILURE() << "no IsolatedCallError";
    return IsolatedCallError::Kind::Failure;
}

TEST(IsolatedCall, ReturnsTheChildsBytes) {
    std::string big(3 << 20, 'x');  // more than a pipe holds at once
    big[12345] = '\0';
    EXPECT_EQ(call_isolated([&] { return big; }, {}), big);
    EXPECT_EQ(call_isolated([] { return std::string(); }, {}), "");
}

TEST(IsolatedCall, AnInputErrorComesBackAsOne) {
    try {
        call_isolated([]() -> std::string { throw ardent::InputError("room.dae: no triangles"); },
                      {});
        FAIL() << "no exception";
    } catch (const ardent::InputError& e) {
        EXPECT_STREQ(e.what(), "room.dae: no triangles");
    }
}

TEST(IsolatedCall, ACrashIsReportedAndTheCallerGoesOn) {
    std::string what;
    EXPECT_EQ(kind_of([]() -> std::string { std::abort(); }, {}, &what),
              IsolatedCallError::Kind::Crash);
    EXPECT_NE(what.find("signal 6, aborted"), std::string::npos) << what;
#if !defined(__SANITIZE_ADDRESS__)
    // (ASan catches a segmentation fault itself, reports it and exits with status 1: the child
    // then ends without an answer rather than by the signal.)
    try {
        call_isolated(
            []() -> std::string {
                std::raise(SIGSEGV);
                return "";
            },
            {});
    } catch (const IsolatedCallError& e) {
        EXPECT_EQ(e.signal(), SIGSEGV);
        EXPECT_NE(std::string(e.what()).find("segmentation fault"), std::string::npos);
    }
#endif
    EXPECT_EQ(call_isolated([] { return std::string("still here"); }, {}), "still here");
}

TEST(IsolatedCall, AHangIsKilledAtTheTimeLimit) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string what;
    EXPECT_EQ(kind_of(
                  []() -> std::string {
                      for (;;)
                          std::this_thread::sleep_for(std::chrono::seconds(1));
                  },
                  {.timeout_s = 0.5}, &what),
              IsolatedCallError::Kind::Timeout);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 5.0);
    EXPECT_NE(what.find("within 0 s"), std::string::npos) << what;  // "%.0f" of 0.5
}

TEST(IsolatedCall, AMemoryBudgetRunOutIsReported) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "sanitizer builds do not limit the child's address space (shadow memory)";
#else
    std::string what;
    EXPECT_EQ(kind_of(
                  [] {
                      std::vector<std::vector<char> > hog;
                      for (int i = 0; i < 64; ++i)
                          hog.emplace_back(size_t{64} << 20, '\1');  // 4 GB in all
                      return std::string(1, hog.back().back());
                  },
                  {.memory_bytes = size_t{256} << 20}, &what),
              IsolatedCallError::Kind::Memory);
    EXPECT_NE(what.find("needed more than 0.3 GB"), std::string::npos) << what;
#endif
}

}  // namespace
