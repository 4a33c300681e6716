#include "report/tables.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace Harness {

namespace {

std::string padded(const std::string &text, std::size_t width, bool right) {
    const std::string fill(width - std::min(width, displayWidth(text)), ' ');
    return right ? fill + text : text + fill;
}

bool rightAligned(const Table &table, std::size_t column) {
    if (column < table.align.size()) return table.align[column] == Table::Align::Right;
    return column > 0;
}

std::string escapedCell(const std::string &cell) {
    std::string text;
    for (char c : cell) text += c == '|' ? std::string("\\|") : std::string(1, c);
    return text;
}

}  // namespace

std::size_t displayWidth(const std::string &text) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string markdownTable(const Table &table) {
    const auto line = [](const std::vector<std::string> &cells) {
        std::string text = "|";
        for (const std::string &cell : cells) {
            text += ' ';
            text += escapedCell(cell);
            text += " |";
        }
        return text + "\n";
    };
    std::vector<std::string> rule;
    for (std::size_t c = 0; c < table.header.size(); ++c) rule.push_back(rightAligned(table, c) ? "---:" : "---");
    std::string text = fmt::format("**{}**\n\n", table.title) + line(table.header) + line(rule);
    for (const auto &row : table.rows) text += line(row);
    return text + "\n";
}

std::string textTable(const Table &table) {
    std::vector<std::size_t> widths(table.header.size(), 0);
    for (std::size_t c = 0; c < widths.size(); ++c) {
        widths[c] = displayWidth(table.header[c]);
        for (const auto &row : table.rows) widths[c] = std::max(widths[c], displayWidth(row[c]));
    }
    const auto line = [&](const std::vector<std::string> &cells) {
        std::string text;
        for (std::size_t c = 0; c < cells.size(); ++c) text += "  " + padded(cells[c], widths[c], rightAligned(table, c));
        // A left-aligned last column leaves no trailing spaces.
        while (!text.empty() && text.back() == ' ') text.pop_back();
        return text + "\n";
    };
    std::string rule;
    for (std::size_t c = 0; c < widths.size(); ++c) rule += "  " + std::string(widths[c], '-');
    std::string text = table.title + "\n" + line(table.header) + rule + "\n";
    for (const auto &row : table.rows) text += line(row);
    return text + "\n";
}

std::string threeDigits(double value) {
    if (!std::isfinite(value)) return "";
    if (value == 0) return "0";
    // The decade of the value once rounded: 9.996 rounds to 10.0, a decade up.
    int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
    const double step = std::pow(10.0, exponent - 2);
    const double rounded = std::round(std::fabs(value) / step) * step;
    if (rounded >= std::pow(10.0, exponent + 1)) ++exponent;
    if (exponent >= 2) return fmt::format("{:.0f}", std::copysign(rounded, value));
    return fmt::format("{:.{}f}", value, 2 - exponent);
}

TimeUnit timeUnitFor(double largestMs) {
    // Below 0.9995 ms every figure reads below 1000 µs at three digits.
    if (largestMs < 0.9995) return {"µs", 1000};
    return {"ms", 1};
}

}  // namespace Harness
