// The C++ builder API: creates expressions with shape inference and PyTorch's
// type promotion. Each op takes the fusion from its operands. Bad arguments
// (wrong rank, out-of-range dims, incompatible constant extents, wrong dtypes)
// throw UserError with a message saying what was expected.
#pragma once

#include <fusebox/ir/fusion.h>

#include <optional>
#include <vector>

namespace fusebox {

// ---- inputs ----------------------------------------------------------------
// nvFuser's define_tensor: shape entries -1 (symbolic), 1 (broadcast) or a fixed
// size. `contiguity` has one entry per dim in allocation (stride-order) order, as
// nvFuser's (nullopt for broadcast dims; empty = contiguous); `stride_order` as nvFuser's (empty =
// row-major). The tensor is added as a fusion input.
TensorView* defineTensor(Fusion& f, const std::vector<int64_t>& shape, DataType dtype,
                         const std::vector<std::optional<bool>>& contiguity = {},
                         const std::vector<int64_t>& stride_order = {});
// A rank-n input with all extents symbolic, contiguous.
TensorView* defineSymbolicTensor(Fusion& f, int64_t ndims, DataType dtype = DataType::Float);
// A symbolic scalar input (nvFuser's define_scalar(dtype=...)).
Scalar* defineScalar(Fusion& f, DataType dtype);

// ---- elementwise -------------------------------------------------------------
// Operands may be tensors or scalars. Tensors of different rank are aligned on
// the right (PyTorch broadcasting; missing leading dims become broadcasts).
// If every operand is a scalar the result is a scalar.
Val* unaryOp(UnaryOpType op, Val* x);
TensorView* unaryOp(UnaryOpType op, TensorView* x);
Val* binaryOp(BinaryOpType op, Val* a, Val* b);
TensorView* binaryOp(BinaryOpType op, TensorView* a, Val* b);
TensorView* binaryOp(BinaryOpType op, Val* a, TensorView* b);
TensorView* binaryOp(BinaryOpType op, TensorView* a, TensorView* b);
Val* ternaryOp(TernaryOpType op, Val* a, Val* b, Val* c);
Val* castOp(DataType dtype, Val* x);
TensorView* castOp(DataType dtype, TensorView* x);

// Shorthands used throughout tests.
#define FUSEBOX_DECLARE_BINARY(fn)                  \
  Val* fn(Val* a, Val* b);                          \
  TensorView* fn(TensorView* a, Val* b);            \
  TensorView* fn(Val* a, TensorView* b);            \
  TensorView* fn(TensorView* a, TensorView* b);
FUSEBOX_DECLARE_BINARY(add)
FUSEBOX_DECLARE_BINARY(sub)
FUSEBOX_DECLARE_BINARY(mul)
FUSEBOX_DECLARE_BINARY(div)
FUSEBOX_DECLARE_BINARY(pow)
FUSEBOX_DECLARE_BINARY(maximum)
FUSEBOX_DECLARE_BINARY(minimum)
FUSEBOX_DECLARE_BINARY(lt)
FUSEBOX_DECLARE_BINARY(gt)
FUSEBOX_DECLARE_BINARY(eq)
#undef FUSEBOX_DECLARE_BINARY
Val* ceilDiv(Val* a, Val* b);
TensorView* neg(TensorView* x);
TensorView* exp(TensorView* x);
TensorView* tanh(TensorView* x);
TensorView* where(Val* cond, Val* a, Val* b);

// ---- data movement -------------------------------------------------------------
TensorView* set(TensorView* x);
// A segmentation hint: the producer and consumer go to different segments.
TensorView* segmentSet(TensorView* x);
// Inserts broadcast dims: is_broadcast_dim has one entry per output dim.
TensorView* broadcast(TensorView* x, const std::vector<bool>& is_broadcast_dim);
// nvFuser's broadcast_in_dim: input dim i becomes output dim broadcast_dims[i];
// other output dims are new broadcasts expanded to `shape` (broadcast + expand).
TensorView* broadcastInDim(TensorView* x, const std::vector<Val*>& shape,
                           const std::vector<int64_t>& broadcast_dims);
// Removes broadcast (or extent-1) dims. Negative dims count from the end.
TensorView* squeeze(TensorView* x, const std::vector<int64_t>& dims, bool squeeze_expanded = false);
// Expands broadcast dims to `shape`; -1 (a constant) keeps a dim.
TensorView* expand(TensorView* x, const std::vector<Val*>& shape);
// torch.reshape; at most one -1 entry, inferred.
TensorView* reshape(TensorView* x, const std::vector<Val*>& new_shape);
// Output dim i is input dim dims[i].
TensorView* permute(TensorView* x, const std::vector<int64_t>& dims);

// ---- reductions ---------------------------------------------------------------
// Axes may be negative; empty axes reduce every dim. keepdim adds a broadcast.
// dtype: accumulate/output type; default as torch (ints and bool sum to int64).
TensorView* reduction(ReductionOpType op, TensorView* x, std::vector<int64_t> axes,
                      bool keepdim = false, std::optional<DataType> dtype = std::nullopt);
TensorView* sum(TensorView* x, std::vector<int64_t> axes, bool keepdim = false,
                std::optional<DataType> dtype = std::nullopt);
TensorView* max(TensorView* x, std::vector<int64_t> axes, bool keepdim = false);
TensorView* variance(TensorView* x, std::vector<int64_t> axes, int64_t correction = 1,
                     bool keepdim = false);
struct VarMeanResult {
  TensorView* var;
  TensorView* mean;
};
VarMeanResult varMean(TensorView* x, std::vector<int64_t> axes, int64_t correction = 1,
                      bool keepdim = false);
struct WelfordResult {
  TensorView* avg;
  TensorView* var_sum;
  TensorView* n;
};
WelfordResult welford(TensorView* x, std::vector<int64_t> axes);

// ---- resize ---------------------------------------------------------------------
// starts/stops/steps: one per dim (steps may be empty = all 1). Indices are
// clamped to [0, extent] as torch does for constant indices.
TensorView* slice(TensorView* x, const std::vector<Val*>& starts, const std::vector<Val*>& stops,
                  const std::vector<Val*>& steps = {});
// pad_widths in torch order: (left, right) of the last dim first. value
// defaults to 0.
TensorView* pad(TensorView* x, const std::vector<Val*>& pad_widths, Val* value = nullptr);
TensorView* cat(const std::vector<TensorView*>& xs, int64_t dim);

// ---- creation ---------------------------------------------------------------------
TensorView* full(Fusion& f, const std::vector<Val*>& shape, Val* fill_value, DataType dtype);
TensorView* iota(Fusion& f, Val* length, Val* start, Val* step, DataType dtype);
// Philox-based random numbers; seed/offset both given or both null.
TensorView* uniform(Fusion& f, const std::vector<Val*>& shape, Val* low, Val* high,
                    DataType dtype, Val* seed = nullptr, Val* offset = nullptr);
TensorView* normal(Fusion& f, const std::vector<Val*>& shape, Val* mean, Val* std,
                   DataType dtype, Val* seed = nullptr, Val* offset = nullptr);

// ---- matmul ---------------------------------------------------------------------------
// torch.matmul semantics (1-D operands, batch broadcasting).
TensorView* matmul(TensorView* a, TensorView* b);
// torch.nn.functional.linear: a[..., K] x weight[N, K]^T (+ bias[N]).
TensorView* linear(TensorView* a, TensorView* weight, TensorView* bias = nullptr);

// ---- indexing (ops_indexing.cpp) ------------------------------------------------------------
// Indices are Int or Int32 tensors (a scalar for select). As in PyTorch only
// select counts a negative index from the end; every other op refuses an index
// outside [0, size) when it runs (the evaluator names the op, the index, the
// dim and its size). `dim` may be negative.
// torch.index_select: `index` has rank 0 or 1; the output is x with dim
// `dim` of index's numel.
TensorView* indexSelect(TensorView* x, TensorView* index, int64_t dim);
// torch.select: drops dim `dim`, taking the slice at `index`.
TensorView* select(TensorView* x, Val* index, int64_t dim);
// torch.gather: index has x's rank and is no larger outside `dim`; the output
// has index's shape.
TensorView* gather(TensorView* x, TensorView* index, int64_t dim);
// torch.take_along_dim with an explicit dim: as gather, but outside `dim` the
// index broadcasts against x (sizes equal or 1).
TensorView* takeAlongAxis(TensorView* x, TensorView* index, int64_t dim);
// torch.scatter, out of place: a copy of self with src (a tensor of self's
// dtype and rank, or a scalar) written at the positions index gives along
// `dim`. With repeated indices the last write in index order wins.
TensorView* scatter(TensorView* self, TensorView* index, Val* src, int64_t dim);
// torch.nn.functional.embedding's forward: rows of the 2-D `weight` picked by
// the integer tensor `input` (output shape: input's, then weight's columns),
// as index_select of the flattened input.
TensorView* embedding(TensorView* input, TensorView* weight);

// ---- scans and masks (ops_scan.cpp) ---------------------------------------------------------
// cumsum (Sum), cumprod (Prod), cummax (Max, values only), cummin (Min) along
// `dim`. Sum and prod of bool and integer tensors give int64, as torch.
TensorView* scan(ReductionOpType op, TensorView* x, int64_t dim);
// torch.triu: x (rank >= 2) with the elements below diagonal `diagonal` of
// its last two dims zeroed; built from iota, a comparison and where.
TensorView* triu(TensorView* x, Val* diagonal);

// ---- sorting (ops_sort.cpp) -------------------------------------------------------------
// torch.argsort: the int64 indices that sort x along `dim` (ascending, or
// descending). Equal elements keep their input order whether or not `stable`
// is asked for; NaN sorts above every number, as in torch.
TensorView* argsort(TensorView* x, int64_t dim, bool descending, bool stable);
// torch.topk: the k largest (or smallest) elements of x along `dim` and their
// int64 indices; `k` is an integral scalar, 0 <= k <= the dim's size (checked
// here when both are constants, else when the fusion runs). The elements come
// back in order whether or not `sorted` is asked for.
struct TopKResult {
  TensorView* values;
  TensorView* indices;
};
TopKResult topk(TensorView* x, Val* k, int64_t dim, bool largest, bool sorted);

// ---- helpers -----------------------------------------------------------------------------
// Normalizes a possibly negative dim against rank; throws UserError naming `what`.
int64_t normalizeDim(int64_t dim, int64_t rank, const char* what);

}  // namespace fusebox
