// NumPy .npy reading and writing. The header is a Python dict literal
// ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }); it is read by a
// small tolerant parser rather than a JSON library, since it is not JSON.
#include <fusebox/checked_math.h>
#include <fusebox/error.h>
#include <fusebox/npy.h>

#include <fmt/format.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <variant>

#include "file_access.h"

namespace fusebox {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

// A value of the header dict: a string, a bool or a tuple of ints.
using HeaderValue = std::variant<std::string, bool, std::vector<int64_t>>;

class HeaderParser {
 public:
  HeaderParser(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  std::map<std::string, HeaderValue> parseDict() {
    std::map<std::string, HeaderValue> dict;
    expect('{');
    skipSpace();
    while (peek() != '}') {
      std::string key = parseString();
      expect(':');
      dict[key] = parseValue();
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        skipSpace();
      } else if (peek() != '}') {
        fail("',' or '}'");
      }
    }
    ++pos_;
    return dict;
  }

 private:
  [[noreturn]] void fail(std::string_view expected) {
    std::string got = pos_ < text_.size() ? fmt::format("'{}'", text_.substr(pos_, 12)) : "end";
    throw UserError(fmt::format("{}: malformed .npy header at character {}: expected {}, got {}",
                                path_, pos_, expected, got));
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  void expect(char c) {
    if (peek() != c) fail(fmt::format("'{}'", c));
    ++pos_;
  }
  std::string parseString() {
    char quote = peek();
    if (quote != '\'' && quote != '"') fail("a quoted string");
    ++pos_;
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) fail("a closing quote");
    std::string s(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  int64_t parseInt() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    // Python 2 era writers appended L to longs.
    std::string digits(text_.substr(start, pos_ - start));
    if (digits.empty()) fail("a non-negative integer");
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;
    try {
      return std::stoll(digits);
    } catch (const std::exception&) {
      fail("an integer that fits in int64");
    }
  }
  HeaderValue parseValue() {
    char c = peek();
    if (c == '\'' || c == '"') return parseString();
    if (c == '(' || c == '[') {
      char close = c == '(' ? ')' : ']';
      ++pos_;
      std::vector<int64_t> dims;
      while (peek() != close) {
        dims.push_back(parseInt());
        if (peek() == ',')
          ++pos_;
        else if (peek() != close)
          fail(fmt::format("',' or '{}'", close));
      }
      ++pos_;
      return dims;
    }
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      size_t n = std::strlen(word);
      if (text_.substr(pos_, n) == word) {
        pos_ += n;
        return value;
      }
    }
    fail("a string, a tuple of ints, True or False");
  }

  const std::string& path_;
  std::string_view text_;
  size_t pos_ = 0;
};

struct NpyType {
  const char* code;  // descr without the byte-order character
  DataType dtype;
};
constexpr NpyType kNpyTypes[] = {
    {"b1", DataType::Bool}, {"i4", DataType::Int32}, {"i8", DataType::Int64},
    {"f2", DataType::Half}, {"f4", DataType::Float}, {"f8", DataType::Double},
};

DataType parseDescr(const std::string& path, const std::string& descr) {
  std::string_view code = descr;
  char order = code.empty() ? '\0' : code[0];
  if (order == '<' || order == '|' || order == '=' || order == '>') code.remove_prefix(1);
  if (code == "?") code = "b1";  // NumPy's character code for bool
  FUSEBOX_USER_CHECK(order != '>' || code == "b1",
                     "{}: big-endian data (descr '{}') is not supported; expected '<' or '|' "
                     "byte order (save it with arr.astype(arr.dtype.newbyteorder('<')))",
                     path, descr);
  for (const auto& t : kNpyTypes)
    if (code == t.code) return t.dtype;
  throw UserError(fmt::format(
      "{}: unsupported dtype '{}'; expected one of b1 (bool), i4, i8, f2, f4, f8", path, descr));
}

const char* descrFor(DataType t) {
  switch (t) {
    case DataType::Bool:
      return "|b1";
    case DataType::Int32:
      return "<i4";
    case DataType::Int64:
      return "<i8";
    case DataType::Half:
      return "<f2";
    case DataType::Float:
    case DataType::BFloat16:
      return "<f4";  // NumPy has no bfloat16
    case DataType::Double:
      return "<f8";
  }
  return "";
}

// Bytes of an array of this shape and dtype; nullopt when that overflows.
uint32_t readLittleEndian(const unsigned char* p, int nbytes) {
  uint32_t v = 0;
  for (int i = nbytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

Tensor loadNpy(const std::string& path) {
  ReadableFile file(path, "the .npy file");
  const uint64_t file_size = file.size();
  // Magic, version and header length (2 bytes in version 1, 4 after).
  unsigned char u[kMagicLen + 2 + 4] = {};
  FUSEBOX_USER_CHECK(file.read(u, kMagicLen) == kMagicLen && std::memcmp(u, kMagic, kMagicLen) == 0,
                     "{}: not a .npy file: expected it to start with \\x93NUMPY", path);
  FUSEBOX_USER_CHECK(file.read(u + kMagicLen, 2) == 2, "{}: truncated .npy file: no version", path);
  const int major = u[6], minor = u[7];
  FUSEBOX_USER_CHECK(major >= 1 && major <= 3,
                     "{}: unsupported .npy format version {}.{}; expected 1.0, 2.0 or 3.0", path,
                     major, minor);
  const int len_bytes = major == 1 ? 2 : 4;
  const size_t prelude = kMagicLen + 2 + len_bytes;
  FUSEBOX_USER_CHECK(file.read(u + 8, len_bytes) == static_cast<size_t>(len_bytes),
                     "{}: truncated .npy file: no header length", path);
  const size_t header_len = readLittleEndian(u + 8, len_bytes);
  FUSEBOX_USER_CHECK(file_size >= prelude + header_len,
                     "{}: truncated .npy file: header of {} bytes, but the file has {} bytes", path,
                     header_len, file_size);
  std::string header_text(header_len, '\0');
  FUSEBOX_USER_CHECK(file.read(header_text.data(), header_len) == header_len,
                     "{}: truncated .npy file: the file ended inside its header", path);

  auto dict = HeaderParser(path, header_text).parseDict();
  auto field = [&](const char* key) -> const HeaderValue& {
    auto it = dict.find(key);
    FUSEBOX_USER_CHECK(it != dict.end(), "{}: .npy header has no '{}' key", path, key);
    return it->second;
  };
  const auto* descr = std::get_if<std::string>(&field("descr"));
  FUSEBOX_USER_CHECK(descr, "{}: .npy header 'descr' must be a string like '<f4'", path);
  const auto* fortran = std::get_if<bool>(&field("fortran_order"));
  FUSEBOX_USER_CHECK(fortran, "{}: .npy header 'fortran_order' must be True or False", path);
  const auto* shape = std::get_if<std::vector<int64_t>>(&field("shape"));
  FUSEBOX_USER_CHECK(shape, "{}: .npy header 'shape' must be a tuple of ints", path);
  const DataType dtype = parseDescr(path, *descr);

  // The data must fill the rest of the file exactly: checked before anything
  // is allocated, so a header promising terabytes costs nothing.
  const std::vector<int64_t>& sizes = *shape;
  const uint64_t have = file_size - prelude - header_len;
  const std::optional<int64_t> need =
      checked::mul(checked::product(sizes), std::optional<int64_t>(dataTypeSize(dtype)));
  FUSEBOX_USER_CHECK(need.has_value(),
                     "{}: .npy header shape ({}) of {}: the number of bytes overflows int64", path,
                     fmt::join(sizes, ", "), dtypeName(dtype));
  FUSEBOX_USER_CHECK(static_cast<uint64_t>(*need) <= have,
                     "{}: truncated .npy data: shape ({}) of {} needs {} bytes, the file has {}",
                     path, fmt::join(sizes, ", "), dtypeName(dtype), *need, have);
  FUSEBOX_USER_CHECK(static_cast<uint64_t>(*need) == have,
                     "{}: the .npy file has {} bytes after its header, but shape ({}) of {} needs "
                     "{}: trailing data that is not part of the array",
                     path, have, fmt::join(sizes, ", "), dtypeName(dtype), *need);
  std::vector<int64_t> strides;
  if (*fortran) {
    // Column-major: the first dim is innermost.
    std::vector<int64_t> order(sizes.size());
    for (size_t d = 0; d < sizes.size(); ++d) order[d] = static_cast<int64_t>(d);
    strides = stridesForOrder(sizes, order);
  } else {
    strides = contiguousStrides(sizes);
  }
  Tensor t = Tensor::emptyStrided(dtype, sizes, strides);
  const size_t data_bytes = static_cast<size_t>(*need);
  FUSEBOX_USER_CHECK(data_bytes == 0 || file.read(t.data(), data_bytes) == data_bytes,
                     "{}: truncated .npy data: the file ended early (was it changed while read?)",
                     path);
  if (dtype == DataType::Bool) {
    // NumPy bools are 0/1 bytes; normalize anything else so reads stay 0/1.
    auto* p = static_cast<unsigned char*>(t.data());
    for (size_t i = 0; i < data_bytes; ++i) p[i] = p[i] != 0;
  }
  return t;
}

void saveNpy(const std::string& path, const Tensor& tensor) {
  FUSEBOX_USER_CHECK(tensor.defined(), "{}: cannot save an undefined tensor", path);
  FUSEBOX_USER_CHECK(tensor.device() == Device::Host, "{}: cannot save device tensor {}", path,
                     tensor.describe());
  Tensor dense;
  if (tensor.dtype() == DataType::BFloat16) {
    dense = Tensor::empty(DataType::Float, tensor.sizes());
    copyInto(tensor, dense);
  } else {
    dense = tensor.contiguous();
  }
  std::string shape;
  for (int64_t s : dense.sizes()) shape += fmt::format("{}, ", s);
  if (dense.dim() > 1) shape.resize(shape.size() - 2);  // (3,) keeps its comma, (2, 3) does not
  if (dense.dim() == 1) shape.pop_back();
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                   descrFor(dense.dtype()), shape);
  // Pad with spaces and end with a newline so the data starts 64-byte aligned.
  size_t total = kMagicLen + 2 + 2 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const bool v2 = header.size() > 65535;
  if (v2) {
    total = kMagicLen + 2 + 4 + header.size();
    header.insert(header.size() - 1, (64 - total % 64) % 64, ' ');
  }

  WritableFile out(path, "the .npy file");
  out.write(kMagic, kMagicLen);
  const unsigned char version[2] = {static_cast<unsigned char>(v2 ? 2 : 1), 0};
  out.write(version, 2);
  const uint32_t len = static_cast<uint32_t>(header.size());
  unsigned char len_bytes[4] = {static_cast<unsigned char>(len & 0xff),
                                static_cast<unsigned char>((len >> 8) & 0xff),
                                static_cast<unsigned char>((len >> 16) & 0xff),
                                static_cast<unsigned char>((len >> 24) & 0xff)};
  out.write(len_bytes, v2 ? 4 : 2);
  out.write(header.data(), header.size());
  out.write(dense.data(), static_cast<size_t>(dense.numel() * dense.elementSize()));
  out.close();
}

}  // namespace fusebox
