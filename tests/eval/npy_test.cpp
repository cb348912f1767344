// .npy reading and writing: round trips of every dtype, files written byte by
// byte here (as NumPy lays them out), and every error.
#include <fusebox/npy.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "eval/eval_test_util.h"
#include "support/hang_guard.h"

namespace fusebox {
namespace {

using test::makeTensor;
using ::testing::HasSubstr;

std::string tempPath(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / ("fusebox_npy_" + name)).string();
}

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A version-1.0 file: magic, version, little-endian header length, header, data.
std::string npyFile(const std::string& header, const std::string& data, char major = 1) {
  std::string out = std::string("\x93NUMPY", 6) + major + '\0';
  if (major == 1) {
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
  } else {
    for (int i = 0; i < 4; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  }
  return out + header + data;
}

template <class T>
std::string bytesOf(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return s;
}

TEST(Npy, RoundTripEveryDtype) {
  const std::vector<double> values = {0, 1, -2, 3.5, 1, 0};
  for (DataType t : kAllDataTypes) {
    SCOPED_TRACE(std::string(dtypeName(t)));
    Tensor src = makeTensor(t, {2, 3}, values);
    const std::string path = tempPath("roundtrip.npy");
    saveNpy(path, src);
    Tensor back = loadNpy(path);
    // NumPy has no bfloat16: it comes back as float32 with the same values.
    EXPECT_EQ(back.dtype(), t == DataType::BFloat16 ? DataType::Float : t);
    EXPECT_EQ(back.sizes(), src.sizes());
    EXPECT_EQ(back.toDoubles(), src.toDoubles());
  }
}

TEST(Npy, WritesVersion1HeaderAlignedTo64) {
  const std::string path = tempPath("header.npy");
  saveNpy(path, makeTensor(DataType::Int32, {3}, {7, 8, 9}));
  const std::string bytes = readBytes(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), std::string("\x93NUMPY", 6));
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  const size_t header_len =
      static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_THAT(header, HasSubstr("'descr': '<i4'"));
  EXPECT_THAT(header, HasSubstr("'fortran_order': False"));
  EXPECT_THAT(header, HasSubstr("'shape': (3,)"));  // a 1-tuple keeps its comma
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes.substr(10 + header_len), bytesOf<int32_t>({7, 8, 9}));
}

TEST(Npy, SavesStridedTensorsInLogicalOrder) {
  Tensor t = makeTensor(DataType::Double, {2, 3}, {0, 1, 2, 3, 4, 5});
  const std::string path = tempPath("strided.npy");
  saveNpy(path, t.asStrided({3, 2}, {1, 3}, 0));
  EXPECT_EQ(loadNpy(path).toDoubles(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  saveNpy(path, Tensor::scalar(DataType::Float, 4.5));
  Tensor s = loadNpy(path);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.getDouble({}), 4.5);
}

TEST(Npy, ReadsHandWrittenFile) {
  const std::string path = tempPath("hand.npy");
  // Double quotes, no trailing comma, odd spacing: NumPy never writes this, but
  // the header is a Python literal and should be read as one.
  writeBytes(path, npyFile("{\"shape\":(2,3),'fortran_order' : False,'descr':'<i4'}\n",
                           bytesOf<int32_t>({1, 2, 3, -4, 5, 6})));
  Tensor t = loadNpy(path);
  EXPECT_EQ(t.dtype(), DataType::Int32);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.toDoubles(), (std::vector<double>{1, 2, 3, -4, 5, 6}));
}

TEST(Npy, ReadsFortranOrderThroughStrides) {
  const std::string path = tempPath("fortran.npy");
  // Column-major [[1, 2, 3], [4, 5, 6]] is stored 1 4 2 5 3 6.
  writeBytes(path, npyFile("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }\n",
                           bytesOf<double>({1, 4, 2, 5, 3, 6})));
  Tensor t = loadNpy(path);
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(t.toDoubles(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(Npy, ReadsVersion2BoolAndHalf) {
  const std::string path = tempPath("v2.npy");
  writeBytes(path, npyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n",
                           std::string("\x01\x00\x01", 3), 2));
  EXPECT_EQ(loadNpy(path).toDoubles(), (std::vector<double>{1, 0, 1}));
  writeBytes(path, npyFile("{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }\n",
                           bytesOf<uint16_t>({0x3C00, 0xC000})));
  Tensor h = loadNpy(path);
  EXPECT_EQ(h.dtype(), DataType::Half);
  EXPECT_EQ(h.toDoubles(), (std::vector<double>{1, -2}));
  writeBytes(path, npyFile("{'descr': '<i8', 'fortran_order': False, 'shape': (), }\n",
                           bytesOf<int64_t>({-9})));
  Tensor s = loadNpy(path);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.getInt({}), -9);
}

TEST(Npy, Errors) {
  const std::string path = tempPath("bad.npy");
  const std::string good_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  EXPECT_USER_ERROR(loadNpy(tempPath("does_not_exist.npy")),
                    HasSubstr("does_not_exist.npy: cannot open"));

  EXPECT_USER_ERROR(loadNpy(::testing::TempDir()),
                    HasSubstr("the .npy file is a folder, not a regular file"));

  writeBytes(path, "PK\x03\x04 not numpy");
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr(path), HasSubstr("not a .npy file"),
                    HasSubstr("\\x93NUMPY"));

  writeBytes(path, npyFile(good_header, bytesOf<float>({1})));  // one float of two
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr(path), HasSubstr("truncated .npy data"),
                    HasSubstr("needs 8 bytes, the file has 4"));

  writeBytes(path, npyFile(good_header, "").substr(0, 20));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr("truncated .npy file: header"));

  writeBytes(path, std::string("\x93NUMPY", 6));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr("truncated .npy file: no version"));

  writeBytes(path, npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n",
                           std::string(8, '\0')));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr(path), HasSubstr("unsupported dtype '<c8'"),
                    HasSubstr("b1 (bool), i4, i8, f2, f4, f8"));

  writeBytes(path, npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }\n",
                           std::string(4, '\0')));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr("big-endian"), HasSubstr("expected '<' or '|'"));

  writeBytes(path, npyFile("{'descr': '<f4', 'shape': (1,), }\n", std::string(4, '\0')));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr("no 'fortran_order' key"));

  writeBytes(path, npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}\n", ""));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr("malformed .npy header"),
                    HasSubstr("expected a string, a tuple of ints, True or False"));

  writeBytes(path, npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)\n", ""));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr("malformed .npy header"), HasSubstr("'}'"));

  writeBytes(path, npyFile(good_header, bytesOf<float>({1, 2}), 9));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr("unsupported .npy format version 9.0"));

  EXPECT_USER_ERROR(saveNpy(tempPath("no_such_dir/x.npy"), Tensor::scalar(DataType::Float, 1)),
                    HasSubstr("cannot write the .npy file: No such file or directory"));
  EXPECT_USER_ERROR(saveNpy(path, Tensor()), HasSubstr("undefined tensor"));
}

TEST(Npy, TrailingBytesAreAnErrorNotIgnored) {
  const std::string path = tempPath("trailing.npy");
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  writeBytes(path, npyFile(header, bytesOf<float>({1, 2, 3})));  // a third float: garbage
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr(path),
                    HasSubstr("has 12 bytes after its header, but shape (2) of float needs 8"),
                    HasSubstr("trailing data"));
}

TEST(Npy, HeaderPromisingHugeDataIsRefusedBeforeAllocating) {
  const std::string path = tempPath("huge.npy");
  writeBytes(path, npyFile("{'descr': '<f8', 'fortran_order': False, "
                           "'shape': (1000000000, 1000000000), }\n",
                           bytesOf<double>({1})));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr("truncated .npy data"),
                    HasSubstr("needs 8000000000000000000 bytes, the file has 8"));
  writeBytes(path, npyFile("{'descr': '<f8', 'fortran_order': False, "
                           "'shape': (1000000000000, 1000000000000), }\n",
                           bytesOf<double>({1})));
  EXPECT_USER_ERROR(loadNpy(path), HasSubstr("shape (1000000000000, 1000000000000) of double: "
                                             "the number of bytes overflows int64"));
}

TEST(Npy, DevicesAndFifosAreRefusedNotReadForever) {
  fusebox::testing::HangGuard guard;
  const std::string link = tempPath("zero_link.npy");
  std::filesystem::remove(link);
  std::filesystem::create_symlink("/dev/zero", link);
  EXPECT_USER_ERROR(loadNpy(link), HasSubstr(link + ": the .npy file is a character device"));
  const std::string fifo = tempPath("fifo.npy");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_USER_ERROR(loadNpy(fifo), HasSubstr("the .npy file is a named pipe (FIFO)"));
}

}  // namespace
}  // namespace fusebox
