// kernelgen/exact_values.h: which values a 16-bit float type holds exactly,
// so that casting them back to it rounds nothing.
#include <fusebox/ir/ops.h>
#include <gtest/gtest.h>

#include "kernelgen/exact_values.h"

namespace {

using namespace fusebox;
using namespace fusebox::kernelgen;

TEST(KernelgenExactValues, WhatKeepsAValueOfItsType) {
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::BFloat16);
  TensorView* y = defineTensor(f, {-1, -1}, DataType::BFloat16);
  TensorView* h = defineTensor(f, {-1, -1}, DataType::Half);
  TensorView* xf = castOp(DataType::Float, x);
  TensorView* yf = castOp(DataType::Float, y);
  TensorView* negated = neg(xf);
  TensorView* absolute = unaryOp(UnaryOpType::Abs, castOp(DataType::Double, x));
  TensorView* larger = binaryOp(BinaryOpType::Maximum, negated, yf);
  TensorView* picked = where(gt(xf, yf), larger, permute(yf, {0, 1}));
  TensorView* joined = cat({negated, yf}, 1);
  TensorView* summed = add(xf, yf);                   // a sum rounds
  TensorView* scaled = mul(xf, f.constantDouble(2));  // so does a product by a scalar
  TensorView* mixed = binaryOp(BinaryOpType::Maximum, xf, castOp(DataType::Float, h));
  TensorView* relu = unaryOp(UnaryOpType::Relu, castOp(DataType::Float, h));
  for (TensorView* t : {negated, absolute, larger, picked, joined, summed, scaled, mixed, relu})
    f.addOutput(castOp(DataType::BFloat16, t));
  const ExactValues exact(f);
  for (TensorView* t : {x, xf, negated, absolute, larger, picked, joined})
    EXPECT_TRUE(exact.holds(t, DataType::BFloat16)) << t->toString();
  for (TensorView* t : {summed, scaled, mixed, relu, h})
    EXPECT_FALSE(exact.holds(t, DataType::BFloat16)) << t->toString();
  // float16's own values: the input and its relu; not bfloat16's.
  EXPECT_TRUE(exact.holds(h, DataType::Half));
  EXPECT_TRUE(exact.holds(relu, DataType::Half));
  EXPECT_FALSE(exact.holds(negated, DataType::Half));
  // Only 16-bit float types are asked about.
  EXPECT_FALSE(exact.holds(xf, DataType::Float));
}

}  // namespace
