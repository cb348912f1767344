// The element math of every IR op as kernel IR values, with the reference
// evaluator's type rules: a value lives in a compute type (bool, int64_t for
// both integer dtypes, float for float16/bfloat16/float32, double), an op
// computes in the type its operands and result call for, and every result
// is rounded through its output dtype's storage type. Each op is a call of
// the device runtime (fusebox::op::add, fusebox::Cast<T>::from, ...), so the
// printer writes it and a scheduler can take it apart. Also the runtime's
// memory and random-number primitives: vector loads and stores,
// asynchronous copies, the Philox draw.
#pragma once

#include <fusebox/ir/ir.h>

#include "kernel_ir/kernel_ir.h"

namespace fusebox::kir {

Type storageTypeFor(DataType t);  // fusebox::Half, int32_t, ...
Type computeTypeFor(DataType t);  // float, int64_t, ...

// fusebox::Cast<T>::from(x): x converted to T as the runtime converts.
Value castFrom(const Type& t, Value x);
// `x` (in any compute type) as dtype t stores it, back in t's compute type.
Value roundTo(DataType t, Value x);
// `x`, a value of dtype t in t's compute type (already rounded to t, as
// every value of a t tensor is), in t's storage type: a bfloat16 by taking
// the float's top half (fusebox::BFloat16::fromExact), the rest by Cast.
Value storedAs(DataType t, Value x);
// Element `index` of `vector` (a fusebox::Array of t's storage type) in t's
// compute type. A bfloat16 is widened from the 32-bit word that holds it
// and its neighbour (fusebox::widenLane): one instruction each, where
// widening the 16-bit element costs the odd one a byte permute and a shift.
Value vectorElement(DataType t, Value vector, Value index);
// A constant scalar of dtype t, in t's compute type.
Value literal(const ScalarValue& v, DataType t);

// An operand of an elementwise op: its value (in its compute type) and dtype.
struct Operand {
  Value value;
  DataType dtype;
};
// The op's result in the output dtype's compute type. `approximate`: a float
// exp or division may be approximate (fusebox::op::exp_approx, div_approx).
Value unaryOp(UnaryOpType op, const Operand& x, DataType out, bool approximate = false);
Value binaryOp(BinaryOpType op, const Operand& a, const Operand& b, DataType out,
               bool approximate = false);
// An approximate float division whose divisor is the same for many
// elements (a row's sum): the divisor prepared once (fusebox::op::
// approx_divisor), then two multiplies an element, the result binaryOp's.
// `dividesApproximately`: whether binaryOp, told it may, would divide
// approximately in float; `prepareDivisor`: the prepared value of b;
// `divideByPrepared`: a divided by it.
bool dividesApproximately(BinaryOpType op, const Operand& a, const Operand& b, DataType out);
Value prepareDivisor(const Operand& b);
Value divideByPrepared(const Value& prepared, const Operand& a, DataType out);
Value ternaryOp(TernaryOpType op, const Operand& a, const Operand& b, const Operand& c,
                DataType out);

// How long a loaded row should stay in the L2 (fusebox::L2Hint): no hint; a
// later pass of the kernel reads it again; this is its last read. Streamed:
// no other load of the kernel reads these elements (fusebox::loadVecStreamed,
// evict first).
enum class LoadHint { None, KeepForNextPass, LastUse, Streamed };
// fusebox::loadVec<width>(address): `width` elements from an address aligned
// to their size (one 16-byte access at most); with a pass hint,
// fusebox::loadVecHinted<fusebox::L2Hint::..., width>(address), a
// non-coherent load (of data the kernel does not write); Streamed,
// fusebox::loadVecStreamed<width>(address).
Value loadVector(int width, Value address, LoadHint hint = LoadHint::None);
// fusebox::storeVec<width>(address, values).
void storeVector(Block& block, int width, Value address, Value values);
// Asynchronous copies from global to shared memory (cp.async on sm_80 and
// up): fusebox::asyncCopy<bytes>(shared_dst, global_src) of 4, 8 or 16
// bytes, both addresses aligned to the size, proceeds while the thread goes
// on; asyncCommit closes the copies issued so far as a group; asyncWait
// blocks until at most `pending` groups are in flight. A syncThreads after
// the wait makes the block's copies visible to all its threads.
void asyncCopy(Block& block, int bytes, Value shared_dst, Value global_src);
// Whether one asynchronous copy moves `bytes`: 4, 8 or 16.
bool asyncCopyMoves(int64_t bytes);
void asyncCommit(Block& block);
void asyncWait(Block& block, int pending);
// asyncWait for a `pending` count known once loops unroll, at most
// `max_pending` (fusebox::asyncWaitPending).
void asyncWaitPending(Block& block, int max_pending, Value pending);
// `fusebox::philox::Stream name{seed, offset};`: the Philox stream at
// (seed, offset), keeping its last block (one Philox call per four words when
// a thread draws consecutive ones); one per random op and thread.
Value declarePhiloxStream(Block& block, const std::string& name, Value seed, Value offset);
// fusebox::philox::draw(stream, index, wide): the index-th uniform double of
// the stream, 53 random bits when `wide` (a double output), else 24.
Value philoxDraw(Value stream, Value index, bool wide);
// fusebox::philox::uniformNarrow(stream, index, low, range): the index-th
// uniform float of a float, half or bfloat16 uniform (one fma in float).
Value philoxUniformNarrow(Value stream, Value index, Value low, Value range);

}  // namespace fusebox::kir
