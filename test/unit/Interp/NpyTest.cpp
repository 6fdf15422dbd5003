//===- NpyTest.cpp - .npy round trips and malformed files -----------------===//
#include "txc/Interp/Npy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

using namespace txc;

namespace {

llvm::ArrayRef<uint8_t> asBytes(const std::string &text) {
  return {reinterpret_cast<const uint8_t *>(text.data()), text.size()};
}

/// A file with a hand-written header (padded like numpy's) and data.
std::string npyFile(const std::string &dict, const std::string &data,
                    int major = 1) {
  std::string header = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(major);
  out += char(0);
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += char((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string errorOf(const std::string &file) {
  auto tensor = parseNpy(asBytes(file), "t.npy");
  if (tensor)
    return "";
  return llvm::toString(tensor.takeError());
}

TEST(Npy, RoundTripsEveryDType) {
  std::mt19937 rng(1);
  for (DType dtype : kAllDTypes) {
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{}, {0}, {5}, {2, 3}, {2, 1, 3, 2}}) {
      Tensor tensor(dtype, shape);
      for (int64_t i = 0; i < tensor.numElements(); ++i)
        tensor.setInt64(i, int64_t(rng() % 200) - 100);
      std::string file = writeNpy(tensor);
      // numpy's layout: the data starts at a multiple of 64.
      EXPECT_EQ((file.size() - tensor.sizeBytes()) % 64, 0u);
      auto back = parseNpy(asBytes(file), "t.npy");
      ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
      // bf16 is written as its bits, <u2, which reads as u16 (bf16 again
      // where bf16 is declared: readNpyFileAs).
      if (dtype == DType::BF16) {
        EXPECT_EQ(back->dtype(), DType::U16);
        back->reinterpret(DType::BF16);
      }
      EXPECT_TRUE(back->identical(tensor)) << tensor.typeString();
    }
  }
}

TEST(Npy, WritesNumpyHeaders) {
  Tensor t(DType::F32, {3});
  std::string file = writeNpy(t);
  EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(file.find("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (3,), }"),
            std::string::npos);
  EXPECT_NE(writeNpy(Tensor(DType::Bool, {2, 2})).find("'|b1'"),
            std::string::npos);
  EXPECT_NE(writeNpy(Tensor(DType::BF16, {})).find("'<u2'"), std::string::npos);
  EXPECT_NE(writeNpy(Tensor(DType::I8, {1, 2})).find("'shape': (1, 2)"),
            std::string::npos);
  EXPECT_NE(writeNpy(Tensor(DType::U8, {})).find("'shape': ()"),
            std::string::npos);
  EXPECT_NE(writeNpy(Tensor(DType::U16, {1})).find("'<u2'"), std::string::npos);
  EXPECT_NE(writeNpy(Tensor(DType::U32, {1})).find("'<u4'"), std::string::npos);
  EXPECT_NE(writeNpy(Tensor(DType::U64, {1})).find("'<u8'"), std::string::npos);
}

TEST(Npy, ReadsUnsignedDTypes) {
  // 0xFFFF..., then 2^(width-1): values a signed reading gets wrong.
  for (auto [descr, dtype, size] :
       {std::tuple<const char *, DType, int>{"<u2", DType::U16, 2},
        {"<u4", DType::U32, 4},
        {"<u8", DType::U64, 8}}) {
    SCOPED_TRACE(descr);
    std::string data(2 * size, '\xff');
    std::fill(data.begin() + size, data.end() - 1, '\0');
    data.back() = '\x80';
    auto t = parseNpy(asBytes(npyFile(std::string("{'descr': '") + descr +
                                          "', 'fortran_order': False, "
                                          "'shape': (2,), }",
                                      data)),
                      "t.npy");
    ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
    EXPECT_EQ(t->dtype(), dtype);
    EXPECT_EQ(t->getDouble(0), std::ldexp(1.0, 8 * size) - 1);
    EXPECT_EQ(t->getDouble(1), std::ldexp(1.0, 8 * size - 1));
    // What txc writes it reads back the same.
    std::string again = writeNpy(*t);
    auto back = parseNpy(asBytes(again), "again.npy");
    ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
    EXPECT_TRUE(back->identical(*t));
  }
}

TEST(Npy, U2FilesHoldBF16WhereBF16IsDeclared) {
  EXPECT_TRUE(npyHolds(DType::U16, DType::BF16));
  EXPECT_TRUE(npyHolds(DType::U16, DType::U16));
  EXPECT_FALSE(npyHolds(DType::U16, DType::F16));
  EXPECT_FALSE(npyHolds(DType::U16, DType::I16));
  EXPECT_FALSE(npyHolds(DType::BF16, DType::U16));
  EXPECT_EQ(npyDescr(DType::BF16), "<u2");
  EXPECT_EQ(npyDescr(DType::U16), "<u2");
  Tensor t(DType::U16, {1});
  t.store<uint16_t>(0, 0x3F80); // 1.0 in bf16
  t.reinterpret(DType::BF16);
  EXPECT_EQ(t.dtype(), DType::BF16);
  EXPECT_EQ(t.getDouble(0), 1.0);
}

TEST(Npy, ReadsVersions2And3AndHeaderVariants) {
  std::string data(8, '\0');
  data[0] = 1;
  for (int major : {1, 2, 3}) {
    auto t = parseNpy(asBytes(npyFile("{'descr': '<i4', 'fortran_order': "
                                      "False, 'shape': (2,), }",
                                      data, major)),
                      "t.npy");
    ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
    EXPECT_EQ(t->dtype(), DType::I32);
    EXPECT_EQ(t->getInt64(0), 1);
  }
  // Key order, double quotes, no trailing comma, Python 2 longs.
  auto t = parseNpy(asBytes(npyFile("{\"shape\": (2L,1L), \"fortran_order\": "
                                    "False, \"descr\": \"<u2\"}",
                                    std::string(4, '\0'))),
                    "t.npy");
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  EXPECT_EQ(t->dtype(), DType::U16); // bf16 bits only where bf16 is declared
  EXPECT_EQ(t->shape(), llvm::ArrayRef<int64_t>({2, 1}));
  auto one = parseNpy(asBytes(npyFile("{'descr': '<i1', 'fortran_order': "
                                      "False, 'shape': (1,), }",
                                      std::string(1, '\xff'))),
                      "t.npy");
  ASSERT_TRUE(bool(one)) << llvm::toString(one.takeError());
  EXPECT_EQ(one->getInt64(0), -1);
}

TEST(Npy, RejectsMalformedFiles) {
  const std::string good = "{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (2,), }";
  std::string data(8, '\0');
  struct Case {
    std::string file;
    std::string error;
  };
  std::string truncatedLength = npyFile(good, data);
  truncatedLength[8] = char(0xFF); // header length 0x..FF past the end
  truncatedLength[9] = char(0x7F);
  std::string badVersion = npyFile(good, data);
  badVersion[6] = 4;
  const Case cases[] = {
      {"", "not a .npy file"},
      {"\x93NUMPX\x01\x00", "not a .npy file"},
      {std::string("\x93NUMPY\x01\x00", 8), "no header length"},
      {badVersion, "unsupported .npy version 4.0"},
      {truncatedLength, "truncated .npy file: the header says"},
      {npyFile(good, data.substr(0, 7)),
       "need 8 data bytes, but the file has 7"},
      {npyFile(good, data + "x"), "need 8 data bytes, but the file has 9"},
      {npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }",
               data),
       "fortran_order is True"},
      {npyFile("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
               data),
       "big-endian"},
      {npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
               data),
       "unsupported .npy dtype '<c8'"},
      {npyFile("{'descr': [('a', '<f4')], 'fortran_order': False, "
               "'shape': (2,), }",
               data),
       "structured dtypes"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }",
               data),
       "not a non-negative integer"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (99999999999999999999,), }",
               data),
       "not a non-negative integer"},
      // Absurd shapes: the element count or byte size overflows, or the
      // data would need far more bytes than the file has.
      {npyFile("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (4294967296, 4294967296, 4294967296), }",
               data),
       "has more elements than any file can hold"},
      {npyFile("{'descr': '<f8', 'fortran_order': False, "
               "'shape': (2305843009213693952,), }",
               data),
       "has more elements than any file can hold"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (1000000000,), }",
               data),
       "need 4000000000 data bytes, but the file has 8"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (1,1,1,1,1,1,1,1,1), }",
               std::string(4, '\0')),
       "rank 9 is over the limit of 8"},
      {npyFile("{'descr': '<f4', 'fortran_order': False}", data),
       "must have the keys"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
               "'extra': 1}",
               data),
       "unexpected or repeated key 'extra'"},
      {npyFile("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
               "'shape': (2,)}",
               data),
       "unexpected or repeated key 'descr'"},
      {npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", data),
       "not True or False"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", data),
       "not a tuple"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
               data),
       "expected ',' or ')'"},
      {npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
               data),
       "unexpected text after the dict"},
      {npyFile("{'descr: '<f4'}", data), "expected ':'"},
      {npyFile("['descr']", data), "not a dict literal"},
      {npyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
               std::string("\x01\x02", 2)),
       "bool element 1 is the byte 2"},
  };
  for (const Case &c : cases) {
    std::string error = errorOf(c.file);
    EXPECT_NE(error.find(c.error), std::string::npos)
        << "expected '" << c.error << "', got '" << error << "'";
    if (!error.empty()) {
      EXPECT_EQ(error.rfind("'t.npy': ", 0), 0u) << error;
    }
  }
}

// Every prefix of a valid file and random corruptions of its header are
// rejected or read without crashing (run under the sanitizers in CI-like
// builds to catch reads out of bounds).
TEST(Npy, SurvivesTruncationAndCorruption) {
  Tensor t(DType::I16, {3, 2});
  std::string file = writeNpy(t);
  for (size_t n = 0; n < file.size(); ++n)
    EXPECT_FALSE(errorOf(file.substr(0, n)).empty()) << n;
  std::mt19937 rng(3);
  for (int i = 0; i < 20000; ++i) {
    std::string bad = file;
    size_t at = 6 + rng() % (file.size() - 6 - t.sizeBytes());
    bad[at] = char(rng());
    (void)errorOf(bad);
  }
}

TEST(Npy, ReadsEmptyArraysWithHugeDims) {
  auto t = parseNpy(asBytes(npyFile("{'descr': '<f4', 'fortran_order': False, "
                                    "'shape': (0, 9223372036854775807), }",
                                    "")),
                    "t.npy");
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  EXPECT_EQ(t->numElements(), 0);
  EXPECT_EQ(t->shape()[1], INT64_MAX);
}

TEST(Npy, ReadFileReportsMissingFiles) {
  auto t = readNpyFile("/nonexistent/dir/x.npy");
  ASSERT_FALSE(bool(t));
  EXPECT_NE(llvm::toString(t.takeError())
                .find("cannot read "
                      "'/nonexistent/dir/x.npy'"),
            std::string::npos);
}

} // namespace
