// Reads Python expressions from the token stream and evaluates them on the
// spot (no syntax tree): literals (complex ones too), lists and tuples,
// constant arithmetic on numbers, names, dotted names, calls (with `*args`),
// method calls, indexing and slicing. What names and calls mean is up to a
// Resolver, so the same reader serves the fusion body (fd.*, T0.size(1)) and
// the inputs list (torch.randn(...)); the inputs list's tensors answer for
// themselves (input_views.h).
#pragma once

#include "frontend/py_value.h"
#include "frontend/python_lexer.h"

#include <string>
#include <utility>
#include <vector>

namespace fusebox::frontend {

struct CallArgs {
  std::vector<PyValue> positional;
  std::vector<std::pair<Token, PyValue>> keywords;
  SourceLocation where;  // the callee's first token
};

class Resolver {
 public:
  virtual ~Resolver() = default;
  // Whether `name` is a variable; then `name.method(...)` calls method() on its value.
  virtual bool isVariable(const std::string& name) = 0;
  // A name or dotted name that is not called: `T0`, `DataType.Float`, `torch.float16`.
  virtual PyValue name(const std::vector<Token>& path) = 0;
  // A call of a name or dotted name: `fd.ops.add(...)`, `torch.randn(...)`.
  virtual PyValue call(const std::vector<Token>& path, CallArgs args) = 0;
  // A method call on a value: `T0.size(1)`, `torch.randn(...).as_strided(...)`.
  virtual PyValue method(PyValue self, const Token& name, CallArgs args) = 0;
};

// A position in the token stream with the checks every reader needs.
class Cursor {
 public:
  Cursor(const std::vector<Token>& tokens, std::string file)
      : tokens_(tokens), file_(std::move(file)) {}

  const Token& peek(size_t ahead = 0) const;
  const Token& next();
  bool atOp(std::string_view op) const { return peek().isOp(op); }
  bool atName(std::string_view name) const { return peek().isName(name); }
  bool at(TokenKind kind) const { return peek().kind == kind; }
  // Consumes the operator if it is next.
  bool acceptOp(std::string_view op);
  // Consumes the operator, or fails with "expected <what>".
  const Token& expectOp(std::string_view op, std::string_view what = {});
  const Token& expectName(std::string_view what);
  const Token& expectKeyword(std::string_view keyword, std::string_view what = {});
  void expectEndOfStatement();

  SourceLocation loc(const Token& t) const { return SourceLocation{file_, t.line, t.column}; }
  SourceLocation here() const { return loc(peek()); }
  [[noreturn]] void fail(const Token& at, const std::string& message) const;
  [[noreturn]] void failExpected(std::string_view what) const;

  size_t position() const { return pos_; }
  void seek(size_t pos) { pos_ = pos; }
  const std::string& file() const { return file_; }

 private:
  const std::vector<Token>& tokens_;
  std::string file_;
  size_t pos_ = 0;
};

// Reads one expression (no bare tuples: `a, b` stops at the comma).
PyValue parseExpression(Cursor& cur, Resolver& resolver);
// Reads "(...)" after a callee; the cursor is on the "(".
CallArgs parseCallArgs(Cursor& cur, Resolver& resolver, SourceLocation callee);
// Skips a balanced bracketed group starting at the cursor's opening bracket.
void skipBracketed(Cursor& cur);
// "DataType.Float" / "fd.ops.add" for messages.
std::string joinPath(const std::vector<Token>& path);

}  // namespace fusebox::frontend
