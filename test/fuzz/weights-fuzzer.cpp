//===- weights-fuzzer.cpp - libFuzzer harness of weights files ------------===//
//
// The input is a weights file: .npy (txc-npy-fuzzer) or .safetensors
// (txc-safetensors-fuzzer; CMake compiles this file once per format, with
// TXC_FUZZ_SAFETENSORS for the second). It is checked as
// WeightsFile::open checks the file it maps, and for a file that passes,
// the promises every constant relies on are checked: each tensor's bytes
// lie inside the file (they are read, so AddressSanitizer sees any byte
// outside), hold exactly what its dtype and shape need, and no two tensors
// share a byte. A .npy file is also given to parseNpyHeader directly, the
// reader of `txc run`'s inputs.
//
//===----------------------------------------------------------------------===//
#include "FuzzerCommon.h"

#include "txc/Frontend/WeightsFile.h"
#include "txc/Program/NpyHeader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

using namespace txc;

#ifdef TXC_FUZZ_SAFETENSORS
static constexpr WeightsFile::Format kFormat = WeightsFile::Format::Safetensors;
#else
static constexpr WeightsFile::Format kFormat = WeightsFile::Format::Npy;
#endif

/// Reads every byte of a tensor: out-of-range offsets become ASan reports.
static void touch(const Blob &blob) {
  volatile uint8_t sink = 0;
  for (uint64_t i = 0; i < blob.size; ++i)
    sink = sink ^ blob.data[i];
  (void)sink;
}

/// The bytes a dtype and shape need, or nullopt past 2^64.
static std::optional<uint64_t> neededBytes(uint64_t elementSize,
                                           llvm::ArrayRef<int64_t> shape) {
  for (int64_t dim : shape)
    fuzz::check(dim >= 0, "a tensor has a negative dimension");
  // A 0 anywhere means no bytes, even after dims whose product overflows
  // ([2^33, 9, 2^32, 0] is a valid empty tensor).
  if (llvm::is_contained(shape, 0))
    return 0;
  uint64_t bytes = elementSize;
  for (int64_t dim : shape)
    if (__builtin_mul_overflow(bytes, uint64_t(dim), &bytes))
      return std::nullopt;
  return bytes;
}

static void checkEntries(const WeightsFile &file, uint64_t fileSize) {
  std::vector<const WeightsFile::Entry *> nonEmpty;
  for (const WeightsFile::Entry &entry : file.entries()) {
    fuzz::check(entry.offset <= fileSize && entry.size <= fileSize - entry.offset,
                "a tensor's bytes are outside the file");
    std::optional<unsigned> elementSize =
        kFormat == WeightsFile::Format::Npy
            ? std::optional<unsigned>(dtypeSize(*entry.dtype))
            : safetensorsDTypeSize(entry.dtypeText);
    fuzz::check(elementSize.has_value(), "a tensor has an unknown dtype");
    fuzz::check(neededBytes(*elementSize, entry.shape) == entry.size,
                "a tensor's size is not what its dtype and shape need");
    touch(file.bytes(entry));
    if (entry.size)
      nonEmpty.push_back(&entry);
  }
  std::sort(nonEmpty.begin(), nonEmpty.end(),
            [](const auto *a, const auto *b) { return a->offset < b->offset; });
  for (size_t i = 1; i < nonEmpty.size(); ++i)
    fuzz::check(nonEmpty[i - 1]->offset + nonEmpty[i - 1]->size <=
                    nonEmpty[i]->offset,
                "two tensors share bytes");
  if (kFormat == WeightsFile::Format::Npy)
    fuzz::check(file.entries().size() == 1 && file.find("") != nullptr,
                "a .npy file does not hold exactly one tensor");
}

static void checkNpyHeader(llvm::ArrayRef<uint8_t> bytes) {
  llvm::Expected<NpyHeader> header = parseNpyHeader(bytes, "fuzz.npy");
  if (!header) {
    fuzz::check(!llvm::toString(header.takeError()).empty(),
                "parseNpyHeader failed without a message");
    return;
  }
  fuzz::check(header->dataOffset <= bytes.size() &&
                  header->dataBytes == bytes.size() - header->dataOffset,
              "the .npy data is not the rest of the file");
  fuzz::check(neededBytes(dtypeSize(header->dtype), header->shape) ==
                  header->dataBytes,
              "the .npy data size is not what its dtype and shape need");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // libFuzzer's buffer has exactly the input's size, so ASan sees a read one
  // byte past the end; a mapped file would have no terminating NUL either.
  std::unique_ptr<llvm::MemoryBuffer> buffer = llvm::MemoryBuffer::getMemBuffer(
      fuzz::bytesAsText(data, size), "fuzz-weights",
      /*RequiresNullTerminator=*/false);
  auto file = WeightsFile::fromBuffer(std::move(buffer), "fuzz-weights", kFormat);
  if (!file) {
    llvm::handleAllErrors(file.takeError(), [](const WeightsFileError &e) {
      fuzz::check(!e.message.empty(), "a weights error without a message");
    });
  } else {
    checkEntries(**file, size);
  }
  if (kFormat == WeightsFile::Format::Npy)
    checkNpyHeader(llvm::ArrayRef<uint8_t>(data, size));
  return 0;
}
