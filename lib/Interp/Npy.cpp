//===- Npy.cpp - numpy .npy files -----------------------------------------===//
//
// The header is parsed and checked by parseNpyHeader (txc/Program/NpyHeader.h,
// shared with the weights files of programs); this file copies the data
// into a Tensor and writes .npy files.
//
//===----------------------------------------------------------------------===//
#include "txc/Interp/Npy.h"
#include "txc/Program/NpyHeader.h"
#include "txc/Support/InputFiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <optional>

using namespace txc;

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
} // namespace

llvm::Expected<Tensor> txc::parseNpy(llvm::ArrayRef<uint8_t> bytes,
                                     llvm::StringRef name) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("'%s': %s", name.str().c_str(),
                                   why.str().c_str());
  };
  auto header = parseNpyHeader(bytes, name);
  if (!header)
    return header.takeError();
  DType dtype = header->dtype;
  uint64_t dataSize = header->dataBytes;
  auto tensor = Tensor::create(dtype, header->shape);
  if (!tensor)
    return fail(llvm::toString(tensor.takeError()));
  const uint8_t *data = bytes.data() + header->dataOffset;
  if (dataSize)
    std::memcpy(tensor->data(), data, dataSize);
  if (dtype == DType::Bool)
    for (int64_t i = 0; i < tensor->numElements(); ++i)
      if (data[i] > 1)
        return fail("bool element " + llvm::Twine(i) + " is the byte " +
                    llvm::Twine(int(data[i])) + ", not 0 or 1");
  return std::move(*tensor);
}

llvm::Expected<Tensor> txc::readNpyFile(llvm::StringRef path) {
  auto buffer = mapInputFile(path, InputPolicy());
  if (!buffer) {
    InputError error = takeInputError(buffer.takeError());
    return llvm::createStringError(error.code, "cannot read '%s': %s",
                                   path.str().c_str(), error.reason.c_str());
  }
  llvm::StringRef contents = (*buffer)->getBuffer();
  return parseNpy(
      llvm::ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(contents.data()), contents.size()),
      path);
}

llvm::Expected<Tensor> txc::readNpyFileAs(llvm::StringRef path,
                                          DType declared) {
  auto tensor = readNpyFile(path);
  if (tensor && tensor->dtype() != declared &&
      npyHolds(tensor->dtype(), declared))
    tensor->reinterpret(declared);
  return tensor;
}

std::string txc::writeNpy(const Tensor &tensor) {
  std::string dict = "{'descr': '" + npyDescr(tensor.dtype()).str() +
                     "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : tensor.shape())
    dict += std::to_string(dim) + ", ";
  if (tensor.rank() > 1)
    dict.resize(dict.size() - 2); // "(3, 4)", but "(3,)" for rank 1
  else if (tensor.rank() == 1)
    dict.resize(dict.size() - 1);
  dict += "), }";
  // Pad with spaces and end with '\n' so that the data is 64-byte aligned;
  // version 2.0 only when the header outgrows 1.0's 16-bit length.
  auto paddedLength = [&](size_t prefix) {
    return (prefix + dict.size() + 1 + 63) / 64 * 64 - prefix;
  };
  int major = paddedLength(10) <= 65535 ? 1 : 2;
  size_t length = paddedLength(major == 1 ? 10 : 12);
  dict.append(length - dict.size() - 1, ' ');
  dict += '\n';

  std::string out(kMagic, kMagicSize);
  out += char(major);
  out += char(0);
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += char((length >> (8 * i)) & 0xFF);
  out += dict;
  out.append(reinterpret_cast<const char *>(tensor.data()),
             size_t(tensor.sizeBytes()));
  return out;
}
