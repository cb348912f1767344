// Reads a whole definition script: imports, the fusion function or `with`
// block, the inputs list and the execute calls around them. The module level
// is read first; then the fusion body is interpreted statement by statement
// (it may read module-level values, the inputs list among them); nothing is
// kept but the Fusion being built and the variables naming its values.
#include <fmt/format.h>
#include <fusebox/frontend/python_definition.h>

#include <map>

#include "file_access.h"
#include "frontend/fd_methods.h"
#include "frontend/imports.h"
#include "frontend/inputs_list.h"
#include "frontend/module_scope.h"
#include "frontend/op_table.h"
#include "frontend/python_expr.h"
#include "frontend/python_lexer.h"

namespace fusebox {

namespace frontend {
namespace {

class ScriptReader {
 public:
  ScriptReader(std::string_view source, const std::string& file)
      : tokens_(tokenize(source, file)), cur_(tokens_, file), body_(*this), top_(*this) {}

  PythonDefinition read() {
    while (!cur_.at(TokenKind::End)) topStatement();
    if (with_body_) runWithBlock();
    if (!fusion_ && func_) runFunction(func_->param, cur_.loc(func_->name));
    if (!fusion_)
      cur_.fail(cur_.peek(),
                "no fusion definition found (expected `def NAME(fd : FusionDefinition) -> None :` "
                "or a `with FusionDefinition() as fd:` block)");
    fusion_->setOriginOfNewExprs({});  // what passes add later was not written here
    def_.fusion = std::move(fusion_);
    if (func_) def_.function_name = func_->name.text;
    collectInputsList();
    return std::move(def_);
  }

 private:
  struct FunctionDef {
    Token name;
    std::string param;
    size_t body_start = 0;
    bool called = false;
  };

  // ---- names inside the fusion body ---------------------------------------------
  class BodyResolver : public Resolver {
   public:
    explicit BodyResolver(ScriptReader& r) : r_(r) {}
    bool isVariable(const std::string& name) override {
      return r_.vars_.count(name) > 0 || r_.top_vars_.count(name) > 0;
    }
    PyValue name(const std::vector<Token>& path) override { return r_.bodyName(path); }
    PyValue call(const std::vector<Token>& path, CallArgs args) override {
      return r_.bodyCall(path, std::move(args));
    }
    PyValue method(PyValue self, const Token& name, CallArgs args) override {
      return r_.bodyMethod(std::move(self), name, std::move(args));
    }

   private:
    ScriptReader& r_;
  };

  // ---- names at the top level (inputs list, execute) -------------------------------
  class TopResolver : public Resolver {
   public:
    explicit TopResolver(ScriptReader& r) : r_(r) {}
    bool isVariable(const std::string& name) override { return r_.top_vars_.count(name) > 0; }
    PyValue name(const std::vector<Token>& path) override { return r_.topName(path); }
    PyValue call(const std::vector<Token>& path, CallArgs args) override {
      return r_.topCall(path, std::move(args));
    }
    PyValue method(PyValue self, const Token& name, CallArgs) override {
      r_.cur_.fail(name, fmt::format("{} has no method '{}' this frontend understands",
                                     describeValue(self), displayText(name.text)));
    }

   private:
    ScriptReader& r_;
  };

  SourceLocation loc(const Token& t) const { return cur_.loc(t); }

  // ---- top level ----------------------------------------------------------------------

  void topStatement() {
    const Token& t = cur_.peek();
    if (t.kind == TokenKind::Newline) {
      cur_.next();
      return;
    }
    if (t.kind == TokenKind::Indent) cur_.fail(t, "unexpected indentation");
    if (t.isName("import")) return readImport(cur_);
    if (t.isName("from")) {
      dtype_converter_imported_ |= readFromImport(cur_);
      return;
    }
    if (t.isName("def")) return defStatement();
    if (t.isName("with")) return withStatement();
    if (t.isName("for")) return forStatement();
    if (t.isName("if")) return mainGuard();
    if (t.isName("pass")) {
      cur_.next();
      return cur_.expectEndOfStatement();
    }
    if (skipPrint()) return;
    if ((t.kind == TokenKind::Name && (cur_.peek(1).isOp("=") || cur_.peek(1).isOp(","))) ||
        atBracketedTargets()) {
      std::vector<Token> targets = assignmentTargets();
      PyValue v = parseExpression(cur_, top_);
      cur_.expectEndOfStatement();
      bindTargets(targets, v, top_vars_);
      for (const Token& t : targets) top_assignments_[t.text].push_back(t);
      return;
    }
    if (t.kind == TokenKind::Name || t.kind == TokenKind::String) {
      parseExpression(cur_, top_);
      return cur_.expectEndOfStatement();
    }
    cur_.failExpected(
        "an import, a def, `inputs = [...]`, a `with FusionDefinition() as fd:` block, "
        "`fd.execute(inputs)` or a for loop");
  }

  // `print(...)` as a statement is understood and ignored, whatever it prints.
  bool skipPrint() {
    if (!cur_.atName("print") || !cur_.peek(1).isOp("(")) return false;
    cur_.next();
    skipBracketed(cur_);
    cur_.expectEndOfStatement();
    return true;
  }

  // def NAME(fd : FusionDefinition) -> None :   (the body is read when called)
  void defStatement() {
    cur_.next();
    Token name = cur_.expectName("a function name");
    if (func_)
      cur_.fail(name, fmt::format("a second fusion function '{}' (only one, '{}', is supported)",
                                  displayText(name.text), displayText(func_->name.text)));
    cur_.expectOp("(");
    Token param = cur_.expectName("a parameter name such as fd");
    if (cur_.acceptOp(":")) annotation();
    if (cur_.atOp(",")) cur_.fail(cur_.peek(), "a fusion function takes one parameter, fd");
    cur_.expectOp(")");
    if (cur_.acceptOp("->")) annotation();
    cur_.expectOp(":", "':' after the function signature");
    expectBlockStart();
    func_ = FunctionDef{name, param.text, cur_.position(), false};
    skipBlock();
  }

  void annotation() {
    if (cur_.atName("None")) {
      cur_.next();
      return;
    }
    cur_.expectName("a type annotation");
    while (cur_.acceptOp(".")) cur_.expectName("a type annotation");
  }

  void expectBlockStart() {
    if (!cur_.at(TokenKind::Newline)) cur_.failExpected("end of line after ':'");
    cur_.next();
    if (!cur_.at(TokenKind::Indent)) cur_.failExpected("an indented block");
    cur_.next();
  }

  // Skips an indented block; the cursor is just after its INDENT.
  void skipBlock() {
    int depth = 1;
    while (depth > 0) {
      const Token& t = cur_.next();
      if (t.kind == TokenKind::Indent) ++depth;
      if (t.kind == TokenKind::Dedent) --depth;
      if (t.kind == TokenKind::End) return;
    }
  }

  // with FusionDefinition() as fd:
  void withStatement() {
    cur_.next();
    Token cls = cur_.expectName("FusionDefinition()");
    if (cls.text != "FusionDefinition")
      cur_.fail(cls, fmt::format("expected `with FusionDefinition() as fd:`, found '{}'",
                                 displayText(cls.text)));
    cur_.expectOp("(");
    if (!cur_.atOp(")")) cur_.fail(cur_.peek(), "FusionDefinition() takes no arguments here");
    cur_.expectOp(")");
    cur_.expectKeyword("as", "'as'");
    Token var = cur_.expectName("a name for the FusionDefinition");
    cur_.expectOp(":", "':'");
    if (with_body_) cur_.fail(cls, "a second FusionDefinition block (only one fusion per script)");
    expectBlockStart();
    // Run once the whole module is read (see runWithBlock).
    with_body_ = cur_.position();
    fd_var_ = var.text;
    skipBlock();
  }

  // The `with` block's statements, after the module level: the inputs list
  // nvFuser's tests assign after the block is already defined.
  void runWithBlock() {
    size_t resume = cur_.position();
    fusion_ = std::make_unique<Fusion>();
    fd_name_ = fd_var_;
    vars_.clear();
    function_locals_.clear();  // module-level code: its names are the module's
    cur_.seek(*with_body_);
    bodyBlock();
    cur_.seek(resume);
  }

  // for _ in range(n): fd.execute(inputs)
  void forStatement() {
    cur_.next();
    cur_.expectName("a loop variable");
    cur_.expectKeyword("in", "'in'");
    const Token& range = cur_.expectName("range(n)");
    if (range.text != "range") cur_.fail(range, "only `for _ in range(n):` loops are supported");
    CallArgs args = parseCallArgs(cur_, top_, loc(range));
    if (args.positional.empty() || args.positional.size() > 3 || !args.keywords.empty())
      throw UserError(args.where, "range() takes 1 to 3 int arguments");
    for (const PyValue& a : args.positional) asInt(a, "range()");
    cur_.expectOp(":", "':'");
    topBlock();
  }

  // if __name__ == "__main__":
  void mainGuard() {
    Token if_tok = cur_.next();
    bool ok = cur_.atName("__name__") && cur_.peek(1).isOp("==") &&
              cur_.peek(2).kind == TokenKind::String && cur_.peek(2).text == "__main__";
    if (!ok) cur_.fail(if_tok, "only `if __name__ == \"__main__\":` is supported at the top level");
    cur_.next();
    cur_.next();
    cur_.next();
    cur_.expectOp(":", "':'");
    topBlock();
  }

  void topBlock() {
    expectBlockStart();
    while (!cur_.at(TokenKind::Dedent) && !cur_.at(TokenKind::End)) topStatement();
    if (cur_.at(TokenKind::Dedent)) cur_.next();
  }

  // Whether the statement starts `(a, b) = ` or `[a, b] = ` (a trailing
  // comma allowed), as Python lets names be unpacked.
  bool atBracketedTargets() const {
    const Token& open = cur_.peek();
    const std::string_view close = open.isOp("(") ? ")" : open.isOp("[") ? "]" : "";
    if (close.empty()) return false;
    size_t i = 1;
    while (cur_.peek(i).kind == TokenKind::Name) {
      const Token& after = cur_.peek(i + 1);
      if (after.isOp(close)) return cur_.peek(i + 2).isOp("=");
      if (!after.isOp(",")) return false;
      i += 2;
      if (cur_.peek(i).isOp(close)) return cur_.peek(i + 1).isOp("=");
    }
    return false;
  }

  std::vector<Token> assignmentTargets() {
    std::vector<Token> targets;
    if (atBracketedTargets()) {
      const std::string close = cur_.peek().isOp("(") ? ")" : "]";
      cur_.next();
      while (!cur_.acceptOp(close)) {
        targets.push_back(cur_.expectName("a variable name"));
        if (!cur_.atOp(close)) cur_.expectOp(",", fmt::format("',' or '{}'", close));
      }
      cur_.expectOp("=", "'='");
      return targets;
    }
    while (true) {
      targets.push_back(cur_.expectName("a variable name"));
      if (cur_.acceptOp("=")) break;
      cur_.expectOp(",", "',' or '='");
      if (cur_.atOp("=")) {
        cur_.next();
        break;
      }
    }
    return targets;
  }

  void bindTargets(const std::vector<Token>& targets, PyValue v,
                   std::map<std::string, PyValue>& vars) {
    if (targets.size() == 1) {
      v.var = targets[0].text;
      vars[targets[0].text] = std::move(v);
      return;
    }
    if (v.kind != PyValue::Kind::Tuple)
      cur_.fail(targets[0],
                fmt::format("cannot unpack {} into {} names", kindPhrase(v.kind), targets.size()));
    if (v.items.size() != targets.size())
      cur_.fail(targets[0], fmt::format("{} names on the left, but the call returns {} values",
                                        targets.size(), v.items.size()));
    for (size_t i = 0; i < targets.size(); ++i) {
      v.items[i].var = targets[i].text;
      vars[targets[i].text] = v.items[i];
    }
  }

  PyValue topName(const std::vector<Token>& path) {
    const std::string& head = path[0].text;
    if (path.size() == 1 && top_vars_.count(head)) {
      PyValue v = top_vars_.at(head);
      v.where = loc(path[0]);
      return v;
    }
    if (head == "torch") return torchAttribute(path, cur_.file());
    if (head == "DataType") return dataTypeName(path);
    cur_.fail(path[0], fmt::format("undefined variable {}", joinPath(path)));
  }

  PyValue topCall(const std::vector<Token>& path, CallArgs args) {
    const std::string& head = path[0].text;
    if (head == "torch") return callTorch(path, args);
    if (isDTypeConverter(path)) return nvfuserDTypeOf(args);
    if (path.size() == 1 && head == "print") return PyValue::none(args.where);
    if (path.size() == 2 && head == fd_var_ && !fd_var_.empty()) {
      if (path[1].text != "execute")
        cur_.fail(path[1],
                  fmt::format("unsupported call {} at the top level (expected {}.execute(inputs))",
                              joinPath(path), fd_var_));
      if (args.positional.size() != 1)
        throw UserError(args.where, fmt::format("{}.execute takes the inputs list", fd_var_));
      const PyValue& list = args.positional[0];
      if (list.kind != PyValue::Kind::List) throwWrongKind(list, "the inputs list", "fd.execute");
      if (!list.var.empty()) execute_arg_ = list.var;
      PyValue out = PyValue::make(PyValue::Kind::Opaque, args.where);
      return out;
    }
    if (path.size() == 1 && path[0].text == "range")
      cur_.fail(path[0], "range() is only supported in `for _ in range(n):`");
    cur_.fail(path[0], fmt::format("unsupported call {}(...) at the top level (expected torch "
                                   "constructors in the inputs list, fd.execute(inputs) or print)",
                                   joinPath(path)));
  }

  void collectInputsList() {
    auto it = top_vars_.find(execute_arg_);
    if (it == top_vars_.end() || it->second.kind != PyValue::Kind::List) return;
    def_.inputs = toInputSpecs(it->second);
    def_.has_inputs_list = true;
    size_t expected = def_.fusion->inputs().size();
    if (def_.inputs.size() != expected) {
      std::string names;
      for (const std::string& n : def_.input_names) names += (names.empty() ? "" : ", ") + n;
      throw UserError(
          it->second.where,
          fmt::format("the inputs list has {} entries, but the fusion has {} inputs ({})",
                      def_.inputs.size(), expected, names));
    }
    checkFromPytorchPositions(from_pytorch_, it->second, execute_arg_);
  }

  // ---- the fusion body ----------------------------------------------------------------

  void runFunction(const std::string& param, const SourceLocation& where) {
    if (func_->called)
      throw UserError(where, fmt::format("{} is called twice", displayText(func_->name.text)));
    func_->called = true;
    if (!fusion_) fusion_ = std::make_unique<Fusion>();
    size_t resume = cur_.position();
    std::string saved_fd = fd_name_;
    auto saved_vars = std::move(vars_);
    auto saved_locals = std::move(function_locals_);
    vars_.clear();
    function_locals_ = assignedNames(tokens_, func_->body_start);
    fd_name_ = param;
    cur_.seek(func_->body_start);
    bodyBlock();
    cur_.seek(resume);
    fd_name_ = saved_fd;
    vars_ = std::move(saved_vars);
    function_locals_ = std::move(saved_locals);
  }

  // Statements of an indented body until its DEDENT.
  void bodyBlock() {
    while (!cur_.at(TokenKind::Dedent) && !cur_.at(TokenKind::End)) bodyStatement();
    if (cur_.at(TokenKind::Dedent)) cur_.next();
  }

  void bodyStatement() {
    const Token& t = cur_.peek();
    if (t.kind == TokenKind::Newline) {
      cur_.next();
      return;
    }
    if (t.isName("pass")) {
      cur_.next();
      return cur_.expectEndOfStatement();
    }
    if (t.kind == TokenKind::String) {  // a docstring
      cur_.next();
      return cur_.expectEndOfStatement();
    }
    if (skipPrint()) return;
    for (std::string_view kw :
         {"for", "while", "if", "def", "with", "return", "import", "from", "class"})
      if (t.isName(kw))
        cur_.fail(t, fmt::format("'{}' is not supported inside a fusion definition (expected "
                                 "straight-line assignments and fd.add_output calls)",
                                 kw));
    const bool bracketed = atBracketedTargets();
    if (t.kind != TokenKind::Name && !bracketed)
      cur_.failExpected("a statement such as `T1 = fd.ops.add(T0, S0)` or `fd.add_output(T1)`");
    std::vector<Token> targets;
    if (bracketed || cur_.peek(1).isOp("=") || cur_.peek(1).isOp(","))
      targets = assignmentTargets();
    PyValue v = parseExpression(cur_, body_);
    cur_.expectEndOfStatement();
    if (!targets.empty()) bindTargets(targets, v, vars_);
    // Remember the script's name for each input the statement defined (inputs
    // defined inside a called function were named by its own statements).
    for (size_t i = def_.input_names.size(); i < fusion_->inputs().size(); ++i) {
      def_.input_names.push_back(targets.size() == 1 ? targets[0].text : fmt::format("#{}", i));
      def_.input_locations.push_back(loc(t));
    }
  }

  PyValue bodyName(const std::vector<Token>& path) {
    const std::string& head = path[0].text;
    if (path.size() == 1 && vars_.count(head)) {
      PyValue v = vars_.at(head);
      v.where = loc(path[0]);
      return v;
    }
    if (path.size() == 1 && top_vars_.count(head)) {
      checkModuleRead(path[0], loc(path[0]), function_locals_, top_assignments_[head]);
      PyValue v = top_vars_.at(head);
      v.where = loc(path[0]);
      return v;
    }
    if (head == "DataType") return dataTypeName(path);
    if (path.size() == 1 && head == fd_name_) {
      PyValue v = PyValue::make(PyValue::Kind::Opaque, loc(path[0]));
      v.var = fd_name_;
      return v;
    }
    if (head == fd_name_)
      cur_.fail(path[0],
                fmt::format("{} is not a value (did you mean to call it?)", joinPath(path)));
    cur_.fail(path[0], fmt::format("undefined variable {}", joinPath(path)));
  }

  PyValue bodyCall(const std::vector<Token>& path, CallArgs args) {
    const std::string& head = path[0].text;
    if (head == fd_name_) {
      // Run-time errors of what this call makes name it.
      fusion_->setOriginOfNewExprs(loc(path[0]));
      if (path.size() == 3 && path[1].text == "ops") return callFdOp(*fusion_, path[2], args);
      if (path.size() == 2) {
        PyValue v = callFdMethod(*fusion_, fd_name_, path[1], args);
        if (path[1].text == "from_pytorch" && v.input)
          from_pytorch_.push_back({fusion_->inputs().size() - 1, v.input, loc(path[1])});
        return v;
      }
      cur_.fail(path.size() > 1 ? path[1] : path[0],
                fmt::format("unknown FusionDefinition member {} (known: add_output, define_scalar, "
                            "define_tensor, define_vector, from_pytorch, ops.<op>)",
                            joinPath(path)));
    }
    if (path.size() == 1 && head == "print") return PyValue::none(args.where);
    if (isDTypeConverter(path)) return nvfuserDTypeOf(args);
    if (path.size() == 1 && func_ && head == func_->name.text) {
      bool passes_fd = args.positional.size() == 1 && args.keywords.empty() &&
                       args.positional[0].kind == PyValue::Kind::Opaque &&
                       args.positional[0].var == fd_name_;
      if (!passes_fd) throw UserError(args.where, fmt::format("expected {}({})", head, fd_name_));
      runFunction(func_->param, args.where);
      return PyValue::none(args.where);
    }
    if (vars_.count(head) || top_vars_.count(head))
      cur_.fail(path[0], fmt::format("{} is not callable", head));
    cur_.fail(path[0],
              fmt::format("undefined function {} (expected {}.ops.<op>(...) or {}.define_*)",
                          joinPath(path), fd_name_, fd_name_));
  }

  PyValue bodyMethod(PyValue self, const Token& name, CallArgs args) {
    return callValueMethod(self, name, args);
  }

  bool isDTypeConverter(const std::vector<Token>& path) const {
    return dtype_converter_imported_ && path.size() == 1 &&
           path[0].text == "torch_dtype_to_nvfuser_dtype";
  }

  PyValue dataTypeName(const std::vector<Token>& path) {
    if (path.size() != 2)
      cur_.fail(path[0], fmt::format("expected DataType.<name>, found {}", joinPath(path)));
    return dataTypeNamed(path[1].text, loc(path[0]), loc(path[1]));
  }

  std::vector<Token> tokens_;
  Cursor cur_;
  BodyResolver body_;
  TopResolver top_;
  PythonDefinition def_;
  std::unique_ptr<Fusion> fusion_;
  std::optional<FunctionDef> func_;
  std::map<std::string, PyValue> vars_;      // the fusion body's variables
  std::map<std::string, PyValue> top_vars_;  // module-level variables (inputs, constants, out)
  std::set<std::string> function_locals_;    // names the running function assigns
  std::map<std::string, std::vector<Token>> top_assignments_;  // where each module name is set
  std::optional<size_t> with_body_;  // the `with FusionDefinition()` block's statements
  std::vector<FromPytorchUse> from_pytorch_;
  bool dtype_converter_imported_ = false;  // from nvfuser.pytorch_utils import ...
  std::string fd_name_;                    // the FusionDefinition inside the body being read
  std::string fd_var_;                     // the name bound by `with FusionDefinition() as fd`
  std::string execute_arg_ = "inputs";
};

}  // namespace
}  // namespace frontend

PythonDefinition parsePythonDefinition(std::string_view source, const std::string& filename) {
  return frontend::ScriptReader(source, filename).read();
}

PythonDefinition parsePythonFile(const std::string& path) {
  return parsePythonDefinition(readBoundedFile(path, kMaxScriptBytes, "the script"), path);
}

}  // namespace fusebox
