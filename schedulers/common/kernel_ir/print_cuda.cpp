// CUDA C++ from the kernel IR (print_cuda.h).
#include "kernel_ir/print_cuda.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <iterator>
#include <limits>

#include "kernel_ir/combine.h"

namespace fusebox::kir {

namespace {

// C++ precedence, higher binds tighter.
constexpr int kPrimary = 100;
constexpr int kPostfix = 16;
constexpr int kPrefix = 15;
constexpr int kSelect = 3;

// Spelling and precedence of each BinaryOp, in the enum's order.
struct BinaryInfo {
  const char* spelling;
  int precedence;
};
constexpr BinaryInfo kBinary[] = {
    {"*", 13},  {"/", 13}, {"%", 13},  {"+", 12}, {"-", 12},  {"<<", 11},
    {">>", 11}, {"<", 10}, {"<=", 10}, {">", 10}, {">=", 10}, {"==", 9},
    {"!=", 9},  {"&", 8},  {"^", 7},   {"|", 6},  {"&&", 5},  {"||", 4},
};
static_assert(std::size(kBinary) == static_cast<size_t>(BinaryOp::Or) + 1);

int precedence(BinaryOp op) {
  return kBinary[static_cast<size_t>(op)].precedence;
}
const char* spelling(BinaryOp op) {
  return kBinary[static_cast<size_t>(op)].spelling;
}

const char* spelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
      return "-";
    case UnaryOp::Not:
      return "!";
    case UnaryOp::BitNot:
      return "~";
    case UnaryOp::AddressOf:
      return "&";
  }
  return "?";
}

int precedenceOf(const ValueNode& n) {
  switch (n.kind) {
    case ValueKind::IntLiteral:
      return n.integer < 0 ? kPrefix : kPrimary;
    case ValueKind::Text:
    case ValueKind::Variable:
      return kPrimary;
    case ValueKind::Unary:
      return kPrefix;
    case ValueKind::Binary:
      return precedence(n.binary_op);
    case ValueKind::Select:
      return kSelect;
    case ValueKind::Call:
    case ValueKind::Cast:
    case ValueKind::Subscript:
    case ValueKind::Member:
      return kPostfix;
  }
  return 0;
}

std::string templateArgs(const std::vector<Type>& types) {
  if (types.empty()) return "";
  std::string out = "<";
  for (size_t k = 0; k < types.size(); ++k) out += (k ? ", " : "") + types[k].spelling;
  return out + ">";
}

// `v` where an operand of precedence `context` goes; `right`: the right
// operand of a left-associative operator, which needs parentheses at equal
// precedence too (a - (b - c)).
std::string operand(const Value& v, int context, bool right = false);
std::string prefixed(UnaryOp op, const Value& x);

std::string print(const Value& v) {
  FUSEBOX_CHECK(v.defined(), "kernel IR: an undefined value is printed");
  const ValueNode& n = v.node();
  switch (n.kind) {
    case ValueKind::IntLiteral:
      // INT64_MIN has no literal: its magnitude does not fit int64.
      return n.integer == std::numeric_limits<int64_t>::min() ? "(-9223372036854775807ll - 1)"
                                                              : std::to_string(n.integer);
    case ValueKind::Text:
    case ValueKind::Variable:
      return n.text;
    case ValueKind::Unary:
      return prefixed(n.unary_op, n.operands[0]);
    case ValueKind::Binary: {
      const int p = precedence(n.binary_op);
      return fmt::format("{} {} {}", operand(n.operands[0], p), spelling(n.binary_op),
                         operand(n.operands[1], p, true));
    }
    case ValueKind::Select:
      return fmt::format("{} ? {} : {}", operand(n.operands[0], kSelect + 1),
                         operand(n.operands[1], kSelect), operand(n.operands[2], kSelect));
    case ValueKind::Call: {
      std::string args;
      for (size_t k = 0; k < n.operands.size(); ++k) args += (k ? ", " : "") + print(n.operands[k]);
      return fmt::format("{}{}({})", n.text, templateArgs(n.template_args), args);
    }
    case ValueKind::Cast:
      return fmt::format("static_cast<{}>({})", n.type.spelling, print(n.operands[0]));
    case ValueKind::Subscript:
      return fmt::format("{}[{}]", operand(n.operands[0], kPostfix), print(n.operands[1]));
    case ValueKind::Member:
      return fmt::format("{}.{}", operand(n.operands[0], kPostfix), n.text);
  }
  return "";
}

std::string operand(const Value& v, int context, bool right) {
  const int p = precedenceOf(v.node());
  const bool parens = p < context || (right && p == context);
  // fmt, not "(" + ...: GCC 12 at -O3 warns (-Wrestrict) on that concatenation.
  return parens ? fmt::format("({})", print(v)) : print(v);
}

std::string prefixed(UnaryOp op, const Value& x) {
  // Another prefix operand, or text that starts with a sign, in parentheses:
  // -(-x) and -(-1.5f), not the decrement --x.
  std::string inner = operand(x, kPrefix, true);
  if (inner[0] == '-' || inner[0] == '+' || inner[0] == '&') inner = fmt::format("({})", inner);
  return fmt::format("{}{}", spelling(op), inner);
}

class Printer {
 public:
  explicit Printer(int indent) : indent_(indent) {}
  std::string out;

  void statements(const std::vector<Stmt>& body) {
    for (const Stmt& s : body) statement(*s);
  }

  void statement(const StmtNode& s) {
    switch (s.kind) {
      case StmtKind::Block:
        statements(s.body);
        return;
      case StmtKind::Code:
      case StmtKind::Comment:
        for (const std::string& l : s.lines) line(s.kind == StmtKind::Comment ? "// " + l : l);
        return;
      case StmtKind::Scope:
        line("{");
        ++indent_;
        statements(s.body);
        --indent_;
        line("}");
        return;
      case StmtKind::Combine:
        statements(lowerCombine(*s.combine).stmt()->body);
        return;
      case StmtKind::For:
      case StmtKind::If:
        control(s, "");
        return;
      default:
        line(simple(s));
    }
  }

 private:
  void line(const std::string& text) {
    out += std::string(static_cast<size_t>(indent_) * 2, ' ') + text + "\n";
  }

  // A statement that fits one line, with its ';'.
  static std::string simple(const StmtNode& s) {
    switch (s.kind) {
      case StmtKind::Declare:
        return declaration(s) + ";";
      case StmtKind::Assign:
        return assignment(s) + ";";
      case StmtKind::Evaluate:
        return print(s.value) + ";";
      case StmtKind::Return:
        return "return;";
      case StmtKind::Break:
        return "break;";
      case StmtKind::SyncThreads:
        return "__syncthreads();";
      case StmtKind::TypeAlias:
        return fmt::format("using {} = {};", s.name, s.type.spelling);
      default:
        FUSEBOX_CHECK(false, "kernel IR: a {} statement does not fit one line",
                      static_cast<int>(s.kind));
    }
    return "";
  }

  // An assignment binds looser than any operator: a target that is not a
  // postfix expression (c ? a : b) goes in parentheses.
  static std::string assignment(const StmtNode& s) {
    return fmt::format("{} {} {}", operand(s.target, kPrefix), s.assign_op, print(s.value));
  }

  static std::string declaration(const StmtNode& s) {
    std::string text = s.flags.maybe_unused ? "[[maybe_unused]] " : "";
    if (s.flags.align > 0) text += fmt::format("alignas({}) ", s.flags.align);
    if (s.flags.shared) text += "__shared__ ";
    if (s.flags.is_const) text += "const ";
    text += s.type.spelling + " " + s.name;
    if (s.array_extent > 0) text += fmt::format("[{}]", s.array_extent);
    if (s.init.defined()) text += " = " + print(s.init);
    return text;
  }

  static std::string header(const StmtNode& s) {
    if (s.kind == StmtKind::If) return fmt::format("if ({})", print(s.cond));
    const std::string init = s.loop_init ? declaration(*s.loop_init) : "";
    std::string step;
    if (!s.increment.empty()) {
      step = "++" + s.increment;
    } else {
      step = assignment(*s.loop_step);
    }
    return fmt::format("for ({}; {}; {})", init, print(s.cond), step);
  }

  // An else branch that is an `else if` (IfChain).
  static bool isChained(const std::vector<Stmt>& orelse) {
    return orelse.size() == 1 && orelse[0]->kind == StmtKind::If && orelse[0]->chained;
  }

  // A loop or branch; `prefix`: the header of an enclosing SameLine
  // statement printed on this line before it.
  void control(const StmtNode& s, const std::string& prefix) {
    FUSEBOX_CHECK(prefix.empty() || s.unroll == Unroll::None,
                  "kernel IR: an unrolled loop cannot follow a same-line header");
    if (s.unroll == Unroll::Full) line("FUSEBOX_UNROLL");
    const std::string head = prefix + header(s);
    switch (s.style) {
      case BodyStyle::SameLine: {
        FUSEBOX_CHECK(s.body.size() == 1 && s.orelse.empty(),
                      "kernel IR: a same-line body holds one statement");
        const StmtNode& only = *s.body[0];
        if (only.kind == StmtKind::For || only.kind == StmtKind::If) {
          control(only, head + " ");
        } else {
          line(head + " " + simple(only));
        }
        return;
      }
      case BodyStyle::NextLine:
        // One loop or branch: a text or comment body would leave all but its
        // first line outside the loop.
        FUSEBOX_CHECK(s.body.size() == 1 && s.orelse.empty() &&
                          (s.body[0]->kind == StmtKind::For || s.body[0]->kind == StmtKind::If),
                      "kernel IR: a next-line body is one loop or branch");
        line(head);
        ++indent_;
        statement(*s.body[0]);
        --indent_;
        return;
      case BodyStyle::Braces: {
        line(head + " {");
        ++indent_;
        statements(s.body);
        --indent_;
        const StmtNode* branch = &s;
        while (isChained(branch->orelse)) {
          branch = branch->orelse[0].get();
          line("} else " + header(*branch) + " {");
          ++indent_;
          statements(branch->body);
          --indent_;
        }
        if (!branch->orelse.empty()) {
          line("} else {");
          ++indent_;
          statements(branch->orelse);
          --indent_;
        }
        line("}");
        return;
      }
    }
  }

  int indent_;
};

}  // namespace

std::string printValue(const Value& v) {
  return print(v);
}

std::string printCuda(const Block& block, int indent) {
  Printer p(indent);
  p.statements(block.stmt()->body);
  return p.out;
}

}  // namespace fusebox::kir
