#include "frontend/python_expr.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "frontend/input_views.h"

namespace fusebox::frontend {

// ---- Cursor -------------------------------------------------------------------

const Token& Cursor::peek(size_t ahead) const {
  size_t i = pos_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

const Token& Cursor::next() {
  const Token& t = peek();
  if (pos_ < tokens_.size() - 1) ++pos_;
  return t;
}

bool Cursor::acceptOp(std::string_view op) {
  if (!atOp(op)) return false;
  next();
  return true;
}

const Token& Cursor::expectOp(std::string_view op, std::string_view what) {
  if (!atOp(op)) failExpected(what.empty() ? fmt::format("'{}'", op) : std::string(what));
  return next();
}

const Token& Cursor::expectName(std::string_view what) {
  if (!at(TokenKind::Name)) failExpected(what);
  return next();
}

const Token& Cursor::expectKeyword(std::string_view keyword, std::string_view what) {
  if (!atName(keyword))
    failExpected(what.empty() ? fmt::format("'{}'", keyword) : std::string(what));
  return next();
}

void Cursor::expectEndOfStatement() {
  if (at(TokenKind::End)) return;
  if (!at(TokenKind::Newline)) failExpected("end of line");
  next();
}

void Cursor::fail(const Token& at, const std::string& message) const {
  throw UserError(loc(at), message);
}

void Cursor::failExpected(std::string_view what) const {
  fail(peek(), fmt::format("expected {}, found {}", what, peek().describe()));
}

std::string joinPath(const std::vector<Token>& path) {
  std::string s;
  for (const Token& t : path) {
    if (!s.empty()) s += '.';
    s += t.text;
  }
  return displayText(s, 120);
}

void skipBracketed(Cursor& cur) {
  int depth = 0;
  do {
    const Token& t = cur.next();
    if (t.kind == TokenKind::End) cur.fail(t, "unexpected end of file inside brackets");
    if (t.isOp("(") || t.isOp("[") || t.isOp("{")) ++depth;
    if (t.isOp(")") || t.isOp("]") || t.isOp("}")) --depth;
  } while (depth > 0);
}

// ---- expressions ------------------------------------------------------------------

namespace {

class ExprReader {
 public:
  ExprReader(Cursor& cur, Resolver& res) : cur_(cur), res_(res) {}

  PyValue expression() {
    PyValue v = expressionUpToTwoPow63();
    requireFitsInt64(v);
    return v;
  }

  CallArgs callArgs(SourceLocation callee) {
    CallArgs args;
    args.where = std::move(callee);
    cur_.expectOp("(");
    while (!cur_.atOp(")")) {
      if (cur_.atOp("**")) cur_.fail(cur_.peek(), "'**' arguments are not supported");
      if (cur_.atOp("*")) {
        starArgument(args);
      } else if (cur_.at(TokenKind::Name) && cur_.peek(1).isOp("=")) {
        Token key = cur_.next();
        cur_.next();
        for (const auto& [k, v] : args.keywords)
          if (k.text == key.text)
            cur_.fail(key, fmt::format("keyword argument '{}' given twice", displayText(key.text)));
        args.keywords.emplace_back(key, expression());
      } else {
        if (!args.keywords.empty())
          cur_.fail(cur_.peek(), "positional argument follows keyword argument");
        args.positional.push_back(expression());
      }
      if (!cur_.acceptOp(",")) break;
    }
    cur_.expectOp(")", "',' or ')'");
    return args;
  }

  // `*seq` in a call: the list's or tuple's items become positional arguments.
  void starArgument(CallArgs& args) {
    const Token& star = cur_.next();
    if (!args.keywords.empty()) cur_.fail(star, "'*' argument follows keyword argument");
    PyValue seq = expression();
    if (!seq.isSequence()) throwWrongKind(seq, "a list or tuple", "a '*' argument");
    for (PyValue item : seq.items) {
      item.where = seq.where;
      args.positional.push_back(std::move(item));
    }
  }

 private:
  // An int may reach 2**63 inside an expression (`-9223372036854775808` is the
  // negation of 2**63, as in Python); a complete expression must fit in int64.
  PyValue expressionUpToTwoPow63() {
    DepthGuard guard(*this);
    return additive();
  }

  static void requireFitsInt64(const PyValue& v) {
    if (v.kind == PyValue::Kind::Int && v.int_is_two_pow_63)
      throw UserError(v.where,
                      "integer 9223372036854775808 does not fit in int64 (the largest is "
                      "9223372036854775807)");
  }

  PyValue additive() {
    PyValue lhs = multiplicative();
    while (cur_.atOp("+") || cur_.atOp("-")) {
      Token op = cur_.next();
      lhs = arith(op, lhs, multiplicative());
    }
    rejectOperator();
    return lhs;
  }

  PyValue multiplicative() {
    PyValue lhs = unary();
    while (cur_.atOp("*") || cur_.atOp("/") || cur_.atOp("//") || cur_.atOp("%")) {
      Token op = cur_.next();
      lhs = arith(op, lhs, unary());
    }
    return lhs;
  }

  PyValue unary() {
    DepthGuard guard(*this);
    if (cur_.atOp("-") || cur_.atOp("+")) {
      Token op = cur_.next();
      PyValue v = unary();
      if (v.kind == PyValue::Kind::Input) return op.text == "-" ? inputNegate(v, cur_.loc(op)) : v;
      if (!v.isNumber() && v.kind != PyValue::Kind::Complex)
        throwWrongKind(v, "a number", fmt::format("unary '{}'", op.text));
      v.where = cur_.loc(op);
      if (op.text == "-") {
        if (v.kind == PyValue::Kind::Complex) {
          v.f = -v.f;
          v.imag = -v.imag;
        } else if (v.kind == PyValue::Kind::Float)
          v.f = -v.f;
        else {
          const Wide x = wideInt(v);
          v = intResult(-x, cur_.loc(op), [&] { return fmt::format("-{}", wideText(x)); });
        }
      }
      return v;
    }
    PyValue base = postfix();
    if (cur_.atOp("**")) {
      Token op = cur_.next();
      return arith(op, base, unary());
    }
    return base;
  }

  // Comparison and bitwise operators are outside the subset; say so clearly.
  void rejectOperator() {
    const Token& t = cur_.peek();
    if (t.kind != TokenKind::Op) return;
    for (std::string_view op : {"==", "!=", "<", ">", "<=", ">=", "&", "|", "^", "<<", ">>", "@"})
      if (t.text == op)
        cur_.fail(t, fmt::format("operator '{}' is not supported; use the fd.ops function", op));
  }

  PyValue arith(const Token& op, const PyValue& a, const PyValue& b) {
    if (a.kind == PyValue::Kind::Complex || b.kind == PyValue::Kind::Complex)
      return complexArithmetic(op.text, a, b, cur_.loc(op));
    if (a.kind == PyValue::Kind::Input || b.kind == PyValue::Kind::Input)
      return inputArithmetic(op, a, b);  // `torch.rand(8) + 0.5` in an inputs list
    for (const PyValue* v : {&a, &b})
      if (!v->isNumber())
        throwWrongKind(*v, "a number",
                       fmt::format("operator '{}' only works on number literals; use fd.ops for "
                                   "tensors and scalars",
                                   op.text));
    SourceLocation w = a.where;
    auto asDouble = [](const PyValue& v) {
      return v.kind == PyValue::Kind::Float ? v.f : static_cast<double>(wideInt(v));
    };
    bool floating = a.kind == PyValue::Kind::Float || b.kind == PyValue::Kind::Float;
    const std::string& o = op.text;
    if (o == "/" || (floating && o != "//" && o != "%")) {
      double x = asDouble(a), y = asDouble(b);
      if ((o == "/" || o == "%") && y == 0) cur_.fail(op, "division by zero");
      double r = o == "+"   ? x + y
                 : o == "-" ? x - y
                 : o == "*" ? x * y
                 : o == "/" ? x / y
                            : std::pow(x, y);
      return PyValue::floating(r, w);
    }
    if (floating) {
      double x = asDouble(a), y = asDouble(b);
      if (y == 0) cur_.fail(op, "division by zero");
      double q = std::floor(x / y);
      return PyValue::floating(o == "//" ? q : x - q * y, w);
    }
    // Exact: operands are within [-2**63, 2**63], so sums and products fit in 128 bits.
    const Wide x = wideInt(a), y = wideInt(b);
    auto text = [&] { return fmt::format("{} {} {}", wideText(x), o, wideText(y)); };
    if ((o == "//" || o == "%") && y == 0) cur_.fail(op, "division by zero");
    if (o == "+") return intResult(x + y, w, text, cur_.loc(op));
    if (o == "-") return intResult(x - y, w, text, cur_.loc(op));
    if (o == "*") return intResult(x * y, w, text, cur_.loc(op));
    if (o == "**") {
      if (y < 0) return PyValue::floating(std::pow(asDouble(a), asDouble(b)), w);
      auto r = widePow(x, y);
      if (!r) cur_.fail(op, fmt::format("integer overflow: {} does not fit in int64", text()));
      return intResult(*r, w, text, cur_.loc(op));
    }
    Wide q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) --q;  // Python floors
    return intResult(o == "//" ? q : x - q * y, w, text, cur_.loc(op));
  }

  using Wide = __int128;
  static constexpr Wide kTwoPow63 = Wide{1} << 63;

  static Wide wideInt(const PyValue& v) {
    if (v.kind == PyValue::Kind::Bool) return v.b ? 1 : 0;
    return v.int_is_two_pow_63 ? kTwoPow63 : Wide{v.i};
  }

  // Operands are within [-2**63, 2**63]; so is anything wideText prints.
  static std::string wideText(Wide v) {
    return v == kTwoPow63 ? "9223372036854775808" : std::to_string(static_cast<int64_t>(v));
  }

  static std::optional<Wide> widePow(Wide base, Wide exp) {
    auto fits = [](Wide v) { return v >= -kTwoPow63 && v <= kTwoPow63; };
    Wide result = 1;
    while (true) {
      if (exp & 1) {
        result *= base;
        if (!fits(result)) return std::nullopt;
      }
      exp >>= 1;
      if (exp == 0) return result;
      base *= base;
      // Any later factor of base would push the result past 2**63 too.
      if (!fits(base)) return std::nullopt;
    }
  }

  // An int result at `where`: exact, 2**63 (kept for a unary minus to come;
  // `at` is where it will be reported otherwise), or an overflow error at `at`
  // describing the operation with `text()`.
  template <class Text>
  PyValue intResult(Wide r, SourceLocation where, Text text, SourceLocation at) {
    if (r == kTwoPow63) {
      PyValue v = PyValue::integer(std::numeric_limits<int64_t>::min(), std::move(at));
      v.int_is_two_pow_63 = true;
      return v;
    }
    if (r < -kTwoPow63 || r > kTwoPow63)
      throw UserError(at, fmt::format("integer overflow: {} does not fit in int64", text()));
    return PyValue::integer(static_cast<int64_t>(r), std::move(where));
  }
  template <class Text>
  PyValue intResult(Wide r, SourceLocation where, Text text) {
    SourceLocation at = where;
    return intResult(r, std::move(where), text, std::move(at));
  }

  PyValue postfix() {
    PyValue v = primary();
    while (true) {
      if (cur_.atOp(".")) {
        cur_.next();
        Token name = cur_.expectName("a method name after '.'");
        if (!cur_.atOp("(")) {
          // torch tensors of the inputs list have attributes (`.shape`, `.dtype`).
          if (v.kind == PyValue::Kind::Input) {
            v = inputAttribute(v, name, cur_.loc(name));
            continue;
          }
          cur_.fail(name, fmt::format("attribute '{}' of {} is not supported (only method calls)",
                                      name.text, describeValue(v)));
        }
        CallArgs args = callArgs(cur_.loc(name));
        if (v.kind == PyValue::Kind::Input)
          v = inputMethod(std::move(v), name, args);
        else
          v = res_.method(std::move(v), name, std::move(args));
      } else if (cur_.atOp("[")) {
        v = index(std::move(v));
      } else if (cur_.atOp("(")) {
        cur_.fail(cur_.peek(), fmt::format("{} is not callable", describeValue(v)));
      } else {
        return v;
      }
    }
  }

  PyValue index(PyValue v) {
    Token open = cur_.next();
    std::vector<PyValue> subscripts = subscriptList();
    if (v.kind == PyValue::Kind::Input) return inputSubscript(v, subscripts, cur_.loc(open));
    if (subscripts.size() != 1)
      throw UserError(cur_.loc(open), fmt::format("{} takes one index, got {}", describeValue(v),
                                                  subscripts.size()));
    const PyValue& idx = subscripts[0];
    if (idx.kind == PyValue::Kind::Slice && v.isSequence()) return sliceOf(v, idx);
    if (idx.kind == PyValue::Kind::Slice)
      throw UserError(idx.where, fmt::format("slicing {} ({}) is not supported; index it with an "
                                             "int",
                                             describeValue(v), kindPhrase(v.kind)));
    if (idx.kind != PyValue::Kind::Int) throwWrongKind(idx, "an int index", "");
    int64_t n = 0;
    if (v.kind == PyValue::Kind::Vector)
      n = static_cast<int64_t>(v.vec.size());
    else if (v.isSequence())
      n = static_cast<int64_t>(v.items.size());
    else
      throwWrongKind(v, "a vector, list or tuple", "indexing with '[]'");
    int64_t i = idx.i < 0 ? idx.i + n : idx.i;
    if (i < 0 || i >= n)
      throw UserError(idx.where, fmt::format("index {} is out of range for {} of length {}", idx.i,
                                             describeValue(v), n));
    if (v.kind != PyValue::Kind::Vector) {
      // Errors about the item point here and name it as written: "inputs[0]".
      PyValue item = v.items[i];
      item.where = v.where;
      if (item.var.empty() && !v.var.empty()) item.var = fmt::format("{}[{}]", v.var, idx.i);
      return item;
    }
    PyValue s = PyValue::make(PyValue::Kind::Scalar, cur_.loc(open));
    s.val = v.vec[i];
    s.var = v.var.empty() ? "" : fmt::format("{}[{}]", v.var, idx.i);
    return s;
  }

  // The comma-separated items between `[` (already read) and `]`: ints,
  // `start:stop:step` slices with any part left out, `...` and None.
  std::vector<PyValue> subscriptList() {
    std::vector<PyValue> items;
    while (!cur_.atOp("]")) {
      items.push_back(subscript());
      if (!cur_.acceptOp(",")) break;
    }
    cur_.expectOp("]", "',' or ']'");
    if (items.empty()) cur_.failExpected("an index");
    return items;
  }

  PyValue subscript() {
    SourceLocation where = cur_.here();
    if (cur_.atOp(".") && cur_.peek(1).isOp(".") && cur_.peek(2).isOp(".")) {
      for (int i = 0; i < 3; ++i) cur_.next();
      return PyValue::make(PyValue::Kind::Ellipsis, where);
    }
    auto part = [&] {
      if (cur_.atOp(":") || cur_.atOp(",") || cur_.atOp("]")) return PyValue::none(cur_.here());
      return expression();
    };
    PyValue first = part();
    if (!cur_.atOp(":")) return first;
    PyValue slice = PyValue::make(PyValue::Kind::Slice, where);
    slice.items.push_back(std::move(first));
    cur_.next();
    slice.items.push_back(part());
    slice.items.push_back(cur_.acceptOp(":") ? part() : PyValue::none(cur_.here()));
    for (const PyValue& p : slice.items)
      if (p.kind != PyValue::Kind::None && p.kind != PyValue::Kind::Int)
        throwWrongKind(p, "an int or nothing", "a slice bound");
    return slice;
  }

  PyValue sequence(const Token& open, const char* close, PyValue::Kind kind) {
    PyValue v = PyValue::make(kind, cur_.loc(open));
    bool trailing_comma = false;
    while (!cur_.atOp(close)) {
      v.items.push_back(expressionUpToTwoPow63());
      trailing_comma = cur_.acceptOp(",");
      if (!trailing_comma) break;
    }
    cur_.expectOp(close, fmt::format("',' or '{}'", close));
    // "(x)" is just x (and may still be negated); "(x,)" and "()" are tuples.
    if (kind == PyValue::Kind::Tuple && v.items.size() == 1 && !trailing_comma) {
      PyValue inner = std::move(v.items[0]);
      return inner;
    }
    for (const PyValue& item : v.items) requireFitsInt64(item);
    return v;
  }

  PyValue primary() {
    const Token& t = cur_.peek();
    switch (t.kind) {
      case TokenKind::Int: {
        cur_.next();
        PyValue v = PyValue::integer(t.int_value, cur_.loc(t));
        v.int_is_two_pow_63 = t.int_is_two_pow_63;
        return v;
      }
      case TokenKind::Float:
        cur_.next();
        return PyValue::floating(t.float_value, cur_.loc(t));
      case TokenKind::Imaginary: {
        cur_.next();
        PyValue v = PyValue::make(PyValue::Kind::Complex, cur_.loc(t));
        v.imag = t.float_value;
        return v;
      }
      case TokenKind::String: {
        cur_.next();
        PyValue v = PyValue::make(PyValue::Kind::String, cur_.loc(t));
        v.s = t.text;
        while (cur_.at(TokenKind::String)) v.s += cur_.next().text;  // "a" "b" concatenates
        return v;
      }
      case TokenKind::Name:
        return nameExpression();
      case TokenKind::Op:
        if (t.isOp("[")) {
          Token open = cur_.next();
          return sequence(open, "]", PyValue::Kind::List);
        }
        if (t.isOp("(")) {
          Token open = cur_.next();
          return sequence(open, ")", PyValue::Kind::Tuple);
        }
        if (t.isOp("{")) cur_.fail(t, "dicts and sets are not supported");
        break;
      default:
        break;
    }
    cur_.failExpected("an expression");
  }

  PyValue nameExpression() {
    Token first = cur_.next();
    SourceLocation where = cur_.loc(first);
    if (first.text == "True" || first.text == "False")
      return PyValue::boolean(first.text == "True", where);
    if (first.text == "None") return PyValue::none(where);
    if (first.text == "float" && cur_.atOp("(")) return floatCall(first);
    if (first.text == "complex" && cur_.atOp("(")) return complexCall(first);
    if (first.text == "lambda" || first.text == "not" || first.text == "if" ||
        first.text == "yield")
      cur_.fail(first, fmt::format("'{}' is not supported in a fusion definition",
                                   displayText(first.text)));
    if (res_.isVariable(first.text)) return res_.name({first});
    std::vector<Token> path{first};
    while (cur_.atOp(".") && cur_.peek(1).kind == TokenKind::Name) {
      cur_.next();
      path.push_back(cur_.next());
    }
    if (cur_.atOp("(")) return res_.call(path, callArgs(where));
    return res_.name(path);
  }

  // float('inf'), float("-inf"), float('nan'), float(3)
  PyValue floatCall(const Token& name) {
    CallArgs args = callArgs(cur_.loc(name));
    if (args.positional.size() != 1 || !args.keywords.empty())
      throw UserError(args.where, "float() takes exactly one argument");
    const PyValue& a = args.positional[0];
    if (a.kind == PyValue::Kind::String) {
      std::string s;
      for (char c : a.s) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      double inf = std::numeric_limits<double>::infinity();
      if (s == "inf" || s == "+inf" || s == "infinity") return PyValue::floating(inf, args.where);
      if (s == "-inf" || s == "-infinity") return PyValue::floating(-inf, args.where);
      if (s == "nan" || s == "+nan" || s == "-nan")
        return PyValue::floating(std::numeric_limits<double>::quiet_NaN(), args.where);
      char* end = nullptr;
      double v = std::strtod(a.s.c_str(), &end);
      if (end != a.s.c_str() && *end == '\0') return PyValue::floating(v, args.where);
      throw UserError(a.where, fmt::format("float() cannot convert '{}'", displayText(a.s)));
    }
    if (a.kind == PyValue::Kind::Int) return PyValue::floating(double(a.i), args.where);
    if (a.kind == PyValue::Kind::Float) return PyValue::floating(a.f, args.where);
    if (a.kind == PyValue::Kind::Bool) return PyValue::floating(a.b ? 1.0 : 0.0, args.where);
    throwWrongKind(a, "a number or a string", "float()");
  }

  // complex(re[, im]) of numbers.
  PyValue complexCall(const Token& name) {
    CallArgs args = callArgs(cur_.loc(name));
    if (args.positional.empty() || args.positional.size() > 2 || !args.keywords.empty())
      throw UserError(args.where, "complex() takes one or two numbers");
    PyValue v = PyValue::make(PyValue::Kind::Complex, args.where);
    v.f = asDouble(args.positional[0], "complex()");
    if (args.positional.size() == 2) v.imag = asDouble(args.positional[1], "complex()");
    return v;
  }

  // Nesting deeper than any real definition is refused before it can exhaust the stack.
  static constexpr int kMaxDepth = 200;
  struct DepthGuard {
    explicit DepthGuard(ExprReader& r) : r(r) {
      if (++r.depth_ > kMaxDepth)
        r.cur_.fail(r.cur_.peek(),
                    fmt::format("expression nested more than {} levels deep", kMaxDepth));
    }
    ~DepthGuard() { --r.depth_; }
    ExprReader& r;
  };

  Cursor& cur_;
  Resolver& res_;
  int depth_ = 0;
};

}  // namespace

PyValue parseExpression(Cursor& cur, Resolver& resolver) {
  return ExprReader(cur, resolver).expression();
}

CallArgs parseCallArgs(Cursor& cur, Resolver& resolver, SourceLocation callee) {
  return ExprReader(cur, resolver).callArgs(std::move(callee));
}

}  // namespace fusebox::frontend
