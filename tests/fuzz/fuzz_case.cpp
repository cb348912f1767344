#include "fuzz_case.h"

#include <fmt/format.h>

#include <sstream>

namespace fusebox::fuzz {

namespace {

constexpr const char* kExactPrefix = "fuzz-exact:";
constexpr const char* kTolerancePrefix = "fuzz-tolerance:";
constexpr const char* kDisabledPrefix = "fuzz-disable-passes:";
constexpr const char* kFunction = "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :";

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// A body line that defines a fusion input: a tensor, or a scalar without a value.
bool definesInput(const std::string& line) {
  if (line.find("fd.define_tensor(") != std::string::npos) return true;
  return line.find("fd.define_scalar(None") != std::string::npos ||
         line.find("fd.define_scalar(dtype=") != std::string::npos;
}

}  // namespace

std::string renderScript(const FuzzCase& c) {
  std::string s;
  for (const auto& line : c.comments) s += "# " + line + "\n";
  if (!c.exact_outputs.empty())
    s += fmt::format("# {} {}\n", kExactPrefix, fmt::join(c.exact_outputs, " "));
  if (!c.tolerances.empty())
    s += fmt::format("# {} {}\n", kTolerancePrefix, fmt::join(c.tolerances, " "));
  if (!c.disabled_passes.empty())
    s += fmt::format("# {} {}\n", kDisabledPrefix, fmt::join(c.disabled_passes, " "));
  s += "import torch\nfrom nvfuser import FusionDefinition, DataType\n\n";
  s += std::string(kFunction) + "\n";
  for (const auto& st : c.body) s += "    " + st.text + "\n";
  if (c.body.empty()) s += "    pass\n";
  s += "\ninputs = [\n";
  for (const auto& in : c.inputs) s += "    " + in + ",\n";
  s += "]\n\nwith FusionDefinition() as fd:\n    nvfuser_fusion_id0(fd)\n\nfd.execute(inputs)\n";
  return s;
}

bool parseCaseText(const std::string& text, FuzzCase& out) {
  out = FuzzCase{};
  std::istringstream in(text);
  std::string line;
  enum { Header, Body, Between, Inputs, Tail } state = Header;
  int next_input = 0;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    switch (state) {
      case Header:
        if (startsWith(t, "# " + std::string(kExactPrefix))) {
          std::istringstream names(t.substr(2 + std::string(kExactPrefix).size()));
          std::string n;
          while (names >> n) out.exact_outputs.push_back(n);
        } else if (startsWith(t, "# " + std::string(kTolerancePrefix))) {
          std::istringstream names(t.substr(2 + std::string(kTolerancePrefix).size()));
          std::string n;
          while (names >> n) out.tolerances.push_back(n);
        } else if (startsWith(t, "# " + std::string(kDisabledPrefix))) {
          std::istringstream names(t.substr(2 + std::string(kDisabledPrefix).size()));
          std::string n;
          while (names >> n) out.disabled_passes.push_back(n);
        } else if (startsWith(t, "#")) {
          out.comments.push_back(trim(t.substr(1)));
        } else if (startsWith(t, "def ")) {
          state = Body;
        }
        break;
      case Body:
        if (t.empty()) {
          state = Between;
        } else if (line[0] == ' ' || line[0] == '\t') {
          if (t == "pass") break;
          FuzzStatement st{t, definesInput(t) ? next_input++ : -1};
          out.body.push_back(st);
        } else {
          state = startsWith(t, "inputs = [") ? Inputs : Tail;
        }
        break;
      case Between:
        if (startsWith(t, "inputs = [")) state = Inputs;
        break;
      case Inputs:
        if (t == "]") {
          state = Tail;
        } else if (!t.empty()) {
          if (t.back() == ',') t.pop_back();
          out.inputs.push_back(t);
        }
        break;
      case Tail:
        break;
    }
  }
  return state == Tail && static_cast<int>(out.inputs.size()) == next_input;
}

CaseExpectations readExpectations(const std::string& script) {
  CaseExpectations e;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    std::string t = trim(line);
    if (startsWith(t, "# fuzz-backend:")) {
      std::istringstream word(t.substr(15));
      word >> e.backend;
    }
    for (const char* prefix : {kExactPrefix, kTolerancePrefix, kDisabledPrefix}) {
      if (!startsWith(t, "# " + std::string(prefix))) continue;
      std::istringstream names(t.substr(2 + std::string(prefix).size()));
      for (std::string n; names >> n;) {
        size_t eq = n.find('=');
        if (prefix == kExactPrefix)
          e.exact.push_back(n);
        else if (prefix == kDisabledPrefix)
          e.disabled_passes.push_back(n);
        else if (eq != std::string::npos)
          e.tolerance.push_back({n.substr(0, eq), n.substr(eq + 1)});
      }
    }
  }
  return e;
}

FuzzCase withoutStatements(const FuzzCase& c, const std::vector<bool>& drop) {
  FuzzCase r;
  r.comments = c.comments;
  r.exact_outputs = c.exact_outputs;
  r.tolerances = c.tolerances;
  r.disabled_passes = c.disabled_passes;
  int next_input = 0;
  for (size_t i = 0; i < c.body.size(); ++i) {
    const FuzzStatement& st = c.body[i];
    if (i < drop.size() && drop[i]) continue;
    FuzzStatement kept = st;
    if (st.input_index >= 0) {
      kept.input_index = next_input++;
      if (st.input_index < static_cast<int>(c.inputs.size()))
        r.inputs.push_back(c.inputs[st.input_index]);
    }
    r.body.push_back(kept);
  }
  return r;
}

}  // namespace fusebox::fuzz
