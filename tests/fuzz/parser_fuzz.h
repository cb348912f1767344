// Mutation fuzzing of the two text parsers: nvFuser Python scripts and the
// TOML configuration. A parser may accept an input or refuse it with a
// UserError; anything else (another exception, a crash, a hang, unbounded
// memory) is a finding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::fuzz {

enum class ParserTarget { Python, Toml };

struct ParserCorpus {
  std::vector<std::string> python, toml;
  // Tokens cut from the corpus (identifiers, numbers, strings, punctuation),
  // for splicing.
  std::vector<std::string> python_tokens, toml_tokens;
};

// Reads every .py and .toml file under `paths` (files or folders).
ParserCorpus loadParserCorpus(const std::vector<std::string>& paths);

struct Mutation {
  ParserTarget target = ParserTarget::Python;
  std::string text;
  std::string how;  // the mutations applied, e.g. "bitflip, token-splice"
};

// Mutation number `index` of run `seed`: a pure function of both, the corpus
// and `max_depth` (the deepest bracket or dotted-key nesting it makes).
Mutation makeMutation(const ParserCorpus& corpus, uint64_t seed, int64_t index,
                      int64_t max_depth = 50000);

struct ParserCheckOptions {
  // Also require every UserError to name file:line:col (or the file), and its
  // message to hold no raw control bytes and stay under 4 KB.
  bool message_checks = false;
};

// Runs the parser (and, for Python, the printer round trip and the inputs
// list) on `text`. nullopt when it accepted it or raised a UserError; else
// "category: what happened".
std::optional<std::string> checkParserInput(ParserTarget target, const std::string& text,
                                            const ParserCheckOptions& options = {});

}  // namespace fusebox::fuzz
