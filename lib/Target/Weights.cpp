//===- Weights.cpp - Where the program's constants live -------------------===//
#include "txc/Target/Weights.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>

using namespace txc;

static void appendLE64(std::string &out, uint64_t value) {
  for (unsigned i = 0; i < 8; ++i)
    out += char((value >> (8 * i)) & 0xFF);
}

std::vector<size_t> WeightsPlan::storedConstants() const {
  std::vector<size_t> result;
  for (size_t i = 0; i < constants.size(); ++i)
    if (constants[i].storage != ConstantStorage::Code)
      result.push_back(i);
  return result;
}

uint64_t WeightsPlan::storedBytes() const {
  uint64_t total = 0;
  for (const WeightsBlob &blob : blobs)
    total += blob.bytes.size;
  return total;
}

std::string WeightsPlan::blobHeader() const {
  std::string header(WeightsBlobLayout::kMagic, 8);
  uint64_t versionAndSize = uint64_t(WeightsBlobLayout::kVersion) |
                            uint64_t(WeightsBlobLayout::kHeaderBytes) << 32;
  appendLE64(header, versionAndSize);
  appendLE64(header, blobFileBytes);
  appendLE64(header, fingerprint);
  appendLE64(header, blobs.size());
  header.resize(WeightsBlobLayout::kHeaderBytes, '\0');
  return header;
}

/// Calls `piece` with the blob file's bytes in order, without copying the
/// weights.
static void
forEachBlobPiece(const WeightsPlan &plan,
                 const std::function<void(llvm::ArrayRef<uint8_t>)> &piece) {
  static const uint8_t kZeros[WeightsBlobLayout::kAlignment] = {};
  std::string header = plan.blobHeader();
  piece(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(header.data()), header.size()));
  uint64_t position = header.size();
  for (const WeightsBlob &blob : plan.blobs) {
    while (position < blob.offset) {
      uint64_t n = std::min<uint64_t>(blob.offset - position, sizeof kZeros);
      piece(llvm::ArrayRef<uint8_t>(kZeros, n));
      position += n;
    }
    piece(blob.bytes.bytes());
    position += blob.bytes.size;
  }
}

llvm::Error WeightsPlan::writeBlob(llvm::raw_ostream &os) const {
  forEachBlobPiece(*this, [&](llvm::ArrayRef<uint8_t> bytes) {
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  });
  return llvm::Error::success();
}

WeightsPlan txc::planWeights(const Program &program,
                             llvm::StringRef entryPrefix, WeightsMode mode) {
  WeightsPlan plan;
  plan.mode = mode;
  std::map<Sha256::Digest, std::vector<int>> byDigest;
  for (const ConstantDecl &constant : program.constants) {
    ConstantPlacement placement;
    placement.name = constant.name;
    placement.type = constant.type;
    placement.sha256 = Sha256::hash(constant.data.bytes());
    if (constant.isStored()) {
      placement.storage = mode == WeightsMode::Embedded
                              ? ConstantStorage::Embedded
                              : ConstantStorage::External;
      // The same bytes are stored once (the digests only narrow the
      // search; equal bytes decide).
      std::vector<int> &candidates = byDigest[placement.sha256];
      for (int index : candidates) {
        const Blob &other = plan.blobs[index].bytes;
        if (other.size == constant.data.size &&
            (other.size == 0 ||
             std::memcmp(other.data, constant.data.data, other.size) == 0)) {
          placement.blob = index;
          break;
        }
      }
      if (placement.blob < 0) {
        placement.blob = int(plan.blobs.size());
        WeightsBlob blob;
        blob.bytes = constant.data;
        blob.sha256 = placement.sha256;
        blob.symbol = "__txc_" + entryPrefix.str() + "_weights_" +
                      std::to_string(plan.blobs.size());
        plan.blobs.push_back(std::move(blob));
        candidates.push_back(placement.blob);
      }
    }
    plan.constants.push_back(placement);
  }
  if (mode == WeightsMode::External) {
    uint64_t offset = WeightsBlobLayout::kHeaderBytes;
    Sha256 layout;
    layout.update("txc weights blob v1\n");
    for (WeightsBlob &blob : plan.blobs) {
      offset = llvm::alignTo(offset, WeightsBlobLayout::kAlignment);
      blob.offset = offset;
      offset += blob.bytes.size;
      std::string record;
      appendLE64(record, blob.offset);
      appendLE64(record, blob.bytes.size);
      layout.update(record);
      layout.update(llvm::ArrayRef<uint8_t>(blob.sha256));
    }
    plan.blobFileBytes = offset;
    Sha256::Digest digest = layout.final();
    for (unsigned i = 0; i < 8; ++i)
      plan.fingerprint |= uint64_t(digest[i]) << (8 * i);
    // The file's own hash, for the manifest: one more pass over the bytes.
    Sha256 file;
    forEachBlobPiece(
        plan, [&](llvm::ArrayRef<uint8_t> bytes) { file.update(bytes); });
    plan.blobFileSha256 = file.final();
  }
  return plan;
}

void txc::finalizeWeightGlobals(llvm::Module &module, const WeightsPlan &plan) {
  if (plan.mode != WeightsMode::Embedded)
    return;
  llvm::LLVMContext &context = module.getContext();
  for (const WeightsBlob &blob : plan.blobs) {
    auto *type =
        llvm::ArrayType::get(llvm::Type::getInt8Ty(context), blob.bytes.size);
    llvm::GlobalVariable *global =
        module.getGlobalVariable(blob.symbol, /*AllowInternal=*/true);
    // A weights run no code uses any more is kept: the object holds every
    // constant the manifest lists.
    if (!global)
      global = new llvm::GlobalVariable(module, type, /*isConstant=*/true,
                                        llvm::GlobalValue::InternalLinkage,
                                        nullptr, blob.symbol);
    // The zeros are a placeholder: externally_initialized keeps every
    // optimization in code generation from folding them, and the bytes are
    // written into the object by fillEmbeddedWeights.
    global->setInitializer(llvm::ConstantAggregateZero::get(type));
    global->setLinkage(llvm::GlobalValue::InternalLinkage);
    global->setVisibility(llvm::GlobalValue::DefaultVisibility);
    global->setConstant(true);
    global->setExternallyInitialized(true);
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::None);
    global->setSection(kWeightsSection);
    global->setAlignment(llvm::Align(WeightsBlobLayout::kAlignment));
  }
}

llvm::Error txc::fillEmbeddedWeights(
    llvm::MemoryBufferRef object, const WeightsPlan &plan,
    const std::function<llvm::Error(uint64_t, llvm::ArrayRef<uint8_t>)>
        &write) {
  if (plan.mode != WeightsMode::Embedded || plan.blobs.empty())
    return llvm::Error::success();
  auto file = llvm::object::ObjectFile::createObjectFile(object);
  if (!file)
    return file.takeError();
  std::map<std::string, const WeightsBlob *> wanted;
  for (const WeightsBlob &blob : plan.blobs)
    wanted[blob.symbol] = &blob;
  size_t found = 0;
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    auto name = symbol.getName();
    if (!name)
      return name.takeError();
    auto it = wanted.find(name->str());
    if (it == wanted.end())
      continue;
    const WeightsBlob &blob = *it->second;
    auto section = symbol.getSection();
    if (!section)
      return section.takeError();
    auto address = symbol.getAddress();
    if (!address)
      return address.takeError();
    auto contents = (*section)->getContents();
    if (!contents)
      return contents.takeError();
    auto sectionName = (*section)->getName();
    if (!sectionName)
      return sectionName.takeError();
    uint64_t inSection = *address - (*section)->getAddress();
    if (*sectionName != kWeightsSection ||
        inSection + blob.bytes.size > contents->size() ||
        contents->data() < object.getBufferStart() ||
        contents->data() + contents->size() > object.getBufferEnd())
      return llvm::createStringError(
          "internal error: weights symbol '%s' is not where the object's "
          "section '%s' can hold it",
          blob.symbol.c_str(), kWeightsSection.data());
    uint64_t offset =
        uint64_t(contents->data() - object.getBufferStart()) + inSection;
    if (llvm::Error err = write(offset, blob.bytes.bytes()))
      return err;
    wanted.erase(it);
    ++found;
  }
  if (!wanted.empty())
    return llvm::createStringError(
        "internal error: the object has no weights symbol '%s'",
        wanted.begin()->first.c_str());
  return llvm::Error::success();
}
