// The imports a definition script may have.
#include "frontend/imports.h"

#include <fmt/format.h>

namespace fusebox::frontend {

void readImport(Cursor& cur) {
  cur.next();
  const Token& mod = cur.expectName("a module name");
  if (mod.text != "torch" && mod.text != "nvfuser")
    cur.fail(mod, fmt::format("unsupported import '{}' (expected `import torch` or `from "
                              "nvfuser import FusionDefinition, DataType`)",
                              displayText(mod.text)));
  if (cur.atOp(".")) cur.fail(cur.peek(), "only `import torch` is supported");
  cur.expectEndOfStatement();
}

bool readFromImport(Cursor& cur) {
  cur.next();
  const Token& mod = cur.expectName("a module name");
  // nvfuser.pytorch_utils gives torch_dtype_to_nvfuser_dtype, nothing else here.
  const bool utils = mod.text == "nvfuser" && cur.atOp(".") &&
                     cur.peek(1).isName("pytorch_utils") && cur.peek(2).isName("import");
  if (utils) {
    cur.next();
    cur.next();
  }
  if (mod.text != "nvfuser" || cur.atOp("."))
    cur.fail(mod, fmt::format("unsupported import from '{}' (expected `from nvfuser import "
                              "FusionDefinition, DataType`)",
                              displayText(mod.text)));
  cur.expectKeyword("import", "'import'");
  bool paren = cur.acceptOp("(");
  while (true) {
    const Token& n = cur.expectName("a name to import");
    if (utils && n.text != "torch_dtype_to_nvfuser_dtype")
      cur.fail(n, fmt::format("unsupported import '{}' from nvfuser.pytorch_utils (expected "
                              "torch_dtype_to_nvfuser_dtype)",
                              displayText(n.text)));
    if (!utils && n.text != "FusionDefinition" && n.text != "DataType")
      cur.fail(n, fmt::format("unsupported import '{}' from nvfuser (expected FusionDefinition, "
                              "DataType)",
                              displayText(n.text)));
    if (!cur.acceptOp(",")) break;
    if (paren && cur.atOp(")")) break;
  }
  if (paren) cur.expectOp(")");
  cur.expectEndOfStatement();
  return utils;
}

}  // namespace fusebox::frontend
