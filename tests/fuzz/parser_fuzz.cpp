#include "parser_fuzz.h"

#include <fmt/format.h>
#include <fusebox/config.h>
#include <fusebox/frontend/python_definition.h>
#include <fusebox/options.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace fusebox::fuzz {

namespace {

std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Identifiers, numbers, quoted strings and single punctuation characters.
std::vector<std::string> tokenize(const std::string& text) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t j = i + 1;
    if (std::isalpha(c) || c == '_') {
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) ||
                                 text[j] == '_' || text[j] == '.'))
        ++j;
    } else if (std::isdigit(c)) {
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '.'))
        ++j;
    } else if (c == '"' || c == '\'') {
      while (j < text.size() && text[j] != static_cast<char>(c) && text[j] != '\n') ++j;
      if (j < text.size()) ++j;
    } else if (std::isspace(c)) {
      i = j;
      continue;
    }
    tokens.push_back(text.substr(i, j - i));
    i = j;
  }
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  return tokens;
}

const std::vector<std::string>& interestingTokens(ParserTarget t) {
  static const std::vector<std::string> python = {"9223372036854775807",
                                                  "-9223372036854775808",
                                                  "9223372036854775808",
                                                  "2 ** 64",
                                                  "10 ** 400",
                                                  "1e400",
                                                  "-1e-400",
                                                  "0x7fffffff",
                                                  "1_000",
                                                  "0",
                                                  "-1",
                                                  "-0.0",
                                                  "1.",
                                                  ".5",
                                                  "float('nan')",
                                                  "float('inf')",
                                                  "float('-inf')",
                                                  "None",
                                                  "True",
                                                  "False",
                                                  "[]",
                                                  "()",
                                                  "[[]]",
                                                  "((",
                                                  "))",
                                                  "[",
                                                  "]",
                                                  ",",
                                                  ",,",
                                                  ":",
                                                  "=",
                                                  "==",
                                                  "**",
                                                  "//",
                                                  "%",
                                                  "\\",
                                                  "\\\n",
                                                  "#",
                                                  "'''",
                                                  "\"\"\"",
                                                  "'\\x00'",
                                                  "\"\\u00e9\"",
                                                  "lambda",
                                                  "import os",
                                                  "def",
                                                  "with",
                                                  "for _ in range(3):",
                                                  "if True:",
                                                  "    ",
                                                  "\t",
                                                  "fd.ops.",
                                                  "fd.ops.add",
                                                  "fd.define_tensor(",
                                                  "fd.add_output(",
                                                  "DataType.Null",
                                                  "DataType.Float",
                                                  "DataType.Foo",
                                                  "dims=",
                                                  "shape=",
                                                  "alias_input=",
                                                  "stride_order=",
                                                  ".as_strided(",
                                                  "torch.randn(",
                                                  "torch.Size([",
                                                  "device='cuda'",
                                                  "T0",
                                                  "S1",
                                                  "T9999999",
                                                  "\xc3\xa9",
                                                  "\xff",
                                                  std::string(1, '\0'),
                                                  "\r",
                                                  "\r\n"};
  static const std::vector<std::string> toml = {"[",
                                                "]",
                                                "[[",
                                                "]]",
                                                "=",
                                                "\"",
                                                "'",
                                                "\"\"\"",
                                                "'''",
                                                "#",
                                                ".",
                                                "a.b.c",
                                                "[passes]",
                                                "[plugins]",
                                                "[schedulers]",
                                                "[dump]",
                                                "[runtime]",
                                                "[passes.remove_bcast_squeeze]",
                                                "order",
                                                "disabled",
                                                "paths",
                                                "print_after",
                                                "verify_passes",
                                                "true",
                                                "false",
                                                "0",
                                                "-1",
                                                "9223372036854775808",
                                                "1e400",
                                                "nan",
                                                "inf",
                                                "1979-05-27T07:32:00Z",
                                                "0x10",
                                                "{}",
                                                "{a = 1}",
                                                "[]",
                                                "[1, \"a\"]",
                                                "\"@builtin\"",
                                                "\"/\"",
                                                "\"\\u0000\"",
                                                "\\",
                                                "\xc3\xa9",
                                                "\xff",
                                                std::string(1, '\0'),
                                                "\r",
                                                "\n",
                                                "\t"};
  return t == ParserTarget::Python ? python : toml;
}

class Mutator {
 public:
  Mutator(const ParserCorpus& corpus, ParserTarget target, uint64_t seed, int64_t max_depth)
      : corpus_(corpus), target_(target), rng_(seed), max_depth_(max_depth) {}

  int64_t below(int64_t n) {
    return n <= 0 ? 0 : static_cast<int64_t>(rng_() % static_cast<uint64_t>(n));
  }
  bool chance(double p) { return static_cast<double>(rng_() >> 11) * 0x1.0p-53 < p; }

  const std::vector<std::string>& texts() const {
    return target_ == ParserTarget::Python ? corpus_.python : corpus_.toml;
  }
  const std::vector<std::string>& tokens() const {
    return target_ == ParserTarget::Python ? corpus_.python_tokens : corpus_.toml_tokens;
  }
  std::string anyToken() {
    const auto& pool = chance(0.5) || tokens().empty() ? interestingTokens(target_) : tokens();
    return pool[static_cast<size_t>(below(static_cast<int64_t>(pool.size())))];
  }

  // One mutation of `s`; returns its name.
  std::string apply(std::string& s) {
    const int64_t n = static_cast<int64_t>(s.size());
    switch (below(13)) {
      case 0:
        if (n == 0) return "none";
        s[static_cast<size_t>(below(n))] ^= static_cast<char>(1 << below(8));
        return "bitflip";
      case 1: {
        static const std::string bytes = std::string("\0\xff\n([\"'\\# \t\r\x80\xc3)]:,=.-0", 21);
        if (n == 0) return "none";
        s[static_cast<size_t>(below(n))] =
            bytes[static_cast<size_t>(below(static_cast<int64_t>(bytes.size())))];
        return "byte";
      }
      case 2: {
        std::string ins;
        for (int64_t k = below(8) + 1; k > 0; --k) ins += static_cast<char>(below(256));
        s.insert(static_cast<size_t>(below(n + 1)), ins);
        return "insert-bytes";
      }
      case 3: {
        if (n == 0) return "none";
        int64_t at = below(n), len = std::min<int64_t>(below(32) + 1, n - at);
        s.erase(static_cast<size_t>(at), static_cast<size_t>(len));
        return "delete";
      }
      case 4: {
        if (n == 0) return "none";
        int64_t at = below(n), len = std::min<int64_t>(below(64) + 1, n - at);
        std::string chunk = s.substr(static_cast<size_t>(at), static_cast<size_t>(len));
        s.insert(static_cast<size_t>(below(n + 1)), chunk);
        return "duplicate";
      }
      case 5:
      case 6: {  // replace a token with another
        std::vector<std::pair<size_t, size_t>> spans = tokenSpans(s);
        if (spans.empty()) return "none";
        auto [at, len] = spans[static_cast<size_t>(below(static_cast<int64_t>(spans.size())))];
        s.replace(at, len, anyToken());
        return "token-splice";
      }
      case 7:
        s.insert(static_cast<size_t>(below(n + 1)), anyToken());
        return "token-insert";
      case 8:
        s.resize(static_cast<size_t>(below(n + 1)));
        return "truncate";
      case 9:
        return lineMutation(s);
      case 10:
        return nest(s);
      case 11: {  // splice with another corpus text
        const std::string& other =
            texts()[static_cast<size_t>(below(static_cast<int64_t>(texts().size())))];
        size_t cut = static_cast<size_t>(below(n + 1));
        size_t from = static_cast<size_t>(below(static_cast<int64_t>(other.size()) + 1));
        s = s.substr(0, cut) + other.substr(from);
        return "crossover";
      }
      default: {  // a number somewhere becomes an extreme one
        std::vector<std::pair<size_t, size_t>> nums;
        for (size_t i = 0; i < s.size(); ++i)
          if (std::isdigit(static_cast<unsigned char>(s[i])) &&
              (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1])))) {
            size_t j = i;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
            nums.push_back({i, j - i});
            i = j;
          }
        if (nums.empty()) return "none";
        static const std::vector<std::string> extremes = {"0",
                                                          "1",
                                                          "2147483648",
                                                          "4294967297",
                                                          "9223372036854775807",
                                                          "9223372036854775808",
                                                          "18446744073709551617",
                                                          "99999999999999999999999999",
                                                          "100000000000"};
        auto [at, len] = nums[static_cast<size_t>(below(static_cast<int64_t>(nums.size())))];
        s.replace(at, len,
                  extremes[static_cast<size_t>(below(static_cast<int64_t>(extremes.size())))]);
        return "number";
      }
    }
  }

 private:
  std::vector<std::pair<size_t, size_t>> tokenSpans(const std::string& s) {
    std::vector<std::pair<size_t, size_t>> spans;
    size_t i = 0;
    while (i < s.size() && spans.size() < 4096) {
      if (std::isspace(static_cast<unsigned char>(s[i]))) {
        ++i;
        continue;
      }
      size_t j = i + 1;
      if (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')
        while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      spans.push_back({i, j - i});
      i = j;
    }
    return spans;
  }

  std::string lineMutation(std::string& s) {
    std::vector<std::string> lines;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    if (lines.empty()) return "none";
    size_t a = static_cast<size_t>(below(static_cast<int64_t>(lines.size())));
    size_t b = static_cast<size_t>(below(static_cast<int64_t>(lines.size())));
    std::string how;
    switch (below(4)) {
      case 0:
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(a));
        how = "line-delete";
        break;
      case 1:
        for (int64_t k = below(3) + 1; k > 0; --k)
          lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(b), lines[a]);
        how = "line-duplicate";
        break;
      case 2:
        std::swap(lines[a], lines[b]);
        how = "line-swap";
        break;
      default:
        lines[a] = (chance(0.5) ? std::string(static_cast<size_t>(below(9)), ' ') : "") +
                   lines[a].substr(std::min(lines[a].size(), static_cast<size_t>(below(5))));
        how = "indent";
        break;
    }
    s.clear();
    for (const auto& l : lines) s += l + "\n";
    return how;
  }

  // Deep nesting: brackets around an expression, or (TOML) long dotted keys.
  std::string nest(std::string& s) {
    // Rarely very deep: a reader that recurses per level must bound it.
    int64_t depth = std::min(max_depth_, chance(0.05) ? 50000 : pick({2, 10, 100, 1000, 5000}));
    size_t at = static_cast<size_t>(below(static_cast<int64_t>(s.size()) + 1));
    if (target_ == ParserTarget::Toml && chance(0.5)) {
      std::string key = "a";
      for (int64_t k = 1; k < depth; ++k) key += ".a";
      s.insert(at, "\n[" + key + "]\nx = 1\n");
      return "nest-keys";
    }
    const char* open = target_ == ParserTarget::Toml ? "[" : (chance(0.5) ? "(" : "[");
    const char* close = std::string_view(open) == "(" ? ")" : "]";
    std::string o, c;
    for (int64_t k = 0; k < depth; ++k) {
      o += open;
      c += close;
    }
    if (chance(0.3)) c.clear();  // unbalanced
    size_t end = std::min(s.size(), at + static_cast<size_t>(below(20)));
    s.insert(end, c);
    s.insert(at, o);
    return "nest";
  }

  int64_t pick(std::initializer_list<int64_t> v) {
    return *(v.begin() + below(static_cast<int64_t>(v.size())));
  }

  const ParserCorpus& corpus_;
  ParserTarget target_;
  std::mt19937_64 rng_;
  int64_t max_depth_;
};

bool hasRawControl(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
  return false;
}

}  // namespace

ParserCorpus loadParserCorpus(const std::vector<std::string>& paths) {
  ParserCorpus corpus;
  std::vector<std::filesystem::path> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(p, ec))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (std::filesystem::is_regular_file(p, ec)) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    if (f.extension() == ".py") corpus.python.push_back(readFile(f));
    if (f.extension() == ".toml") corpus.toml.push_back(readFile(f));
  }
  auto gather = [](const std::vector<std::string>& texts) {
    std::string all;
    for (const auto& t : texts) all += t + "\n";
    return tokenize(all);
  };
  corpus.python_tokens = gather(corpus.python);
  corpus.toml_tokens = gather(corpus.toml);
  return corpus;
}

Mutation makeMutation(const ParserCorpus& corpus, uint64_t seed, int64_t index, int64_t max_depth) {
  std::mt19937_64 pick_rng(seed * 0x9E3779B97F4A7C15ull ^
                           static_cast<uint64_t>(index) * 0xD1B54A32D192ED03ull);
  Mutation m;
  bool toml = !corpus.toml.empty() && (corpus.python.empty() || pick_rng() % 10 < 3);
  m.target = toml ? ParserTarget::Toml : ParserTarget::Python;
  const auto& texts = toml ? corpus.toml : corpus.python;
  if (texts.empty()) return m;
  m.text = texts[pick_rng() % texts.size()];
  Mutator mutator(corpus, m.target, pick_rng(), max_depth);
  int64_t count = 1 + mutator.below(4);
  if (mutator.chance(0.1)) count += 8;  // sometimes a lot of damage
  std::vector<std::string> how;
  for (int64_t k = 0; k < count; ++k) how.push_back(mutator.apply(m.text));
  if (m.text.size() > (1u << 20)) m.text.resize(1u << 20);
  m.how = fmt::format("{}", fmt::join(how, ", "));
  return m;
}

std::optional<std::string> checkParserInput(ParserTarget target, const std::string& text,
                                            const ParserCheckOptions& options) {
  const std::string file = target == ParserTarget::Python ? "fuzz.py" : "fuzz.toml";
  auto checkMessage = [&](const UserError& e) -> std::optional<std::string> {
    if (!options.message_checks) return std::nullopt;
    std::string m = e.what();
    if (m.rfind(file, 0) != 0) return "no-location: " + m.substr(0, 300);
    if (hasRawControl(m)) return "raw-bytes-in-message: " + m.substr(0, 300);
    if (m.size() > 4096)
      return fmt::format("long-message: {} bytes: {}", m.size(), m.substr(0, 200));
    return std::nullopt;
  };
  try {
    if (target == ParserTarget::Toml) {
      Config config = parseConfig(text, file);
      Options o;
      o.applyConfig(config);
      return std::nullopt;
    }
    PythonDefinition def = parsePythonDefinition(text, file);
    // What the reader accepts, the writer must write back readably.
    std::string printed = printPythonDefinition(*def.fusion);
    try {
      PythonDefinition again = parsePythonDefinition(printed, "printed.py");
      std::string why;
      if (!Fusion::structurallyEqual(*def.fusion, *again.fusion, &why))
        return "round-trip: the printed script reads back as another fusion: " + why;
    } catch (const UserError& e) {
      return std::string("round-trip: the printed script does not read back: ") + e.what();
    }
    // Small inputs are made too (big ones would only measure memory).
    auto elements = [](const std::vector<int64_t>& shape) {
      double n = 1;
      for (int64_t s : shape) n *= static_cast<double>(std::max<int64_t>(s, 0));
      return n;
    };
    for (size_t i = 0; i < def.inputs.size(); ++i)
      if (elements(def.inputs[i].shape) < 65536 && elements(def.inputs[i].base_shape) < 65536)
        materializeInput(def.inputs[i], i);
    return std::nullopt;
  } catch (const UserError& e) {
    return checkMessage(e);
  } catch (const std::bad_alloc&) {
    return std::string("out-of-memory: std::bad_alloc");
  } catch (const std::exception& e) {
    return std::string("internal-error: ") + e.what();
  }
}

}  // namespace fusebox::fuzz
