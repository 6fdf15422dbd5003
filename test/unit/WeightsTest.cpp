//===- WeightsTest.cpp ----------------------------------------------------===//
//
// Weights files: the path policy of resolveWeightsPath, the checks of
// WeightsFile::open on .safetensors files, and how planWeights stores
// constants (deduplication, the blob layout and its fingerprint).
//
//===----------------------------------------------------------------------===//
#include "txc/Frontend/WeightsFile.h"
#include "txc/Target/Weights.h"

#include "TempDir.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace txc;

namespace {

using test::TempDir;

/// A .safetensors file with the given header and `dataBytes` zero bytes.
std::string safetensors(llvm::StringRef header, size_t dataBytes) {
  std::string out;
  uint64_t length = header.size();
  for (unsigned i = 0; i < 8; ++i)
    out += char((length >> (8 * i)) & 0xFF);
  out += header.str();
  out.append(dataBytes, '\0');
  return out;
}

/// The WeightsFileError of `err` as "category id: message".
std::string describe(llvm::Error err) {
  std::string result;
  llvm::handleAllErrors(std::move(err), [&](const WeightsFileError &e) {
    result = std::to_string(int(e.category)) + " " + e.id + ": " + e.message;
  });
  return result;
}

TEST(WeightsPath, InsideTheProgramsDirectory) {
  TempDir dir;
  dir.write("w.npy", "");
  ASSERT_FALSE(llvm::sys::fs::create_directory(dir.file("sub")));
  std::string program = dir.file("p.json");
  auto plain = resolveWeightsPath(program, "w.npy", {});
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  EXPECT_EQ(*plain, dir.file("w.npy"));
  // `..` that stays inside is resolved lexically.
  auto dotted = resolveWeightsPath(program, "sub/../w.npy", {});
  ASSERT_TRUE(bool(dotted)) << llvm::toString(dotted.takeError());
  EXPECT_EQ(*dotted, dir.file("w.npy"));
}

TEST(WeightsPath, OutsideIsRejectedUnlessAllowed) {
  TempDir dir;
  dir.write("w.npy", "");
  ASSERT_FALSE(llvm::sys::fs::create_directory(dir.file("sub")));
  std::string program = dir.file("sub/p.json");
  std::string expected = std::to_string(int(DiagCategory::Invalid)) +
                         " weights-path: weights file '../w.npy' leaves the "
                         "program's directory";
  EXPECT_EQ(describe(resolveWeightsPath(program, "../w.npy", {}).takeError())
                .substr(0, expected.size()),
            expected);
  EXPECT_NE(describe(resolveWeightsPath(program, dir.file("w.npy"), {})
                         .takeError())
                .find("is an absolute path"),
            std::string::npos);
  // Allowed: the real path is inside an --allow-weights-outside directory.
  std::vector<std::string> allowed = {std::string(dir.path)};
  auto up = resolveWeightsPath(program, "../w.npy", allowed);
  ASSERT_TRUE(bool(up)) << llvm::toString(up.takeError());
  llvm::SmallString<256> real;
  ASSERT_FALSE(llvm::sys::fs::real_path(dir.file("w.npy"), real));
  EXPECT_EQ(*up, std::string(real));
  // A directory that does not hold the file allows nothing.
  std::vector<std::string> other = {dir.file("sub")};
  EXPECT_NE(describe(resolveWeightsPath(program, "../w.npy", other)
                         .takeError())
                .find("is not inside a directory of --allow-weights-outside"),
            std::string::npos);
}

TEST(WeightsPath, SymbolicLinksAreRejected) {
  TempDir dir;
  dir.write("w.npy", "");
  ASSERT_FALSE(llvm::sys::fs::create_link(dir.file("w.npy"),
                                          dir.file("alias.npy")));
  auto linked = resolveWeightsPath(dir.file("p.json"), "alias.npy", {});
  EXPECT_NE(describe(linked.takeError())
                .find("goes through the symbolic link 'alias.npy'"),
            std::string::npos);
}

TEST(WeightsFile, SafetensorsChecks) {
  TempDir dir;
  auto open = [&](llvm::StringRef header, size_t dataBytes) {
    dir.write("w.safetensors", safetensors(header, dataBytes));
    return WeightsFile::open(dir.file("w.safetensors"), "w.safetensors",
                             WeightsFile::Format::Safetensors);
  };
  auto good =
      open(R"({"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
           R"("b":{"dtype":"U16","shape":[4],"data_offsets":[24,32]},)"
           R"("f8":{"dtype":"F8_E5M2","shape":[2],"data_offsets":[32,34]},)"
           R"("__metadata__":{"k":"v"}})",
           34);
  ASSERT_TRUE(bool(good)) << llvm::toString(good.takeError());
  const WeightsFile::Entry *a = (*good)->find("a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->dtype, DType::F32);
  EXPECT_EQ(a->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a->size, 24u);
  const WeightsFile::Entry *b = (*good)->find("b");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->dtype, DType::U16);
  EXPECT_EQ((*good)->bytes(*b).size, 8u);
  const WeightsFile::Entry *f8 = (*good)->find("f8");
  ASSERT_TRUE(f8);
  EXPECT_FALSE(f8->dtype.has_value()); // valid in the file, not a txc dtype
  EXPECT_EQ((*good)->find("c"), nullptr);

  auto problem = [&](llvm::StringRef header, size_t dataBytes) {
    auto file = open(header, dataBytes);
    return file ? std::string("opened") : describe(file.takeError());
  };
  EXPECT_NE(problem(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})",
                    4)
                .find("past the end of the data (4 bytes)"),
            std::string::npos);
  EXPECT_NE(problem(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})",
                    4)
                .find("which need 8 bytes"),
            std::string::npos);
  EXPECT_NE(problem(R"({"a":{"dtype":"X","shape":[1],"data_offsets":[0,1]}})",
                    1)
                .find("unknown dtype 'X'"),
            std::string::npos);
  EXPECT_NE(problem(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                    R"("b":{"dtype":"U8","shape":[2],"data_offsets":[3,5]}})",
                    5)
                .find("overlap"),
            std::string::npos);
  EXPECT_NE(problem(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                    R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                    2)
                .find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(problem(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,0]}})",
                    2)
                .find("ends before it begins"),
            std::string::npos);
  // Empty tensors overlap nothing.
  EXPECT_EQ(problem(R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[1,1]},)"
                    R"("b":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})",
                    2),
            "opened");
}

ConstantDecl storedConstant(const std::string &name,
                            std::vector<uint8_t> bytes, bool fromFile) {
  ConstantDecl constant;
  constant.name = name;
  constant.type.dtype = DType::U8;
  constant.type.shape = {ShapeExpr::constant(int64_t(bytes.size()))};
  constant.data = Blob::fromVector(std::move(bytes));
  if (fromFile)
    constant.file = "w.npy";
  return constant;
}

TEST(WeightsPlan, EqualBytesAreStoredOnce) {
  Program program;
  program.constants.push_back(storedConstant("a", {1, 2, 3}, true));
  program.constants.push_back(storedConstant("b", {1, 2, 3}, true));
  program.constants.push_back(storedConstant("c", {4, 5}, true));
  program.constants.push_back(storedConstant("small", {1, 2, 3}, false));
  WeightsPlan plan = planWeights(program, "p", WeightsMode::Embedded);
  ASSERT_EQ(plan.blobs.size(), 2u);
  EXPECT_EQ(plan.constants[0].blob, 0);
  EXPECT_EQ(plan.constants[1].blob, 0);
  EXPECT_EQ(plan.constants[2].blob, 1);
  EXPECT_EQ(plan.constants[3].storage, ConstantStorage::Code);
  EXPECT_EQ(plan.constants[3].sha256, plan.constants[0].sha256);
  EXPECT_EQ(plan.blobs[0].symbol, "__txc_p_weights_0");
  EXPECT_EQ(plan.storedBytes(), 5u);
  EXPECT_EQ(plan.storedConstants(), (std::vector<size_t>{0, 1, 2}));
}

TEST(WeightsPlan, ExternalBlobLayout) {
  Program program;
  program.constants.push_back(storedConstant("a", {1, 2, 3}, true));
  program.constants.push_back(storedConstant("c", {4, 5}, true));
  WeightsPlan plan = planWeights(program, "p", WeightsMode::External);
  EXPECT_EQ(plan.blobs[0].offset, 64u);
  EXPECT_EQ(plan.blobs[1].offset, 128u);
  EXPECT_EQ(plan.blobFileBytes, 130u);
  std::string blob;
  llvm::raw_string_ostream os(blob);
  ASSERT_FALSE(bool(plan.writeBlob(os)));
  os.flush();
  ASSERT_EQ(blob.size(), 130u);
  EXPECT_EQ(blob.substr(0, 8), std::string("TXCWGTS\0", 8));
  EXPECT_EQ(blob.substr(64, 3), "\x01\x02\x03");
  EXPECT_EQ(blob.substr(67, 61), std::string(61, '\0'));
  EXPECT_EQ(blob.substr(128), "\x04\x05");
  EXPECT_EQ(Sha256::toHex(Sha256::hash(llvm::ArrayRef<uint8_t>(
                reinterpret_cast<const uint8_t *>(blob.data()), blob.size()))),
            Sha256::toHex(plan.blobFileSha256));
  uint64_t fingerprint = 0;
  std::memcpy(&fingerprint, blob.data() + 24, 8);
  EXPECT_EQ(fingerprint, plan.fingerprint);

  // Other bytes with the same layout give another fingerprint.
  Program other;
  other.constants.push_back(storedConstant("a", {1, 2, 9}, true));
  other.constants.push_back(storedConstant("c", {4, 5}, true));
  EXPECT_NE(planWeights(other, "p", WeightsMode::External).fingerprint,
            plan.fingerprint);
}

TEST(Sha256, KnownDigest) {
  EXPECT_EQ(Sha256::toHex(Sha256::hash({})),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 hasher;
  hasher.update(llvm::StringRef("ab"));
  hasher.update(llvm::StringRef("c"));
  EXPECT_EQ(Sha256::toHex(hasher.final()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

} // namespace
