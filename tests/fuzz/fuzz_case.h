// A fuzz case: an nvFuser repro script kept as its parts (fusion body lines and
// inputs-list entries), so the minimizer can drop statements and the inputs
// they define together, and any case can be written out as a runnable .py.
#pragma once

#include <string>
#include <vector>

namespace fusebox::fuzz {

struct FuzzStatement {
  std::string text;      // one line of the fusion body, without indentation
  int input_index = -1;  // >= 0: defines fusion input #input_index
};

struct FuzzCase {
  std::vector<std::string> comments;  // header lines, without the leading "# "
  std::vector<FuzzStatement> body;
  std::vector<std::string> inputs;  // one inputs-list entry per fusion input, in order
  // Outputs the generator proved every correct backend computes bit for bit
  // (their script names); the checker compares them exactly. Written as a
  // "# fuzz-exact: T3 T7" header line.
  std::vector<std::string> exact_outputs;
  // Inexact outputs whose rounding errors came through a less precise dtype
  // than their own ("T6=float": a float result cast to double), compared
  // with that dtype's tolerance. A "# fuzz-tolerance: T6=float" line.
  std::vector<std::string> tolerances;
  // Passes the checker disables for this case (a "# fuzz-disable-passes:"
  // line; `fusebox run --disable-pass NAME` does the same).
  std::vector<std::string> disabled_passes;
};

// What the header lines of a case script promise about its outputs.
struct CaseExpectations {
  std::vector<std::string> exact;
  std::vector<std::pair<std::string, std::string>> tolerance;  // name, dtype name
  std::vector<std::string> disabled_passes;
  std::string backend;  // "host" or "eval" from a "# fuzz-backend:" line; "" when none
};
CaseExpectations readExpectations(const std::string& script);

// The whole script: header comments, the definition, the inputs list and the
// `with FusionDefinition()` block, as nvFuser users paste it.
std::string renderScript(const FuzzCase& c);

// Reads back a script that renderScript wrote (or one edited by hand in the
// same layout). Returns false when the layout is not recognized.
bool parseCaseText(const std::string& text, FuzzCase& out);

// The case with body statements `drop` removed; removing an input's definition
// removes its inputs-list entry too.
FuzzCase withoutStatements(const FuzzCase& c, const std::vector<bool>& drop);

}  // namespace fusebox::fuzz
