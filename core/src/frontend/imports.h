// The imports a definition script may have: `import torch`, `from nvfuser
// import FusionDefinition, DataType` and `from nvfuser.pytorch_utils import
// torch_dtype_to_nvfuser_dtype`. Anything else is an error at the name.
#pragma once

#include "frontend/python_expr.h"

namespace fusebox::frontend {

// `import ...`; the cursor is on `import`.
void readImport(Cursor& cur);
// `from ... import ...`; the cursor is on `from`. True when it imported
// torch_dtype_to_nvfuser_dtype.
bool readFromImport(Cursor& cur);

}  // namespace fusebox::frontend
