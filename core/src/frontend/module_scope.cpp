#include "frontend/module_scope.h"

#include <fmt/format.h>

#include <optional>

namespace fusebox::frontend {

std::set<std::string> assignedNames(const std::vector<Token>& tokens, size_t body_start) {
  std::set<std::string> names;
  int depth = 1;
  bool statement_start = true;
  for (size_t i = body_start; i < tokens.size() && depth > 0; ++i) {
    const Token& t = tokens[i];
    if (t.kind == TokenKind::Indent || t.kind == TokenKind::Dedent ||
        t.kind == TokenKind::Newline) {
      depth += t.kind == TokenKind::Indent ? 1 : t.kind == TokenKind::Dedent ? -1 : 0;
      statement_start = true;
      continue;
    }
    if (t.kind == TokenKind::End) break;
    if (!statement_start) continue;
    statement_start = false;
    // NAME (, NAME)* =
    std::vector<std::string> targets;
    size_t j = i;
    while (j + 1 < tokens.size() && tokens[j].kind == TokenKind::Name) {
      targets.push_back(tokens[j].text);
      if (tokens[j + 1].isOp("=")) {
        names.insert(targets.begin(), targets.end());
        break;
      }
      if (!tokens[j + 1].isOp(",")) break;
      j += 2;
    }
  }
  return names;
}

void checkModuleRead(const Token& name, const SourceLocation& where,
                     const std::set<std::string>& function_locals,
                     const std::vector<Token>& assignments) {
  const std::string text = displayText(name.text);
  if (function_locals.count(name.text))
    throw UserError(where, fmt::format("{0} is read before the function assigns it (as in Python, "
                                       "a name the function assigns is its own, not the module's "
                                       "{0})",
                                       text));
  if (assignments.size() > 1)
    throw UserError(
        where, fmt::format("{} is assigned {} times at the module level ({}:{} and "
                           "{}:{}); the definition reads module values once the "
                           "script is read, so it needs one",
                           text, assignments.size(), assignments[0].line, assignments[0].column,
                           assignments[1].line, assignments[1].column));
}

void checkFromPytorchPositions(const std::vector<FromPytorchUse>& uses, const PyValue& list,
                               const std::string& list_name) {
  for (const FromPytorchUse& use : uses) {
    // The tensor may be listed more than once; any of its places will do.
    std::optional<size_t> position;
    bool in_place = false;
    for (size_t i = 0; i < list.items.size(); ++i) {
      if (list.items[i].input != use.tensor) continue;
      if (!position) position = i;
      in_place |= i == use.input_index;
    }
    if (!position || in_place) continue;
    throw UserError(use.where,
                    fmt::format("fd.from_pytorch({0}[{1}]) defines fusion input {2}, but "
                                "fd.execute({0}) passes {0}[{2}] there (inputs bind by position)",
                                list_name, *position, use.input_index));
  }
}

}  // namespace fusebox::frontend
