// slice, pad, cat: output extents (constant and symbolic), IterTypes, operands.
#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace fusebox::test;

TEST(OpsResize, SliceOfConstantExtentsFollowsPythonSlicing) {
  struct Case {
    int64_t start, stop, step, length;
  };
  // Hand-computed len(range(10)[start:stop:step]).
  const Case cases[] = {{2, 8, 1, 6},  {-3, 10, 1, 3}, {0, 100, 1, 10}, {8, 2, 1, 0},
                        {1, 10, 3, 3}, {0, 10, 4, 3},  {-100, 5, 1, 5}, {5, -1, 1, 4},
                        {2, 9, 2, 4},  {3, 4, 1, 1},   {-1, 10, 1, 1},  {10, 12, 1, 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(fmt::format("[{}:{}:{}]", c.start, c.stop, c.step));
    Fusion f;
    auto* t0 = defineTensor(f, {10}, DataType::Float);
    auto* s = slice(t0, {f.constantInt(c.start)}, {f.constantInt(c.stop)}, {f.constantInt(c.step)});
    EXPECT_THAT(constSizes(s), ElementsAre(c.length));
    EXPECT_EQ(s->axis(0)->iterType(), c.length == 1 ? IT::Broadcast : IT::Iteration);
  }
}

TEST(OpsResize, SliceOperandLayout) {
  Fusion f;
  auto* t0 = defineTensor(f, {4, 6}, DataType::Float);
  auto* a = f.constantInt(1);
  auto* b = f.constantInt(3);
  auto* s = slice(t0, {a, a}, {b, b});
  Expr* e = s->definition();
  ASSERT_EQ(e->inputs().size(), 7u);  // T, 2 starts, 2 stops, 2 steps
  EXPECT_EQ(e->input(0), t0);
  EXPECT_EQ(e->input(1), a);
  EXPECT_EQ(e->input(3), b);
  EXPECT_EQ(constValue(e->input(5)), 1);  // default step
  EXPECT_EQ(constValue(e->input(6)), 1);
  EXPECT_THAT(constSizes(s), ElementsAre(2, 2));
}

TEST(OpsResize, SliceOfSymbolicExtents) {
  Fusion f;
  auto* t0 = defineSymbolicTensor(f, 3);
  Scalar* i0 = t0->axis(0)->extent();
  Scalar* i1 = t0->axis(1)->extent();
  Scalar* i2 = t0->axis(2)->extent();
  auto* s = slice(t0, {f.constantInt(2), f.zero(), f.zero()}, {i0, f.constantInt(-1), i2});
  EXPECT_THAT(iterTypes(s), ElementsAre(IT::Symbolic, IT::Symbolic, IT::Iteration));
  EXPECT_EQ(s->axis(0)->extent()->inlineString(),
            fmt::format("max(0, ( {} - min(2, {}) ))", i0->toString(), i0->toString()));
  EXPECT_EQ(s->axis(1)->extent()->inlineString(),
            fmt::format("max(0, ( {} - 1 ))", i1->toString()));
  EXPECT_EQ(s->axis(2)->extent(), i2);  // the whole dim: unchanged

  // A symbolic start may be negative: it is wrapped with where().
  auto* start = defineScalar(f, DataType::Int64);
  auto* s2 = slice(t0, {start, f.zero(), f.zero()}, {i0, i1, i2});
  EXPECT_TRUE(s2->axis(0)->isSymbolic());
  EXPECT_THAT(s2->axis(0)->extent()->inlineString(), HasSubstr("where("));
  // A step divides (rounding up).
  auto* s3 =
      slice(t0, {f.zero(), f.zero(), f.zero()}, {i0, i1, i2}, {f.constantInt(2), f.one(), f.one()});
  EXPECT_EQ(s3->axis(0)->extent()->inlineString(), fmt::format("ceilDiv({}, 2)", i0->toString()));
}

TEST(OpsResize, BadSlice) {
  Fusion f;
  auto* t0 = defineTensor(f, {10, -1}, DataType::Float);
  auto* z = f.zero();
  auto* five = f.constantInt(5);
  EXPECT_USER_ERROR(slice(t0, {z, z}, {five, five}, {f.one(), f.zero()}),
                    HasSubstr("fd.ops.slice: stride 1 must be a positive constant, got 0"));
  EXPECT_USER_ERROR(slice(t0, {z, z}, {five, five}, {f.one(), defineScalar(f, DataType::Int64)}),
                    HasSubstr("stride 1 must be a positive constant"));
  EXPECT_USER_ERROR(slice(t0, {z}, {five, five}), HasSubstr("need one entry per dim of T0_g[10, i"),
                    HasSubstr("got 1, 2 and 0"));
  EXPECT_USER_ERROR(slice(t0, {z, f.constantDouble(1.0)}, {five, five}),
                    HasSubstr("fd.ops.slice: start index 1 must be an integer scalar, got Double"));
  EXPECT_USER_ERROR(slice(t0, {z, z}, {five, nullptr}), HasSubstr("end index 1 is missing"));
}

TEST(OpsResize, Pad) {
  Fusion f;
  auto* t0 = defineTensor(f, {3, -1}, DataType::Float);
  Scalar* i = t0->axis(1)->extent();
  auto* p = pad(t0, {f.constantInt(1), f.constantInt(2)});
  EXPECT_THAT(iterTypes(p), ElementsAre(IT::Iteration, IT::Symbolic));
  EXPECT_EQ(p->axis(0)->extent(), t0->axis(0)->extent());
  EXPECT_EQ(p->axis(1)->extent()->inlineString(), fmt::format("( ( 1 + {} ) + 2 )", i->toString()));
  // Operands: T, value, widths. The default value is 0 of the tensor's dtype.
  Expr* e = p->definition();
  ASSERT_EQ(e->inputs().size(), 4u);
  auto* value = e->input(1)->as<Scalar>();
  EXPECT_EQ(value->dtype(), DataType::Float);
  ASSERT_TRUE(value->isConst());
  EXPECT_EQ(toDouble(*value->value()), 0.0);

  // Torch order: the first pair pads the last dim.
  auto* q = pad(t0, {f.zero(), f.zero(), f.one(), f.one()}, f.constantDouble(-1.0));
  EXPECT_THAT(constSizes(q), ElementsAre(5, kSym));
  EXPECT_EQ(q->axis(1)->extent(), i);
  EXPECT_EQ(q->definition()->input(1)->as<Scalar>()->dtype(), DataType::Double);
  // Negative widths crop; a size of 1 is a broadcast.
  auto* t1 = defineTensor(f, {3}, DataType::Int32);
  auto* c = pad(t1, {f.constantInt(-1), f.constantInt(-1)});
  EXPECT_THAT(constSizes(c), ElementsAre(1));
  EXPECT_TRUE(c->axis(0)->isBroadcast());
  EXPECT_EQ(c->definition()->input(1)->dtype(), DataType::Int32);
}

TEST(OpsResize, BadPad) {
  Fusion f;
  auto* t0 = defineTensor(f, {3}, DataType::Float);
  auto* one = f.one();
  EXPECT_USER_ERROR(pad(t0, {one}), HasSubstr("fd.ops.pad: pad_widths [1] must have an even "
                                              "number of entries, at most 2 * rank = 2"));
  EXPECT_USER_ERROR(pad(t0, {one, one, one, one}), HasSubstr("at most 2 * rank = 2"));
  EXPECT_USER_ERROR(pad(t0, {f.constantInt(-2), f.constantInt(-2)}),
                    HasSubstr("padding dim 0 of T0_g[3] by (-2, -2) gives a negative size -1"));
  EXPECT_USER_ERROR(pad(t0, {one, one}, t0), HasSubstr("the pad value must be a scalar"));
  EXPECT_USER_ERROR(pad(t0, {one, f.constantDouble(1.0)}),
                    HasSubstr("pad width 1 must be an integer scalar"));
}

TEST(OpsResize, Cat) {
  Fusion f;
  auto* a = defineTensor(f, {2, -1}, DataType::Half);
  auto* b = defineTensor(f, {3, -1}, DataType::Float);
  auto* c = cat({a, b}, 0);
  EXPECT_EQ(c->dtype(), DataType::Float);
  EXPECT_THAT(constSizes(c), ElementsAre(5, kSym));
  EXPECT_THAT(iterTypes(c), ElementsAre(IT::Iteration, IT::Iteration));
  EXPECT_EQ(c->axis(1)->extent(), a->axis(1)->extent());
  Expr* e = c->definition();
  EXPECT_EQ(e->op(), OpType::Cat);
  EXPECT_EQ(e->attr<CatAttr>().dim, 0);
  ASSERT_EQ(e->inputs().size(), 2u);
  EXPECT_EQ(e->input(0)->definition()->op(), OpType::Cast);  // torch.cat promotes
  EXPECT_EQ(e->input(0)->definition()->input(0), a);
  EXPECT_EQ(e->input(1), b);

  auto* x = defineSymbolicTensor(f, 2);
  auto* y = defineSymbolicTensor(f, 2);
  auto* xy = cat({x, y}, -1);
  EXPECT_EQ(xy->definition()->attr<CatAttr>().dim, 1);
  EXPECT_EQ(xy->axis(1)->extent()->inlineString(),
            fmt::format("( {} + {} )", x->axis(1)->extent()->toString(),
                        y->axis(1)->extent()->toString()));
  EXPECT_TRUE(xy->axis(1)->isIteration());
}

TEST(OpsResize, BadCat) {
  Fusion f;
  auto* a = defineTensor(f, {2, 3}, DataType::Float);
  auto* b = defineTensor(f, {2, 4}, DataType::Float);
  auto* c = defineTensor(f, {2, 1}, DataType::Float);
  auto* v = defineTensor(f, {2}, DataType::Float);
  EXPECT_USER_ERROR(cat({a, b}, 0),
                    HasSubstr("fd.ops.cat: operands have incompatible sizes at "
                              "dim 1"),
                    HasSubstr("tensor 0 (T0_g[2, 3]) has size 3"),
                    HasSubstr("tensor 1 (T1_g[2, 4]) has size 4"));
  EXPECT_USER_ERROR(cat({b, c}, 0), HasSubstr("has size 4"), HasSubstr("has size 1"));
  EXPECT_USER_ERROR(cat({a, v}, 0), HasSubstr("all tensors need the same rank"),
                    HasSubstr("tensor 1 (T3_g[2]) has rank 1"));
  EXPECT_USER_ERROR(cat({}, 0), HasSubstr("fd.ops.cat: needs at least one tensor"));
  EXPECT_USER_ERROR(cat({a, b}, 2), HasSubstr("fd.ops.cat: dim 2 is out of range"));
  EXPECT_USER_ERROR(cat({a, nullptr}, 0), HasSubstr("fd.ops.cat: tensor 1 is missing"));
  EXPECT_THAT(constSizes(cat({a, b}, 1)), ElementsAre(2, 7));
}

}  // namespace
}  // namespace fusebox
