// The scalar accesses every placement falls back to (placement.h).
#include "kernelgen/placement.h"

#include "kernelgen/codegen_ops.h"

namespace fusebox::kernelgen {

std::string scalarLoad(CodeSink& sink, const ElementRef& ref, const std::string& offset) {
  const std::string ct = computeTypeName(ref.tv->dtype());
  const std::string var = sink.newVar("ld");
  sink.body.line(fmt::format("const {} {} = fusebox::Cast<{}>::from({}[{}]);", ct, var, ct,
                             ref.pointer, offset));
  return var;
}

void scalarStore(CodeSink& sink, const ElementRef& ref, const std::string& offset,
                 const std::string& value) {
  sink.body.line(fmt::format("{}[{}] = fusebox::Cast<{}>::from({});", ref.pointer, offset,
                             storageType(ref.tv->dtype()), value));
}

}  // namespace fusebox::kernelgen
