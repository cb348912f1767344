// Loading and storing one element of any dtype through a raw pointer, with the
// conversions every host path shares (Tensor accessors, copies, the evaluator).
#pragma once

#include <fusebox/dtype.h>
#include <fusebox/half.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace fusebox::detail {

template <class T>
inline T loadRaw(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
inline void storeRaw(void* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Float -> integer conversion: truncation toward zero. NaN and values outside the
// target's range become the target's minimum, as x86's cvtt* instructions give,
// instead of undefined behaviour.
template <class Int>
inline Int doubleToInteger(double v) {
  constexpr double kLow = static_cast<double>(std::numeric_limits<Int>::min());
  // 2^(bits-1), exactly representable; every value below it fits after truncation.
  constexpr double kHigh = -kLow;
  // Values in (kLow - 1, kLow) truncate to kLow anyway, so one test covers all.
  if (!(v >= kLow && v < kHigh)) return std::numeric_limits<Int>::min();
  return static_cast<Int>(v);
}

// dataTypeSize without a call into another translation unit, for inner loops.
inline int64_t elementSize(DataType t) {
  switch (t) {
    case DataType::Bool:
      return 1;
    case DataType::Half:
    case DataType::BFloat16:
      return 2;
    case DataType::Int32:
    case DataType::Float:
      return 4;
    default:
      return 8;
  }
}

inline bool isStoredAsInteger(DataType t) {
  return t == DataType::Bool || isIntegralType(t);
}

inline double loadDouble(const void* p, DataType t) {
  switch (t) {
    case DataType::Bool:
      return loadRaw<uint8_t>(p) != 0 ? 1.0 : 0.0;
    case DataType::Int32:
      return loadRaw<int32_t>(p);
    case DataType::Int64:
      return static_cast<double>(loadRaw<int64_t>(p));
    case DataType::Half:
      return halfToFloat(loadRaw<uint16_t>(p));
    case DataType::BFloat16:
      return bfloat16ToFloat(loadRaw<uint16_t>(p));
    case DataType::Float:
      return loadRaw<float>(p);
    case DataType::Double:
      return loadRaw<double>(p);
  }
  return 0.0;
}

// Integers and bools exactly; floats truncated (see doubleToInteger).
inline int64_t loadInt(const void* p, DataType t) {
  switch (t) {
    case DataType::Bool:
      return loadRaw<uint8_t>(p) != 0 ? 1 : 0;
    case DataType::Int32:
      return loadRaw<int32_t>(p);
    case DataType::Int64:
      return loadRaw<int64_t>(p);
    default:
      return doubleToInteger<int64_t>(loadDouble(p, t));
  }
}

inline void storeDouble(void* p, DataType t, double v) {
  switch (t) {
    case DataType::Bool:
      storeRaw<uint8_t>(p, v != 0.0 ? 1 : 0);
      return;  // NaN -> true
    case DataType::Int32:
      storeRaw<int32_t>(p, doubleToInteger<int32_t>(v));
      return;
    case DataType::Int64:
      storeRaw<int64_t>(p, doubleToInteger<int64_t>(v));
      return;
    case DataType::Half:
      storeRaw<uint16_t>(p, doubleToHalf(v));
      return;
    case DataType::BFloat16:
      storeRaw<uint16_t>(p, doubleToBfloat16(v));
      return;
    case DataType::Float:
      storeRaw<float>(p, static_cast<float>(v));
      return;
    case DataType::Double:
      storeRaw<double>(p, v);
      return;
  }
}

// Integers wrap to int32 (two's complement) as a C++ cast does.
inline void storeInt(void* p, DataType t, int64_t v) {
  switch (t) {
    case DataType::Bool:
      storeRaw<uint8_t>(p, v != 0 ? 1 : 0);
      return;
    case DataType::Int32:
      storeRaw<int32_t>(p, static_cast<int32_t>(v));
      return;
    case DataType::Int64:
      storeRaw<int64_t>(p, v);
      return;
    case DataType::Float:
      storeRaw<float>(p, static_cast<float>(v));
      return;
    default:
      storeDouble(p, t, static_cast<double>(v));
      return;
  }
}

// Copies one element between dtypes without passing integers through double.
inline void convertElement(const void* src, DataType src_type, void* dst, DataType dst_type) {
  if (src_type == dst_type) {
    switch (elementSize(src_type)) {
      case 1:
        storeRaw(dst, loadRaw<uint8_t>(src));
        return;
      case 2:
        storeRaw(dst, loadRaw<uint16_t>(src));
        return;
      case 4:
        storeRaw(dst, loadRaw<uint32_t>(src));
        return;
      default:
        storeRaw(dst, loadRaw<uint64_t>(src));
        return;
    }
  }
  if (isStoredAsInteger(src_type))
    storeInt(dst, dst_type, loadInt(src, src_type));
  else
    storeDouble(dst, dst_type, loadDouble(src, src_type));
}

}  // namespace fusebox::detail
