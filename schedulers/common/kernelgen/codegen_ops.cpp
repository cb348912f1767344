// Elementwise op text (codegen_ops.h): the kernel IR's element math
// (kernel_ir/element_math.h), printed, for the writers that still hold
// values as text.
#include "kernelgen/codegen_ops.h"

#include "kernel_ir/element_math.h"
#include "kernel_ir/print_cuda.h"

namespace fusebox::kernelgen {

namespace {

kir::Operand operand(const OperandText& x) {
  return {kir::text(x.value), x.dtype};
}

}  // namespace

std::string storageType(DataType t) {
  return kir::storageTypeFor(t).spelling;
}

std::string computeTypeName(DataType t) {
  return kir::computeTypeFor(t).spelling;
}

std::string roundTo(DataType t, const std::string& expr) {
  return kir::printValue(kir::roundTo(t, kir::text(expr)));
}

std::string literal(const ScalarValue& v, DataType t) {
  return kir::printValue(kir::literal(v, t));
}

std::string unaryText(UnaryOpType op, const OperandText& x, DataType out, bool approximate) {
  return kir::printValue(kir::unaryOp(op, operand(x), out, approximate));
}

std::string binaryText(BinaryOpType op, const OperandText& a, const OperandText& b, DataType out,
                       bool approximate) {
  return kir::printValue(kir::binaryOp(op, operand(a), operand(b), out, approximate));
}

std::string ternaryText(TernaryOpType op, const OperandText& a, const OperandText& b,
                        const OperandText& c, DataType out) {
  return kir::printValue(kir::ternaryOp(op, operand(a), operand(b), operand(c), out));
}

}  // namespace fusebox::kernelgen
