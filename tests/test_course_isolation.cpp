// The course run's isolation of a submission's tests: the scan of a submission's
// src/main.cpp for calls the harness never makes, a child's run limit, and a signal's
// name. The course run itself, with a submission that hangs and crashes, is
// run_submission_checks.sh's "hangs" check.

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "commands/submission_main.h"
#include "platform/child_process.h"

namespace {

using Harness::callsBeforeTests;

const char *const kCourseMain = R"(#include "testing_helpers.hpp"
int main(int argc, char* argv[]) {
    // Scan tests
    printf("\n");
    printf("** SCAN TESTS **\n");
    genArray(SIZE - 1, a, 50);  // Leave a 0 at the end
    a[SIZE - 1] = 0;
    printArray(SIZE, a, true);
    zeroArray(SIZE, b);
    printDesc("cpu scan, power-of-two");
    StreamCompaction::CPU::scan(SIZE, b, a);
})";

TEST(CourseIsolation, TheCoursesOwnMainCallsNothingOfTheSubmission) {
    EXPECT_TRUE(callsBeforeTests(kCourseMain).empty());
}

TEST(CourseIsolation, CallsBeforeTheFirstTestAreNamedOnceInOrder) {
    const std::string source = R"(void helper() { printDesc("not main"); }
int main() {
    cudaSetDevice(0);
    StreamCompaction :: Radix::init(SIZE);  /* Warm(); in a comment */
    std::vector<int> v(3);
    warmUp("x(", 'y');
    StreamCompaction::Radix::init(SIZE);
    if (SIZE > 0) printf("%d\n", SIZE);
    printDesc("cpu scan, power-of-two");
    lateCall();
})";
    const std::vector<std::string> want = {"StreamCompaction::Radix::init", "warmUp"};
    EXPECT_EQ(callsBeforeTests(source), want);
}

TEST(CourseIsolation, NoTestMeansNothingToSay) {
    EXPECT_TRUE(callsBeforeTests("int main() { setUp(); return 0; }").empty());
    EXPECT_TRUE(callsBeforeTests("").empty());
}

TEST(CourseIsolation, AChildPastItsRunLimitIsKilledEvenWhileItPrints) {
    Harness::ChildSettings settings;
    settings.runLimitMs = 300;
    settings.silenceLimitMs = 5000;
    int heard = 0;
    settings.onMessage = [&heard](const std::string &) { ++heard; };
    const auto started = std::chrono::steady_clock::now();
    const Harness::ChildExit exit = Harness::runChild(
        [](int messages) {
            for (;;) {
                Harness::sendLine(messages, "still here");
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        },
        settings);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_TRUE(exit.timedOut);
    EXPECT_EQ(exit.signal, SIGKILL);
    EXPECT_GT(heard, 3);
    EXPECT_LT(seconds, 3.0);
}

TEST(CourseIsolation, AChildWithinItsRunLimitEndsAsItEnds) {
    Harness::ChildSettings settings;
    settings.runLimitMs = 5000;
    const Harness::ChildExit exit = Harness::runChild([](int) { std::raise(SIGSEGV); }, settings);
    EXPECT_FALSE(exit.timedOut);
    EXPECT_EQ(exit.signal, SIGSEGV);
    EXPECT_EQ(Harness::signalText(exit.signal), "SIGSEGV (segmentation fault)");
    EXPECT_EQ(Harness::signalText(SIGKILL), "SIGKILL (killed)");
}

}  // namespace
