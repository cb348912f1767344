// The scalar accesses every placement falls back to (placement.h).
#include "kernelgen/placement.h"

#include "kernel_ir/element_math.h"

namespace fusebox::kernelgen {

kir::Value scalarLoad(CodeSink& sink, const ElementRef& ref, const kir::Value& offset) {
  const kir::Type ct = kir::computeTypeFor(ref.tv->dtype());
  return sink.at().declare(sink.newVar("ld"), ct,
                           kir::castFrom(ct, kir::subscript(kir::var(ref.pointer), offset)),
                           {.is_const = true});
}

void scalarStore(CodeSink& sink, const ElementRef& ref, const kir::Value& offset,
                 const kir::Value& value) {
  sink.at().assign(kir::subscript(kir::var(ref.pointer), offset),
                   kir::storedAs(ref.tv->dtype(), value));
}

}  // namespace fusebox::kernelgen
