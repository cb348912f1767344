// Which scalars give shapes. A scalar gives a shape when it is the extent of a
// tensor's dim, a shape operand of a tensor op (the sizes of full, reshape,
// expand and the random ops, iota's length, pad widths, slice indices), or an
// operand of the scalar arithmetic that computes one. Integer arithmetic on
// such scalars is checked (an overflow is an error naming the op); other
// integer scalar arithmetic wraps, as tensor element math does.
#pragma once

#include <fusebox/ir/fusion.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox {

// The scalar operands of a tensor expression that give its output's shape.
std::vector<const Val*> shapeOperands(const Expr* e);

// The tensor op a shape scalar sizes: the first, in creation order, whose
// output extents or shape operands depend on it.
struct ShapeUse {
  const Expr* op = nullptr;       // the tensor op
  const Val* root = nullptr;      // the extent of its output, or its shape operand, computed
  bool is_output_extent = false;  // whether `root` is an extent of op's output
};
// Every scalar of `fusion` that a shape depends on, with its first use.
std::unordered_map<const Val*, ShapeUse> shapeScalarUses(const Fusion& fusion);

// "pad of T0_g": a tensor op as overflow messages name it.
std::string describeShapeOp(const Expr* op);

}  // namespace fusebox
