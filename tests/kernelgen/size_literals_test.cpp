// Size-derived integers in generated code (kernelgen/size_literals.h): literals
// for Static kernels, parameters z<n> bound by value for kernels over
// symbolic sizes, and the classes their sources depend on (shape_classes.h).
#include <fusebox/ir/ops.h>
#include <fusebox/runtime.h>

#include <gtest/gtest.h>

#include "kernel_ir/print_cuda.h"
#include "kernelgen/element_writer.h"
#include "kernelgen/merged_dims.h"
#include "kernelgen/shape_classes.h"
#include "kernelgen/size_literals.h"

namespace {

using namespace fusebox;
using namespace fusebox::kernelgen;

// A size value as the kernel prints it.
std::string text(const kir::Value& v) {
  return kir::printValue(v);
}

TEST(KernelgenSizeLiterals, StaticPrintsLiterals) {
  SizeLiterals lits(ShapeMode::Static, 2, true);
  EXPECT_EQ(text(lits.value(1024, "m0")), "1024");
  EXPECT_EQ(text(lits.value(-3, "in0+")), "-3");
  EXPECT_EQ(lits.count(), 0);
  EXPECT_EQ(text(sizeValue(nullptr, 77, "m0")), "77");
}

TEST(KernelgenSizeLiterals, SymbolicNamesParametersPerRoleAndValue) {
  SizeLiterals lits(ShapeMode::Symbolic, 2, true);
  EXPECT_EQ(text(lits.value(0, "m0")), "0");  // structural: stay literals
  EXPECT_EQ(text(lits.value(1, "m0")), "1");
  EXPECT_EQ(text(lits.value(96, "m1")), "z0");
  EXPECT_EQ(text(lits.value(96, "m1")), "z0");      // the same value of the same role
  EXPECT_EQ(text(lits.value(96, "in0*i0")), "z1");  // equal by chance: a parameter of its own
  EXPECT_EQ(text(lits.value(40, "m1")), "z2");
  EXPECT_EQ(text(lits.value(4096, "partials1", SizeLiterals::Type::Int64)), "z3");
  EXPECT_EQ(text(lits.value(int64_t{1} << 40, "in0+")), "z4");  // beyond a 32-bit idx_t
  EXPECT_EQ(lits.count(), 5);
  kir::Block decl;
  lits.declare(decl);
  EXPECT_EQ(kir::printCuda(decl, 0),
            "[[maybe_unused]] const idx_t z0 = static_cast<idx_t>(p.i64[2]);\n"
            "[[maybe_unused]] const idx_t z1 = static_cast<idx_t>(p.i64[3]);\n"
            "[[maybe_unused]] const idx_t z2 = static_cast<idx_t>(p.i64[4]);\n"
            "[[maybe_unused]] const int64_t z3 = p.i64[5];\n"
            "[[maybe_unused]] const int64_t z4 = p.i64[6];\n");
  std::vector<ParamBinding> bindings;
  lits.addBindings(bindings);
  ASSERT_EQ(bindings.size(), 5u);
  EXPECT_EQ(bindings[0].source, ParamBinding::Source::Value);
  EXPECT_EQ(bindings[0].slot, 2);  // after the scalar inputs' slots
  EXPECT_EQ(bindings[0].value, 96);
  EXPECT_EQ(bindings[4].slot, 6);
  EXPECT_EQ(bindings[4].value, int64_t{1} << 40);
}

TEST(KernelgenSizeLiterals, NoBindingBeyondKernelParams) {
  SizeLiterals lits(ShapeMode::Symbolic, KernelParams::kMaxInts - 1, false);
  (void)lits.value(5, "a");
  (void)lits.value(6, "b");
  kir::Block decl;
  lits.declare(decl);  // 64-bit idx_t: every index value as idx_t
  EXPECT_EQ(kir::printCuda(decl).find("int64_t"), std::string::npos) << kir::printCuda(decl);
  std::vector<ParamBinding> bindings;
  EXPECT_THROW(lits.addBindings(bindings), InternalError);
  Fusion f;
  f.addOutput(neg(defineTensor(f, {-1}, DataType::Float)));
  EXPECT_NE(paramLimitProblem(f, 0, 113).find(
                "113 integer (113 of them sizes of a kernel compiled over symbolic sizes)"),
            std::string::npos)
      << paramLimitProblem(f, 0, 113);
  EXPECT_EQ(paramLimitProblem(f, 0, 112), "");
}

TEST(KernelgenSizeLiterals, IndexMathThroughTheSpace) {
  SizeLiterals lits(ShapeMode::Symbolic, 0, true);
  IterSpace space = IterSpace::named({4, 1, 8}, "r");
  space.literals = &lits;
  const Index idx = space.index();
  auto str = [](const IndexExpr& e, const IterSpace& s, const std::string& role = "") {
    return text(e.value(s, role));
  };
  EXPECT_EQ(str(linearOffset(idx, {4, 1, 8}, {8, 8, 1}, space), space, "in0"), "r0 * z0 + r2");
  const Index split = reshapeIndex(idx, {4, 1, 8}, {16, 2}, space, "T3");
  EXPECT_EQ(str(split[0], space), "(r0 * z1 + r2) / z2");
  // A memo key is no code: literals whatever the space prints.
  EXPECT_EQ(indexKey({idx[0].plus(5, space, "x")}, space), "r0 + 5;");
  kir::Block out;
  declareDimIndices(out, {0, 2}, {4, 1, 8}, "q", "", &lits);
  EXPECT_EQ(kir::printCuda(out, 0),
            "[[maybe_unused]] const idx_t i2 = q % z4;\n"
            "[[maybe_unused]] const idx_t i0 = q / z5;\n");
  // A pad width from an input: a parameter even where 0, and marked in keys.
  const IndexExpr shifted = idx[0].plus(0, space, "T9.0", /*param=*/true);
  EXPECT_EQ(str(shifted, space, "in1"), "r0 + z6");
  EXPECT_NE(indexKey({shifted}, space), indexKey({idx[0]}, space));
  // Static: the same value with the literals, as kernels always had it.
  IterSpace plain = IterSpace::named({4, 1, 8}, "r");
  EXPECT_EQ(str(linearOffset(idx, {4, 1, 8}, {8, 8, 1}, plain), plain, "in0"), "r0 * 8 + r2");
  EXPECT_EQ(str(plain.index()[0].plus(0, plain, "T9.0", true), plain), "r0");
}

TEST(KernelgenShapeClasses, SizesStridesScalarsAndAccesses) {
  EXPECT_EQ(valueClass(0), '0');
  EXPECT_EQ(valueClass(1), '1');
  EXPECT_EQ(valueClass(7), 'n');
  EXPECT_EQ(valueClass(-7), '-');
  EXPECT_EQ(valueClass(INT64_MIN), 'm');
  // x [N, M] + bias [M] over rows: the classes follow the 1s, not the sizes.
  Fusion f;
  TensorView* x = defineTensor(f, {-1, -1}, DataType::Float);
  TensorView* bias = defineTensor(f, {-1}, DataType::Float);
  f.addOutput(add(x, broadcast(bias, {true, false})));
  auto classes = [&](int64_t n, int64_t m) {
    std::vector<ArgumentInfo> infos{TensorArgInfo{DataType::Float, {n, m}, {m, 1}, 16},
                                    TensorArgInfo{DataType::Float, {m}, {1}, 16}};
    RuntimeInfo info(f, infos, {});
    const TensorSizes sizes = tensorSizes(f, info);
    ParamLayout params(f);
    ElementWriter w(f, sizes, params, info, IterSpace::named({n, m}));
    ScalarPlacement scalar(w.space());
    w.storeOutputs({{m, 1}}, scalar);
    return shapeClasses(f, sizes, info, w.accesses(), {{n, m}});
  };
  EXPECT_EQ(classes(5, 12), classes(7, 30));
  EXPECT_NE(classes(5, 12), classes(1, 12));
  EXPECT_NE(classes(5, 12), classes(5, 1));
}

}  // namespace
