// A dtype's type spellings (codegen_ops.h).
#include "kernelgen/codegen_ops.h"

#include "kernel_ir/element_math.h"

namespace fusebox::kernelgen {

std::string storageType(DataType t) {
  return kir::storageTypeFor(t).spelling;
}

std::string computeTypeName(DataType t) {
  return kir::computeTypeFor(t).spelling;
}

}  // namespace fusebox::kernelgen
