// The CSV report: its header on the first line, then a row per cell as it arrives, every
// row with its run's columns, so that any CSV reader takes it with its defaults.

#include <string>
#include <vector>

#include "report/row_schema.h"
#include "report/writers.h"

namespace Harness {

namespace {

class CsvReporter : public Reporter {
public:
    explicit CsvReporter(Output out) : out_(std::move(out)) {}

    void begin(const Context &context) override {
        run_ = runFields(context);
        writeLine(rowFields(Row{}), [](const Field &field) { return field.key; });
    }
    void add(const Row &row) override {
        writeLine(rowFields(row), [](const Field &field) { return plainText(field.value); });
    }
    void endOp() override {}
    void stop(const std::string &) override {}
    void end() override {}

private:
    template <typename Text>
    void writeLine(const std::vector<Field> &fields, Text text) {
        std::string line;
        for (const Field &field : run_) (line += line.empty() ? "" : ",") += csvField(text(field));
        for (const Field &field : fields) (line += line.empty() ? "" : ",") += csvField(text(field));
        out_.write(line + "\n");
    }

    Output out_;
    std::vector<Field> run_;
};

}  // namespace

std::unique_ptr<Reporter> makeCsvReporter(Output out) { return std::make_unique<CsvReporter>(std::move(out)); }

std::string csvField(const std::string &text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

}  // namespace Harness
