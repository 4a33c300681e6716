#pragma once
// A check of markdown against what GitHub needs to render it as meant: every table starts
// after a blank line, has an alignment row and as many cells in each row as its header;
// every footnote reference ([^1]) has one definition and every definition a reference;
// <details> blocks are closed and leave blank lines around their markdown.

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace GfmCheck {

// The cells of a table line: split on '|' outside code spans, a "\|" kept in its cell.
inline std::size_t cellCount(const std::string &line) {
    std::size_t pipes = 0;
    bool code = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\\') ++i;
        else if (line[i] == '`') code = !code;
        else if (line[i] == '|' && !code) ++pipes;
    }
    // "| a | b |" has 3 pipes and 2 cells: a leading and a trailing pipe bound the row.
    return pipes - 1;
}

inline bool isAlignmentRow(const std::string &line) {
    static const std::regex row(R"(^\|( *:?-+:? *\|)+$)");
    return std::regex_match(line, row);
}

/** What in `markdown` GitHub would not render as a table or footnote; empty when all is well. */
inline std::vector<std::string> problems(const std::string &markdown) {
    std::vector<std::string> lines;
    std::istringstream in(markdown);
    for (std::string line; std::getline(in, line);) lines.push_back(line);

    std::vector<std::string> found;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].empty() || lines[i][0] != '|') continue;
        const std::size_t header = cellCount(lines[i]);
        if (i > 0 && !lines[i - 1].empty()) found.push_back("line " + std::to_string(i + 1) + ": a table without a blank line before it");
        if (i + 1 >= lines.size() || !isAlignmentRow(lines[i + 1])) {
            found.push_back("line " + std::to_string(i + 1) + ": a table line without an alignment row under its header");
            continue;
        }
        std::size_t r = i + 1;
        for (; r < lines.size() && !lines[r].empty() && lines[r][0] == '|'; ++r) {
            if (cellCount(lines[r]) != header) {
                found.push_back("line " + std::to_string(r + 1) + ": " + std::to_string(cellCount(lines[r])) +
                                " cells under a header of " + std::to_string(header));
            }
        }
        if (r < lines.size() && !lines[r].empty()) found.push_back("line " + std::to_string(r + 1) + ": text right under a table");
        i = r - 1;
    }

    std::map<std::string, int> definitions, references;
    static const std::regex definition(R"(^\[\^([^\]\s]+)\]: )");
    static const std::regex reference(R"(\[\^([^\]\s]+)\])");
    for (const std::string &line : lines) {
        std::smatch match;
        std::string rest = line;
        if (std::regex_search(line, match, definition)) {
            ++definitions[match[1]];
            rest = match.suffix();
        }
        for (auto it = std::sregex_iterator(rest.begin(), rest.end(), reference); it != std::sregex_iterator(); ++it)
            ++references[(*it)[1]];
    }
    for (const auto &[label, count] : definitions) {
        if (count > 1) found.push_back("footnote [^" + label + "] is defined " + std::to_string(count) + " times");
        if (!references.count(label)) found.push_back("footnote [^" + label + "] is defined but never referenced");
    }
    for (const auto &[label, count] : references)
        if (!definitions.count(label)) found.push_back("footnote [^" + label + "] is referenced but never defined");

    const auto count = [&markdown](const std::string &word) {
        std::size_t n = 0;
        for (std::size_t at = markdown.find(word); at != std::string::npos; at = markdown.find(word, at + 1)) ++n;
        return n;
    };
    if (count("<details>") != count("</details>")) found.push_back("a <details> block is not closed");
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].find("</summary>") != std::string::npos && (i + 1 >= lines.size() || !lines[i + 1].empty()))
            found.push_back("line " + std::to_string(i + 2) + ": no blank line after </summary>");
        if (lines[i] == "</details>" && (i == 0 || !lines[i - 1].empty()))
            found.push_back("line " + std::to_string(i + 1) + ": no blank line before </details>");
    }
    return found;
}

/** The problems as one message, for a failed expectation. */
inline std::string describe(const std::vector<std::string> &found) {
    std::string text;
    for (const std::string &problem : found) text += problem + "\n";
    return text;
}

}  // namespace GfmCheck
