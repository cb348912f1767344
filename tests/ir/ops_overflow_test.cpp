// Shape inference with constant sizes never wraps: a size, pad or element
// count that does not fit in int64 is a UserError naming the op.
#include <limits>

#include "ir/ops_test_util.h"

namespace fusebox {
namespace {

using test::constSizes;
using test::kSym;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(OpsOverflow, PadWidthsThatOverflowTheSize) {
  Fusion f;
  auto* x = defineTensor(f, {8}, DataType::Float);
  // 8 + 2 * -(2^63 - 1) wrapped to 10 before.
  EXPECT_USER_ERROR(pad(x, {f.constantInt(-kMax), f.constantInt(-kMax)}),
                    HasSubstr("fd.ops.pad: padding dim 0 of T0_g[8] by (-9223372036854775807, "
                              "-9223372036854775807) gives a size that overflows int64"));
  EXPECT_USER_ERROR(pad(x, {f.constantInt(kMax), f.constantInt(kMax)}),
                    HasSubstr("gives a size that overflows int64"));
  // Widths that cancel are fine.
  EXPECT_THAT(constSizes(pad(x, {f.constantInt(-4), f.constantInt(4)})), ElementsAre(8));
}

TEST(OpsOverflow, ReshapeToMoreElementsThanInt64Counts) {
  Fusion f;
  auto* x = defineTensor(f, {8}, DataType::Float);
  EXPECT_USER_ERROR(reshape(x, {f.constantInt(99999999999), f.constantInt(99999999999)}),
                    HasSubstr("fd.ops.reshape: cannot reshape T0_g[8] to [99999999999, "
                              "99999999999]: the number of elements overflows int64"));
  // No elements, but strides that overflow: refused where the reshape is, not
  // later through the full(...) that remove_empty puts in its place.
  auto* empty = defineTensor(f, {0}, DataType::Float);
  auto big = f.constantInt(99999999999);
  EXPECT_USER_ERROR(reshape(empty, {f.zero(), big, big, big}),
                    HasSubstr("is too large: the product of its sizes overflows int64"));
}

TEST(OpsOverflow, CreatedTensorTooLarge) {
  Fusion f;
  EXPECT_USER_ERROR(
      full(f, {f.constantInt(int64_t{1} << 62), f.constantInt(4)}, f.constantDouble(0),
           DataType::Float),
      HasSubstr("a tensor of shape [4611686018427387904, 4] is too large: the product of its "
                "sizes overflows int64"));
  EXPECT_USER_ERROR(defineTensor(f, {int64_t{1} << 32, int64_t{1} << 32}, DataType::Float),
                    HasSubstr("is too large"));
  // 2^62 * 1 fits.
  EXPECT_THAT(
      constSizes(full(f, {f.constantInt(int64_t{1} << 62)}, f.constantDouble(0), DataType::Float)),
      ElementsAre(int64_t{1} << 62));
}

TEST(OpsOverflow, CatSizeOverflows) {
  Fusion f;
  auto* a = defineTensor(f, {kMax}, DataType::Float);
  auto* c = defineTensor(f, {2}, DataType::Float);
  EXPECT_USER_ERROR(cat({a, c}, 0), HasSubstr("the size 9223372036854775807 + 2 overflows int64"));
}

TEST(OpsOverflow, SliceIndicesAtTheInt64Limits) {
  Fusion f;
  auto* x = defineTensor(f, {-1}, DataType::Float);
  // A huge positive step is valid (one element or none); a start of INT64_MIN
  // counts from the end without negating it.
  auto* s = slice(x, {f.constantInt(kMin)}, {f.constantInt(kMax)}, {f.constantInt(kMax)});
  EXPECT_THAT(constSizes(s), ElementsAre(kSym));
  auto* c = slice(defineTensor(f, {8}, DataType::Float), {f.one()}, {f.constantInt(8)},
                  {f.constantInt(kMax)});
  EXPECT_THAT(constSizes(c), ElementsAre(1));
}

}  // namespace
}  // namespace fusebox
