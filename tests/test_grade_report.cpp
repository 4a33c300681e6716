// The grade's reports (commands/grade.h) on results made by hand: failures alike read as
// one line per function (the base code's stubs: three lines, not 51), a function failing
// only at sizes that are not a power of two gets its hint, a cell's location names its
// detail's index, the markdown pastes and the CSV is plain.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "commands/grade.h"
#include "gfm_check.h"

namespace {

using Harness::GradeCell;
using Outcome = GradeCell::Outcome;

const char *kStub = "wrote nothing: odata still holds the fill 0xCDCDCDCD (-842150451); is this still the course's stub?";

// Every function's every case filled by `cell(function, case)`.
template <typename Fill>
Harness::GradeResults resultsOf(std::vector<std::string> functions, Fill cell) {
    Harness::GradeResults results;
    results.submission = "/home/me/Project2";
    results.size = 1 << 20;
    results.seed = 565;
    results.blockSize = 128;
    results.functions = std::move(functions);
    results.cases = Harness::gradeCases(results.size);
    for (std::size_t f = 0; f < results.functions.size(); ++f) {
        results.cells.emplace_back();
        for (std::size_t c = 0; c < results.cases.size(); ++c) results.cells[f].push_back(cell(f, results.cases[c]));
    }
    return results;
}

std::size_t countLines(const std::vector<std::string> &lines, const std::string &start) {
    std::size_t n = 0;
    for (const std::string &line : lines) n += line.rfind(start, 0) == 0;
    return n;
}

TEST(GradeReport, TheStubsReadAsOneLinePerFunction) {
    const auto results = resultsOf({"cpu scan", "cpu compactWithoutScan", "cpu compactWithScan"},
                                   [](std::size_t f, const Harness::GradeCase &c) {
                                       if (f == 0) return GradeCell{Outcome::FailValue, 0, "a[0] = -842150451, expected 0", kStub};
                                       return GradeCell{Outcome::FailCount, -1,
                                                        "expected " + std::to_string(c.n * 3 / 4) + " elements, got -1",
                                                        std::string("wrote nothing and returned -1: ") + (kStub + 15)};
                                   });
    const std::vector<std::string> notes = Harness::gradeNotes(results);
    ASSERT_EQ(notes.size(), 3u);
    EXPECT_EQ(notes[0], std::string("cpu scan, every case: FAIL VALUE at 0, the first: a[0] = -842150451, expected 0; "
                                    "hint: ") + kStub);
    EXPECT_EQ(countLines(notes, "cpu compactWithoutScan, every case: FAIL COUNT, the first: expected 786432 elements, "
                                "got -1; hint: wrote nothing and returned -1: odata still holds"),
              1u);
    const std::string text = Harness::renderGrade(results, Harness::Format::Text);
    EXPECT_NE(text.find("\n0 passed, 51 failed\n"), std::string::npos);
}

TEST(GradeReport, FailuresAtSizesThatAreNotAPowerOfTwoGetTheirHint) {
    const auto results = resultsOf({"efficient scan"}, [](std::size_t, const Harness::GradeCase &c) {
        const bool powerOfTwo = (c.n & (c.n - 1)) == 0;
        if (powerOfTwo) return GradeCell{Outcome::Passed, -1, "", ""};
        const long long at = 1LL << (63 - __builtin_clzll(static_cast<unsigned long long>(c.n)));
        return GradeCell{Outcome::FailValue, at, "a[" + std::to_string(at) + "] = 3, expected 12", ""};
    });
    const std::vector<std::string> notes = Harness::gradeNotes(results);
    EXPECT_EQ(countLines(notes, "efficient scan, 13 cases: 2^20 - 3 (the course's); n = 3; n = 31; ...: FAIL VALUE at "
                                "524288, the first: a[524288] = 3, expected 12"),
              1u);
    EXPECT_EQ(countLines(notes, "efficient scan: hint: fails only at sizes that are not a power of two (n = 1048573, 3, "
                                "31, 33, ...): check the padding to the next power of two"),
              1u);
    // Each cell names the index its detail names.
    const std::string csv = Harness::renderGrade(results, Harness::Format::Csv);
    EXPECT_EQ(csv.rfind("case,n,function,outcome,index,detail,hint\n", 0), 0u);
    EXPECT_NE(csv.find("2^20 - 3 (the course's),1048573,efficient scan,fail value,524288,\"a[524288] = 3, expected 12\",\n"),
              std::string::npos);
    const std::string markdown = Harness::renderGrade(results, Harness::Format::Markdown);
    EXPECT_TRUE(GfmCheck::problems(markdown).empty()) << markdown;
    EXPECT_NE(markdown.find("| 2^20 - 3 (the course's) | 1048573 | FAIL VALUE at 524288 |"), std::string::npos);
}

TEST(GradeReport, PassesWithANoteReadAsOneLine) {
    const auto results = resultsOf({"cpu compactWithoutScan"}, [](std::size_t, const Harness::GradeCase &c) {
        const std::string count = std::to_string(c.n / 2);
        return GradeCell{Outcome::Passed, -1,
                         "a[" + count + "] = 0 was written past the " + count + " elements the call returned", ""};
    });
    const std::vector<std::string> notes = Harness::gradeNotes(results);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "cpu compactWithoutScan, every case: passed (note: a[524288] = 0 was written past the 524288 "
                        "elements the call returned)");
    EXPECT_EQ(Harness::cellText(results.cells[0][0]), "passed (note)");
    EXPECT_NE(Harness::renderGrade(results, Harness::Format::Text).find("\n17 passed, 0 failed\n"), std::string::npos);
}

}  // namespace
