//===- TensorTest.cpp -----------------------------------------------------===//
#include "txc/Interp/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace txc;

namespace {

TEST(Tensor, ZeroFilledWithShapeAndSize) {
  Tensor t(DType::F32, {2, 3});
  EXPECT_EQ(t.rank(), 2u);
  EXPECT_EQ(t.numElements(), 6);
  EXPECT_EQ(t.sizeBytes(), 24);
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(t.getDouble(i), 0.0);
  EXPECT_EQ(t.typeString(), "f32[2,3]");
}

TEST(Tensor, EmptyAndScalarTensorsHaveData) {
  Tensor empty(DType::I64, {0, 5});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_EQ(empty.sizeBytes(), 0);
  EXPECT_NE(empty.data(), nullptr); // passes the ABI's data-pointer guard
  Tensor scalar(DType::F64, {});
  EXPECT_EQ(scalar.numElements(), 1);
  EXPECT_EQ(scalar.sizeBytes(), 8);
}

TEST(Tensor, CreateRejectsBadShapes) {
  EXPECT_FALSE(bool(Tensor::create(DType::F32, {2, -1})));
  EXPECT_FALSE(
      bool(Tensor::create(DType::F32, {int64_t(1) << 40, int64_t(1) << 40})));
  // Element count fits, bytes overflow.
  EXPECT_FALSE(bool(Tensor::create(DType::F64, {int64_t(1) << 61})));
  EXPECT_FALSE(bool(Tensor::create(DType::F32, {1, 1, 1, 1, 1, 1, 1, 1, 1})));
  EXPECT_FALSE(bool(Tensor::create(DType::F32, {100}, /*maxBytes=*/399)));
  auto ok = Tensor::create(DType::F32, {100}, /*maxBytes=*/400);
  ASSERT_TRUE(bool(ok));
  EXPECT_EQ(ok->sizeBytes(), 400);
  llvm::consumeError(Tensor::create(DType::F32, {-3}).takeError());
}

TEST(Tensor, IntegersWrapToTheirWidth) {
  Tensor i8(DType::I8, {3});
  i8.setInt64(0, 127 + 1);
  i8.setInt64(1, -129);
  i8.setInt64(2, 0x1234);
  EXPECT_EQ(i8.getInt64(0), -128);
  EXPECT_EQ(i8.getInt64(1), 127);
  EXPECT_EQ(i8.getInt64(2), 0x34);
  Tensor u8(DType::U8, {2});
  u8.setInt64(0, -1);
  u8.setInt64(1, 256);
  EXPECT_EQ(u8.getInt64(0), 255);
  EXPECT_EQ(u8.getInt64(1), 0);
  Tensor i16(DType::I16, {1});
  i16.setInt64(0, 40000);
  EXPECT_EQ(i16.getInt64(0), 40000 - 65536);
  Tensor i32(DType::I32, {1});
  i32.setInt64(0, int64_t(1) << 31);
  EXPECT_EQ(i32.getInt64(0), std::numeric_limits<int32_t>::min());
  Tensor i64(DType::I64, {1});
  i64.setInt64(0, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(i64.getInt64(0), std::numeric_limits<int64_t>::min());
}

TEST(Tensor, DoublesConvertPerDType) {
  Tensor f16(DType::F16, {2});
  f16.setDouble(0, 1.0 / 3.0);
  EXPECT_EQ(f16.load<uint16_t>(0), 0x3555); // 0.333251953125
  EXPECT_EQ(f16.getDouble(0), 0.333251953125);
  f16.setDouble(1, 1e6);
  EXPECT_TRUE(std::isinf(f16.getDouble(1)));
  Tensor bf16(DType::BF16, {1});
  bf16.setDouble(0, 1.0 / 3.0);
  EXPECT_EQ(bf16.load<uint16_t>(0), 0x3EAB);
  Tensor f32(DType::F32, {1});
  f32.setDouble(0, 0.1);
  EXPECT_EQ(f32.load<float>(0), 0.1f);
  Tensor i32(DType::I32, {4});
  i32.setDouble(0, -2.9);
  i32.setDouble(1, NAN);
  i32.setDouble(2, 1e300);
  i32.setDouble(3, 2.5);
  EXPECT_EQ(i32.getInt64(0), -2); // truncated toward zero
  EXPECT_EQ(i32.getInt64(1), 0);
  EXPECT_EQ(i32.getInt64(2), -1); // INT64_MAX wrapped to 32 bits
  EXPECT_EQ(i32.getInt64(3), 2);
  Tensor b(DType::Bool, {3});
  b.setDouble(0, 0.0);
  b.setDouble(1, -0.5);
  b.setInt64(2, 7);
  EXPECT_EQ(b.load<uint8_t>(0), 0);
  EXPECT_EQ(b.load<uint8_t>(1), 1);
  EXPECT_EQ(b.load<uint8_t>(2), 1); // bool is one byte 0 or 1
  Tensor f(DType::F64, {3});
  f.setDouble(0, -7.75);
  f.setDouble(1, NAN);
  f.setDouble(2, 1e300);
  EXPECT_EQ(f.getInt64(0), -7);
  EXPECT_EQ(f.getInt64(1), 0);
  EXPECT_EQ(f.getInt64(2), std::numeric_limits<int64_t>::max());
}

TEST(Tensor, IdenticalComparesTypeAndBytes) {
  Tensor a(DType::F32, {2}), b(DType::F32, {2}), c(DType::I32, {2});
  EXPECT_TRUE(a.identical(b));
  EXPECT_FALSE(a.identical(c));
  b.setDouble(1, -0.0);
  EXPECT_FALSE(a.identical(b)); // -0 and +0 differ in bytes
  EXPECT_FALSE(a.identical(Tensor(DType::F32, {1, 2})));
}

} // namespace
