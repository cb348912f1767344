#include "minimize.h"

#include <algorithm>
#include <sstream>

namespace fusebox::fuzz {

std::vector<bool> ddmin(size_t units,
                        const std::function<bool(const std::vector<bool>&)>& reproduces,
                        int64_t max_checks) {
  std::vector<bool> keep(units, true);
  int64_t checks = 0;
  auto kept = [&]() {
    std::vector<size_t> idx;
    for (size_t i = 0; i < keep.size(); ++i)
      if (keep[i]) idx.push_back(i);
    return idx;
  };
  size_t n = 2;
  while (checks < max_checks) {
    std::vector<size_t> idx = kept();
    if (idx.size() < 2) break;
    n = std::min(n, idx.size());
    bool reduced = false;
    // Try removing each of n chunks (keeping the complement).
    for (size_t c = 0; c < n && checks < max_checks; ++c) {
      size_t begin = idx.size() * c / n, end = idx.size() * (c + 1) / n;
      std::vector<bool> trial = keep;
      for (size_t k = begin; k < end; ++k) trial[idx[k]] = false;
      ++checks;
      if (reproduces(trial)) {
        keep = trial;
        n = std::max<size_t>(n - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (n >= idx.size()) break;
      n = std::min(n * 2, idx.size());
    }
  }
  return keep;
}

FuzzCase minimizeCase(const FuzzCase& c, const std::function<bool(const FuzzCase&)>& reproduces,
                      int64_t max_checks) {
  std::vector<bool> keep = ddmin(
      c.body.size(),
      [&](const std::vector<bool>& k) {
        std::vector<bool> drop(k.size());
        for (size_t i = 0; i < k.size(); ++i) drop[i] = !k[i];
        return reproduces(withoutStatements(c, drop));
      },
      max_checks);
  std::vector<bool> drop(keep.size());
  for (size_t i = 0; i < keep.size(); ++i) drop[i] = !keep[i];
  FuzzCase m = withoutStatements(c, drop);
  // Exact-output names that no longer exist are harmless, but tidy them.
  std::vector<std::string> exact;
  for (const auto& name : m.exact_outputs)
    for (const auto& st : m.body)
      if (st.text.rfind(name + " = ", 0) == 0 || st.text.rfind(name + ",", 0) == 0 ||
          st.text.find(", " + name + " = ") != std::string::npos) {
        exact.push_back(name);
        break;
      }
  m.exact_outputs = exact;
  return m;
}

std::string minimizeText(const std::string& text,
                         const std::function<bool(const std::string&)>& reproduces,
                         int64_t max_checks) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l + "\n");
  if (!text.empty() && text.back() != '\n' && !lines.empty()) lines.back().pop_back();
  auto join = [](const std::vector<std::string>& parts, const std::vector<bool>& keep) {
    std::string s;
    for (size_t i = 0; i < parts.size(); ++i)
      if (keep[i]) s += parts[i];
    return s;
  };
  std::vector<bool> keep = ddmin(
      lines.size(), [&](const std::vector<bool>& k) { return reproduces(join(lines, k)); },
      max_checks / 2);
  std::string reduced = join(lines, keep);
  if (reduced.size() > 4096) return reduced;  // characters one by one would take too long
  std::vector<std::string> chars;
  for (char ch : reduced) chars.emplace_back(1, ch);
  std::vector<bool> keep_chars = ddmin(
      chars.size(), [&](const std::vector<bool>& k) { return reproduces(join(chars, k)); },
      max_checks / 2);
  return join(chars, keep_chars);
}

}  // namespace fusebox::fuzz
