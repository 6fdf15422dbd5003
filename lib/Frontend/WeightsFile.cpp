//===- WeightsFile.cpp - .npy and .safetensors weights files --------------===//
//
// A .safetensors file is
//
//   u64 little-endian N | N bytes of JSON header | data
//
// where the header maps each tensor name to {"dtype": "F32", "shape": [..],
// "data_offsets": [begin, end]} (offsets relative to the start of the data)
// and may hold "__metadata__", an object of strings. A .npy file holds one
// tensor (txc/Program/NpyHeader.h).
//
//===----------------------------------------------------------------------===//
#include "txc/Frontend/WeightsFile.h"
#include "txc/Frontend/Json.h"
#include "txc/Program/NpyHeader.h"
#include "txc/Support/InputFiles.h"
#include "txc/Support/SourceFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace txc;

char WeightsFileError::ID = 0;

static llvm::Error weightsError(DiagCategory category, llvm::StringRef id,
                                const llvm::Twine &message) {
  return llvm::make_error<WeightsFileError>(category, id.str(), message.str());
}

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

namespace {
struct SafetensorsDType {
  const char *name;
  unsigned size;
  std::optional<DType> dtype;
};

// The dtypes of the safetensors format; txc has all but the float8 ones.
const SafetensorsDType kSafetensorsDTypes[] = {
    {"F32", 4, DType::F32},       {"F64", 8, DType::F64},
    {"F16", 2, DType::F16},       {"BF16", 2, DType::BF16},
    {"I8", 1, DType::I8},         {"I16", 2, DType::I16},
    {"I32", 4, DType::I32},       {"I64", 8, DType::I64},
    {"U8", 1, DType::U8},         {"BOOL", 1, DType::Bool},
    {"U16", 2, DType::U16},       {"U32", 4, DType::U32},
    {"U64", 8, DType::U64},       {"F8_E4M3", 1, std::nullopt},
    {"F8_E5M2", 1, std::nullopt},
};
} // namespace

std::optional<unsigned> txc::safetensorsDTypeSize(llvm::StringRef dtype) {
  for (const SafetensorsDType &entry : kSafetensorsDTypes)
    if (dtype == entry.name)
      return entry.size;
  return std::nullopt;
}

std::optional<DType> txc::safetensorsDType(llvm::StringRef dtype) {
  for (const SafetensorsDType &entry : kSafetensorsDTypes)
    if (dtype == entry.name)
      return entry.dtype;
  return std::nullopt;
}

llvm::StringRef txc::safetensorsDTypeName(DType dtype) {
  for (const SafetensorsDType &entry : kSafetensorsDTypes)
    if (entry.dtype == dtype)
      return entry.name;
  llvm_unreachable("dtype without a safetensors name");
}

//===----------------------------------------------------------------------===//
// Paths
//===----------------------------------------------------------------------===//

/// True if `path` is `dir` or inside it (both absolute, without dots).
static bool isInside(llvm::StringRef path, llvm::StringRef dir) {
  dir = dir.rtrim('/');
  return path == dir || (path.starts_with(dir) && path.size() > dir.size() &&
                         path[dir.size()] == '/');
}

llvm::Expected<std::string>
txc::resolveWeightsPath(llvm::StringRef programPath, llvm::StringRef written,
                        llvm::ArrayRef<std::string> allowedDirs,
                        llvm::StringRef owner) {
  namespace path = llvm::sys::path;
  namespace fs = llvm::sys::fs;
  if (written.empty())
    return weightsError(DiagCategory::Invalid, "weights-path",
                        "the weights file path is empty");
  llvm::SmallString<256> programDir(path::parent_path(programPath));
  if (programDir.empty())
    programDir = ".";

  std::string problem;
  if (path::is_absolute(written)) {
    problem = "is an absolute path";
  } else {
    llvm::SmallString<256> normalized(written);
    path::remove_dots(normalized, /*remove_dot_dot=*/true);
    if (normalized == ".." || llvm::StringRef(normalized).starts_with("../")) {
      problem = ("leaves the " + owner + "'s directory").str();
    } else {
      // Every component below the program's directory must be a real
      // directory or file, not a symbolic link.
      llvm::SmallString<256> current(programDir), relative;
      for (auto it = path::begin(normalized), end = path::end(normalized);
           it != end; ++it) {
        path::append(current, *it);
        path::append(relative, *it);
        fs::file_status status;
        if (fs::status(current, status, /*follow=*/false))
          break; // missing: opening it reports that
        if (fs::is_symlink_file(status)) {
          problem =
              "goes through the symbolic link '" + std::string(relative) + "'";
          break;
        }
      }
      if (problem.empty()) {
        llvm::SmallString<256> result(programDir);
        path::append(result, normalized);
        return std::string(result);
      }
    }
  }

  std::string message = "weights file '" + written.str() + "' " + problem;
  if (allowedDirs.empty())
    return weightsError(
        DiagCategory::Invalid, "weights-path",
        message + "; weights files must be inside the " + owner +
            "'s directory (pass --allow-weights-outside DIR to allow files "
            "in DIR)");
  llvm::SmallString<256> full;
  if (path::is_absolute(written)) {
    full = written;
  } else {
    full = programDir;
    path::append(full, written);
  }
  llvm::SmallString<256> real;
  if (std::error_code ec = fs::real_path(full, real))
    return weightsError(DiagCategory::IO, "weights-io",
                        "cannot read weights file '" + written +
                            "': " + ec.message());
  for (const std::string &dir : allowedDirs) {
    llvm::SmallString<256> realDir;
    if (fs::real_path(dir, realDir))
      continue;
    if (isInside(real, realDir))
      return std::string(real);
  }
  return weightsError(DiagCategory::Invalid, "weights-path",
                      message + ", and its real path '" + real +
                          "' is not inside a directory of "
                          "--allow-weights-outside");
}

//===----------------------------------------------------------------------===//
// Opening and checking
//===----------------------------------------------------------------------===//

std::optional<WeightsFile::Format> WeightsFile::formatOf(llvm::StringRef path) {
  llvm::StringRef extension = llvm::sys::path::extension(path);
  if (extension == ".npy")
    return Format::Npy;
  if (extension == ".safetensors")
    return Format::Safetensors;
  return std::nullopt;
}

WeightsFile::~WeightsFile() = default;

const WeightsFile::Entry *WeightsFile::find(llvm::StringRef tensorName) const {
  if (fileFormat == Format::Npy)
    return &tensors.front();
  for (const Entry &entry : tensors)
    if (entry.name == tensorName)
      return &entry;
  return nullptr;
}

Blob WeightsFile::bytes(const Entry &entry) const {
  Blob blob;
  blob.owner = buffer;
  blob.data = reinterpret_cast<const uint8_t *>(buffer->getBufferStart()) +
              entry.offset;
  blob.size = entry.size;
  return blob;
}

/// The largest safetensors header txc reads (the format's own limit).
static constexpr uint64_t kMaxSafetensorsHeader = 100ull << 20;

namespace {
/// Checks a safetensors header and lists its tensors.
class SafetensorsParser {
public:
  SafetensorsParser(llvm::StringRef name, llvm::ArrayRef<uint8_t> bytes)
      : name(name), bytes(bytes) {}

  llvm::Expected<std::vector<WeightsFile::Entry>> parse();

private:
  llvm::Error fail(const llvm::Twine &why) {
    return weightsError(DiagCategory::IO, "weights-format",
                        "weights file '" + name +
                            "' is not a valid "
                            ".safetensors file: " +
                            why);
  }
  llvm::Error readEntry(const JsonMember &member, uint64_t dataSize,
                        WeightsFile::Entry &entry);

  std::string name;
  llvm::ArrayRef<uint8_t> bytes;
};
} // namespace

/// A JSON value as a non-negative integer.
static std::optional<uint64_t> asUnsigned(const JsonValue &value) {
  if (value.isInteger() && value.getInteger() >= 0)
    return uint64_t(value.getInteger());
  if (value.kind() == JsonValue::Kind::Unsigned)
    return value.getUnsigned();
  return std::nullopt;
}

llvm::Error SafetensorsParser::readEntry(const JsonMember &member,
                                         uint64_t dataSize,
                                         WeightsFile::Entry &entry) {
  const JsonValue &value = member.value;
  std::string what = "tensor '" + member.key + "'";
  if (!value.isObject())
    return fail(what + " is described by " + value.kindName().str() +
                ", not an object");
  const JsonValue *dtype = value.find("dtype");
  const JsonValue *shape = value.find("shape");
  const JsonValue *offsets = value.find("data_offsets");
  if (!dtype || !shape || !offsets || value.members().size() != 3)
    return fail(what + " must have exactly the keys 'dtype', 'shape' and "
                       "'data_offsets'");
  if (!dtype->isString())
    return fail("the dtype of " + what + " is not a string");
  entry.dtypeText = dtype->getString();
  std::optional<unsigned> elementSize = safetensorsDTypeSize(entry.dtypeText);
  if (!elementSize)
    return fail(what + " has the unknown dtype '" + entry.dtypeText + "'");
  entry.dtype = safetensorsDType(entry.dtypeText);
  if (!shape->isArray())
    return fail("the shape of " + what + " is not an array");
  uint64_t count = 1;
  bool overflow = false;
  for (const JsonValue &dim : shape->items()) {
    std::optional<uint64_t> n = asUnsigned(dim);
    if (!n || *n > uint64_t(INT64_MAX))
      return fail("the shape of " + what +
                  " has a dimension that is not a non-negative integer");
    entry.shape.push_back(int64_t(*n));
    overflow |= __builtin_mul_overflow(count, *n, &count);
  }
  uint64_t needed = 0;
  overflow |= __builtin_mul_overflow(count, uint64_t(*elementSize), &needed);
  if (!offsets->isArray() || offsets->items().size() != 2 ||
      !asUnsigned(offsets->items()[0]) || !asUnsigned(offsets->items()[1]))
    return fail("'data_offsets' of " + what +
                " is not a pair of non-negative integers");
  uint64_t begin = *asUnsigned(offsets->items()[0]);
  uint64_t end = *asUnsigned(offsets->items()[1]);
  if (end < begin)
    return fail("'data_offsets' of " + what + " is [" + llvm::Twine(begin) +
                ", " + llvm::Twine(end) + "], which ends before it begins");
  if (end > dataSize)
    return fail("'data_offsets' of " + what + " is [" + llvm::Twine(begin) +
                ", " + llvm::Twine(end) + "], past the end of the data (" +
                llvm::Twine(dataSize) +
                " bytes); the file is truncated or "
                "its header is wrong");
  if (overflow || needed != end - begin)
    return fail(
        what + " has dtype " + entry.dtypeText + " and shape " +
        npyShapeString(entry.shape) + ", which need " +
        (overflow ? std::string("more than 2^64") : std::to_string(needed)) +
        " bytes, but its 'data_offsets' [" + llvm::Twine(begin) + ", " +
        llvm::Twine(end) + "] hold " + llvm::Twine(end - begin));
  entry.name = member.key;
  entry.offset = begin; // relative to the data until parse() adds the start
  entry.size = end - begin;
  return llvm::Error::success();
}

llvm::Expected<std::vector<WeightsFile::Entry>> SafetensorsParser::parse() {
  if (bytes.size() < 8)
    return fail("it has " + llvm::Twine(bytes.size()) +
                " bytes, fewer than the 8 of the header length");
  uint64_t headerSize = 0;
  for (unsigned i = 0; i < 8; ++i)
    headerSize |= uint64_t(bytes[i]) << (8 * i);
  if (headerSize > bytes.size() - 8)
    return fail("the header length says " + llvm::Twine(headerSize) +
                " bytes, but the file has only " +
                llvm::Twine(bytes.size() - 8) + " bytes after it");
  if (headerSize > kMaxSafetensorsHeader)
    return fail("the header has " + llvm::Twine(headerSize) +
                " bytes, over the limit of 100 MiB");
  llvm::StringRef text(reinterpret_cast<const char *>(bytes.data()) + 8,
                       headerSize);
  if (!text.starts_with("{"))
    return fail("the header does not start with '{'");

  auto header = std::make_shared<SourceFile>(name + " (header)", text.str());
  DiagnosticEngine jsonDiags;
  std::unique_ptr<JsonValue> root =
      parseJson(*header, jsonDiags, ProgramLimits::kMaxJsonDepth);
  if (jsonDiags.hasErrors()) {
    const Diagnostic &first = jsonDiags.diagnostics().front();
    return fail("the header is not valid JSON: " + first.message +
                (first.loc.isKnown()
                     ? " (header line " + std::to_string(first.loc.line) +
                           ", column " + std::to_string(first.loc.column) + ")"
                     : std::string()));
  }
  if (!root || !root->isObject())
    return fail("the header is not a JSON object");

  uint64_t dataStart = 8 + headerSize;
  uint64_t dataSize = bytes.size() - dataStart;
  std::vector<WeightsFile::Entry> entries;
  for (const JsonMember &member : root->members()) {
    if (member.key == "__metadata__") {
      if (!member.value.isObject() ||
          !llvm::all_of(member.value.members(),
                        [](const JsonMember &m) { return m.value.isString(); }))
        return fail("'__metadata__' must be an object of strings");
      continue;
    }
    WeightsFile::Entry entry;
    if (llvm::Error err = readEntry(member, dataSize, entry))
      return std::move(err);
    entries.push_back(std::move(entry));
  }
  // No two tensors may share bytes.
  std::vector<const WeightsFile::Entry *> byOffset;
  for (const WeightsFile::Entry &entry : entries)
    if (entry.size)
      byOffset.push_back(&entry);
  llvm::stable_sort(byOffset, [](const auto *a, const auto *b) {
    return a->offset < b->offset;
  });
  for (size_t i = 1; i < byOffset.size(); ++i) {
    const WeightsFile::Entry &a = *byOffset[i - 1], &b = *byOffset[i];
    if (b.offset < a.offset + a.size)
      return fail("tensors '" + a.name + "' (bytes [" + llvm::Twine(a.offset) +
                  ", " + llvm::Twine(a.offset + a.size) + ")) and '" + b.name +
                  "' (bytes [" + llvm::Twine(b.offset) + ", " +
                  llvm::Twine(b.offset + b.size) + ")) overlap");
  }
  for (WeightsFile::Entry &entry : entries)
    entry.offset += dataStart;
  return entries;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
txc::mapWeightsFile(llvm::StringRef path, llvm::StringRef displayName) {
  // Opened once, by the rule of every input (a FIFO or a device is refused
  // before it is read), without following a final symbolic link: the
  // checks and the bytes the compiler uses are of the same file even if
  // the path changes meanwhile. Mapped, not read: a gigabyte of weights
  // costs no copy, and pages the compile never touches are never read.
  InputPolicy policy;
  policy.followSymlinks = false;
  auto buffer = mapInputFile(path, policy);
  if (!buffer)
    return weightsError(DiagCategory::IO, "weights-io",
                        "cannot read weights file '" + displayName + "': " +
                            takeInputError(buffer.takeError()).reason);
  return std::move(*buffer);
}

llvm::Expected<std::unique_ptr<WeightsFile>>
WeightsFile::open(llvm::StringRef path, llvm::StringRef displayName,
                  Format format) {
  auto buffer = mapWeightsFile(path, displayName);
  if (!buffer)
    return buffer.takeError();
  return fromBuffer(std::move(*buffer), displayName, format);
}

llvm::Expected<std::unique_ptr<WeightsFile>>
WeightsFile::fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                        llvm::StringRef displayName, Format format) {
  std::unique_ptr<WeightsFile> file(new WeightsFile());
  file->fileFormat = format;
  file->name = displayName.str();
  file->buffer = std::shared_ptr<llvm::MemoryBuffer>(std::move(buffer));
  llvm::ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>(file->buffer->getBufferStart()),
      file->buffer->getBufferSize());
  if (format == Format::Npy) {
    auto header = parseNpyHeader(bytes, displayName);
    if (!header)
      return weightsError(DiagCategory::IO, "weights-format",
                          "weights file " + llvm::toString(header.takeError()));
    Entry entry;
    entry.dtypeText = header->descr;
    entry.dtype = header->dtype;
    entry.shape = header->shape;
    entry.offset = header->dataOffset;
    entry.size = header->dataBytes;
    file->tensors.push_back(std::move(entry));
  } else {
    auto entries = SafetensorsParser(displayName.str(), bytes).parse();
    if (!entries)
      return entries.takeError();
    file->tensors = std::move(*entries);
  }
  return file;
}
