#include "commands/submission_main.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include <stream_compaction/student.h>

namespace Harness {

namespace Student = StreamCompaction::Student;

namespace {

// `source` with its comments and its string and character literals blanked out.
std::string codeOnly(const std::string &source) {
    std::string code = source;
    char inside = 0;  // '/': a line comment, '*': a block comment, '"' or '\'': a literal
    for (std::size_t i = 0; i < code.size(); ++i) {
        const char c = code[i];
        const char next = i + 1 < code.size() ? code[i + 1] : '\0';
        if (inside == 0) {
            if (c == '/' && (next == '/' || next == '*')) {
                inside = next;
                code[i] = code[i + 1] = ' ';
                ++i;
            } else if (c == '"' || c == '\'') {
                inside = c;
                code[i] = ' ';
            }
        } else if (inside == '/') {
            if (c == '\n') inside = 0;
            else code[i] = ' ';
        } else if (inside == '*' && c == '*' && next == '/') {
            code[i] = code[i + 1] = ' ';
            ++i;
            inside = 0;
        } else {
            code[i] = ' ';
            if (inside == '*') continue;
            if (c == '\\' && next != '\0') code[++i] = ' ';
            else if (c == inside) inside = 0;
        }
    }
    return code;
}

// Whether a called name is the language's, C's, CUDA's, the standard library's or the
// course's own main.cpp helpers and tested functions, not the submission's.
bool courseOrLanguage(const std::string &qualified) {
    static const std::set<std::string> names = {
        "if", "for", "while", "switch", "return", "sizeof", "catch", "new", "delete", "decltype", "alignof",
        "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "main", "printf", "fprintf", "puts",
        "putchar", "malloc", "calloc", "realloc", "free", "memset", "memcpy", "exit", "srand", "rand", "time",
        "system", "assert", "printDesc", "genArray", "printArray", "printCmpResult", "printCmpLenResult",
        "cmpArrays", "zeroArray", "onesArray", "printElapsedTime", "scan", "compact", "compactWithScan",
        "compactWithoutScan", "timer", "getCpuElapsedTimeForPreviousOperation",
        "getGpuElapsedTimeForPreviousOperation"};
    const std::size_t colon = qualified.rfind("::");
    const std::string name = colon == std::string::npos ? qualified : qualified.substr(colon + 2);
    return names.count(name) > 0 || qualified.rfind("std::", 0) == 0 || name.rfind("cuda", 0) == 0;
}

// Whether the name at `at` follows a type ("std::vector<int> v(3)", "Timer t(...)"): a
// variable made, not a function called.
bool declares(const std::string &code, std::size_t at) {
    std::size_t end = at;
    while (end > 0 && std::isspace(static_cast<unsigned char>(code[end - 1]))) --end;
    if (end == 0) return false;
    if (code[end - 1] == '>') return true;
    std::size_t begin = end;
    while (begin > 0 && (std::isalnum(static_cast<unsigned char>(code[begin - 1])) || code[begin - 1] == '_')) --begin;
    const std::string word = code.substr(begin, end - begin);
    return !word.empty() && word != "return" && word != "else" && word != "do";
}

}  // namespace

std::vector<std::string> callsBeforeTests(const std::string &mainSource) {
    const std::string code = codeOnly(mainSource);
    std::smatch found;
    const std::regex mainStart(R"(\bmain\s*\()");
    const std::size_t from = std::regex_search(code, found, mainStart) ? static_cast<std::size_t>(found.position()) : 0;
    const std::size_t to = code.find("printDesc(", from);
    if (to == std::string::npos) return {};
    const std::string region = code.substr(from, to - from);
    const std::regex call(R"(((?:[A-Za-z_]\w*\s*::\s*)*[A-Za-z_]\w*)\s*\()");
    std::vector<std::string> calls;
    for (std::sregex_iterator it(region.begin(), region.end(), call), end; it != end; ++it) {
        std::string name = (*it)[1].str();
        name.erase(std::remove_if(name.begin(), name.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                   name.end());
        if (courseOrLanguage(name) || declares(region, static_cast<std::size_t>(it->position())) ||
            std::find(calls.begin(), calls.end(), name) != calls.end()) {
            continue;
        }
        calls.push_back(name);
    }
    return calls;
}

std::string mainNote() {
    if (Student::directory().empty()) return "";
    std::ifstream file(Student::directory() + "/src/main.cpp");
    if (!file) return "";
    std::ostringstream text;
    text << file.rdbuf();
    std::string calls;
    for (const std::string &call : callsBeforeTests(text.str())) calls += (calls.empty() ? "" : ", ") + call + "()";
    if (calls.empty()) return "";
    return fmt::format("your src/main.cpp calls {} before the tests; the harness does not run main.cpp "
                       "(a function harnessSetup() of yours it does run: docs/student-implementation.md)",
                       calls);
}

}  // namespace Harness
