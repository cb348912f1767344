// Small definition scripts for the frontend tests: a fusion body written
// under a def, an inputs list under a definition with one input per entry,
// and a check of where a script is refused.
#pragma once

#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fusebox::testing {

// `lines`, each indented by four spaces (a body under a def or a with).
inline std::string indented(const std::string& lines) {
  std::string out;
  size_t start = 0;
  while (start < lines.size()) {
    size_t end = lines.find('\n', start);
    if (end == std::string::npos) end = lines.size();
    out += "    " + lines.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// The inputs list `entries` of a definition with `count` rank-1 tensor inputs
// (what the entries make is not checked against them).
inline std::vector<InputSpec> parseInputsList(const std::string& entries, size_t count) {
  std::string src =
      "import torch\nfrom nvfuser import FusionDefinition, DataType\n"
      "def f(fd : FusionDefinition) -> None :\n";
  for (size_t i = 0; i < count; ++i)
    src += "    T" + std::to_string(i) + " = fd.define_tensor(shape=[-1])\n";
  src += "inputs = [\n" + entries + "\n]\n";
  PythonDefinition d = parsePythonDefinition(src, "inputs.py");
  EXPECT_TRUE(d.has_inputs_list);
  return d.inputs;
}

// The tensor one inputs-list entry describes.
inline InputSpec parseInputEntry(const std::string& entry) {
  std::vector<InputSpec> specs = parseInputsList(entry, 1);
  EXPECT_EQ(specs.size(), 1u);
  return specs.at(0);
}

// Reading `source` fails at line:column with a message holding `phrase`.
inline void expectRefusedAt(const std::string& source, int line, int column,
                            const std::string& phrase) {
  try {
    parsePythonDefinition(source, "refused.py");
    ADD_FAILURE() << "no error for:\n" << source;
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().column, column) << e.what();
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos)
        << "message: " << e.what() << "\nexpected phrase: " << phrase;
  }
}

}  // namespace fusebox::testing
