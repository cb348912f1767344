// The failures of a fuzz run, grouped by signature: the first case of each
// distinct signature is kept (and written to the output folder), later ones
// are counted. Failures whose signature or message contains an --ignore text
// are counted apart (known bugs).
#pragma once

#include "supervisor.h"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace fusebox::fuzz {

struct Finding {
  FailureReport first;
  int64_t count = 0;
  bool ignored = false;
  std::string file;  // where it was written ("" when not written)
};

class Findings {
 public:
  Findings(std::string out_dir, std::vector<std::string> ignore);

  // Records a failure; true when it is the first of its signature and not ignored.
  bool add(const FailureReport& r);
  // Writes the finding of `signature` as `text` (a script or the raw input)
  // with `extension`, plus a .txt sidecar saying what fails; returns the path.
  std::string write(const std::string& signature, const std::string& text,
                    const std::string& extension, const std::string& note = {});

  const std::map<std::string, Finding>& all() const { return by_signature_; }
  int64_t failures() const;  // cases, ignored ones excluded
  int64_t ignoredCases() const;
  void printSummary(std::ostream& out) const;

 private:
  std::string out_dir_;
  std::vector<std::string> ignore_;
  std::map<std::string, Finding> by_signature_;
};

// A printable one-line form of a message (control bytes escaped, truncated).
std::string printable(const std::string& s, size_t max_length = 300);

}  // namespace fusebox::fuzz
