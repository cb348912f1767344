// The scalar accesses every placement falls back to (placement.h).
#include "kernelgen/placement.h"

#include "kernel_ir/element_math.h"
#include "kernelgen/codegen_ops.h"

namespace fusebox::kernelgen {

std::string scalarLoad(CodeSink& sink, const ElementRef& ref, const std::string& offset) {
  const std::string ct = computeTypeName(ref.tv->dtype());
  const std::string var = sink.newVar("ld");
  sink.at().declare(
      var, kir::named(ct),
      kir::castFrom(kir::named(ct), kir::subscript(kir::var(ref.pointer), kir::text(offset))),
      {.is_const = true});
  return var;
}

void scalarStore(CodeSink& sink, const ElementRef& ref, const std::string& offset,
                 const std::string& value) {
  sink.at().assign(kir::subscript(kir::var(ref.pointer), kir::text(offset)),
                   kir::castFrom(kir::storageTypeFor(ref.tv->dtype()), kir::text(value)));
}

}  // namespace fusebox::kernelgen
