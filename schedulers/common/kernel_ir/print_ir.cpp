// The readable dump of the kernel IR (print_ir.h).
#include "kernel_ir/print_ir.h"

#include <fmt/format.h>

#include "kernel_ir/combine.h"
#include "kernel_ir/print_cuda.h"

namespace fusebox::kir {

namespace {

class IrPrinter {
 public:
  explicit IrPrinter(int indent) : indent_(indent) {}
  std::string out;

  void statements(const std::vector<Stmt>& body) {
    for (const Stmt& s : body) statement(*s);
  }

 private:
  void line(const std::string& text) {
    out += std::string(static_cast<size_t>(indent_) * 2, ' ') + text + "\n";
  }

  void nested(const std::string& head, const std::vector<Stmt>& body) {
    line(head + " {");
    ++indent_;
    statements(body);
    --indent_;
  }

  static std::string declaration(const StmtNode& s) {
    std::string flags;
    if (s.flags.align > 0) flags += fmt::format("aligned({}) ", s.flags.align);
    if (s.flags.shared) flags += "shared ";
    if (s.flags.is_const) flags += "const ";
    if (s.flags.maybe_unused) flags += "maybe_unused ";
    std::string text = fmt::format("{}{}: {}", flags, s.name, s.type.spelling);
    if (s.array_extent > 0) text += fmt::format("[{}]", s.array_extent);
    if (s.init.defined()) text += " = " + printValue(s.init);
    return text;
  }

  void statement(const StmtNode& s) {
    switch (s.kind) {
      case StmtKind::Block:  // a sequence, as the CUDA printer prints it (no scope)
        statements(s.body);
        return;
      case StmtKind::Declare:
        line("decl " + declaration(s));
        return;
      case StmtKind::Assign:
        line(fmt::format("{} {} {}", printValue(s.target), s.assign_op, printValue(s.value)));
        return;
      case StmtKind::Evaluate:
        line("eval " + printValue(s.value));
        return;
      case StmtKind::Return:
        line("return");
        return;
      case StmtKind::Break:
        line("break");
        return;
      case StmtKind::SyncThreads:
        line("sync_threads");
        return;
      case StmtKind::TypeAlias:
        line(fmt::format("type {} = {}", s.name, s.type.spelling));
        return;
      case StmtKind::Comment:
        for (const std::string& l : s.lines) line("# " + l);
        return;
      case StmtKind::Scope:
        nested("scope", s.body);
        line("}");
        return;
      case StmtKind::Combine:
        line(describeCombine(*s.combine));
        return;
      case StmtKind::Code:
        line("code {");
        for (const std::string& l : s.lines) line("| " + l);
        line("}");
        return;
      case StmtKind::If: {
        nested(fmt::format("if {}", printValue(s.cond)), s.body);
        const StmtNode* branch = &s;
        while (branch->orelse.size() == 1 && branch->orelse[0]->kind == StmtKind::If &&
               branch->orelse[0]->chained) {
          branch = branch->orelse[0].get();
          line(fmt::format("}} else if {} {{", printValue(branch->cond)));
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
      case StmtKind::For: {
        const std::string init = s.loop_init
                                     ? declaration(*s.loop_init)
                                     : printValue(s.loop_step->target) + " (declared before)";
        const std::string step = s.increment.empty() ? fmt::format("{} {}", s.loop_step->assign_op,
                                                                   printValue(s.loop_step->value))
                                                     : "+= 1";
        nested(fmt::format("{}for {} while {} step {}", s.unroll == Unroll::Full ? "unrolled " : "",
                           init, printValue(s.cond), step),
               s.body);
        line("}");
        return;
      }
    }
  }

  int indent_;
};

}  // namespace

std::string printIr(const Block& block, int indent) {
  IrPrinter p(indent);
  p.statements(block.stmt()->body);
  return p.out;
}

}  // namespace fusebox::kir
