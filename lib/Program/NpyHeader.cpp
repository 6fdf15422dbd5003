//===- NpyHeader.cpp - The header of numpy .npy files ---------------------===//
//
// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces and a newline so that the data starts at a multiple of
// 64 bytes. The parser reads exactly that grammar (strings in either quote,
// True/False, a tuple of non-negative integers) instead of evaluating
// Python.
//
//===----------------------------------------------------------------------===//
#include "txc/Program/NpyHeader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <cstring>
#include <optional>

using namespace txc;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct DescrEntry {
  const char *descr;
  DType dtype;
};

/// The descrs txc reads, first the one it writes for each dtype.
const DescrEntry kDescrs[] = {
    {"<f4", DType::F32},
    {"<f8", DType::F64},
    {"<f2", DType::F16},
    {"|i1", DType::I8},
    {"<i2", DType::I16},
    {"<i4", DType::I32},
    {"<i8", DType::I64},
    {"|u1", DType::U8},
    {"<u2", DType::U16},
    {"<u4", DType::U32},
    {"<u8", DType::U64},
    {"|b1", DType::Bool},
    // numpy has no bfloat16: bf16 is written as its bits, <u2, which is
    // read as u16 (npyHolds lets a declared bf16 take it).
    {"<u2", DType::BF16},
    // Byte order is meaningless for one-byte types; accept either marker.
    {"<i1", DType::I8},
    {"<u1", DType::U8},
    {"<b1", DType::Bool},
};

/// A cursor over the header text with the few parsing steps it needs.
class HeaderParser {
public:
  explicit HeaderParser(llvm::StringRef text) : rest(text) {}

  void skipSpace() { rest = rest.ltrim(" \t\r\n"); }
  bool consume(llvm::StringRef token) {
    skipSpace();
    return rest.consume_front(token);
  }
  bool atEnd() {
    skipSpace();
    return rest.empty();
  }
  std::optional<std::string> parseString() {
    skipSpace();
    if (rest.empty() || (rest[0] != '\'' && rest[0] != '"'))
      return std::nullopt;
    char quote = rest[0];
    size_t end = rest.find(quote, 1);
    if (end == llvm::StringRef::npos)
      return std::nullopt;
    std::string value = rest.slice(1, end).str();
    rest = rest.drop_front(end + 1);
    return value;
  }
  std::optional<bool> parseBool() {
    if (consume("True"))
      return true;
    if (consume("False"))
      return false;
    return std::nullopt;
  }
  /// A non-negative decimal integer that fits int64.
  std::optional<int64_t> parseDim() {
    skipSpace();
    size_t digits = 0;
    while (digits < rest.size() && llvm::isDigit(rest[digits]))
      ++digits;
    uint64_t value = 0;
    if (digits == 0 || digits > 19 ||
        rest.take_front(digits).getAsInteger(10, value) || value > INT64_MAX)
      return std::nullopt;
    rest = rest.drop_front(digits);
    // A trailing 'L' is how Python 2 wrote longs in old files.
    rest.consume_front("L");
    return int64_t(value);
  }
  /// "(3, 4)", "(3,)" or "()".
  std::optional<std::vector<int64_t>> parseShape(std::string &error) {
    if (!consume("(")) {
      error = "the shape is not a tuple";
      return std::nullopt;
    }
    std::vector<int64_t> shape;
    if (consume(")"))
      return shape;
    while (true) {
      std::optional<int64_t> dim = parseDim();
      if (!dim) {
        error = "shape dimension " + std::to_string(shape.size()) +
                " is not a non-negative integer below 2^63";
        return std::nullopt;
      }
      shape.push_back(*dim);
      if (shape.size() > 64) {
        error = "the shape has more than 64 dimensions";
        return std::nullopt;
      }
      bool comma = consume(",");
      if (consume(")"))
        return shape;
      if (!comma) {
        error = "expected ',' or ')' in the shape";
        return std::nullopt;
      }
    }
  }

  llvm::StringRef remaining() const { return rest; }

private:
  llvm::StringRef rest;
};

struct Header {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

llvm::Expected<Header> parseHeader(llvm::StringRef text, llvm::StringRef name) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("'%s': bad .npy header: %s",
                                   name.str().c_str(), why.str().c_str());
  };
  HeaderParser p(text);
  if (!p.consume("{"))
    return fail("it is not a dict literal");
  Header header;
  bool haveDescr = false, haveOrder = false, haveShape = false;
  while (!p.consume("}")) {
    std::optional<std::string> key = p.parseString();
    if (!key)
      return fail("expected a quoted key or '}'");
    if (!p.consume(":"))
      return fail("expected ':' after '" + *key + "'");
    if (*key == "descr" && !haveDescr) {
      std::optional<std::string> descr = p.parseString();
      if (!descr)
        return fail("'descr' is not a string (structured dtypes are not "
                    "supported)");
      header.descr = *descr;
      haveDescr = true;
    } else if (*key == "fortran_order" && !haveOrder) {
      std::optional<bool> order = p.parseBool();
      if (!order)
        return fail("'fortran_order' is not True or False");
      header.fortranOrder = *order;
      haveOrder = true;
    } else if (*key == "shape" && !haveShape) {
      std::string error;
      auto shape = p.parseShape(error);
      if (!shape)
        return fail(error);
      header.shape = std::move(*shape);
      haveShape = true;
    } else {
      return fail("unexpected or repeated key '" + *key + "'");
    }
    if (p.consume(","))
      continue;
    if (p.consume("}"))
      break;
    return fail("expected ',' or '}' after the value of '" + *key + "'");
  }
  if (!p.atEnd())
    return fail("unexpected text after the dict");
  if (!haveDescr || !haveOrder || !haveShape)
    return fail("it must have the keys 'descr', 'fortran_order' and 'shape'");
  return header;
}

llvm::Expected<DType> dtypeOfDescr(llvm::StringRef descr,
                                   llvm::StringRef name) {
  for (const DescrEntry &entry : kDescrs)
    if (descr == entry.descr)
      return entry.dtype;
  std::string why;
  if (descr.starts_with(">"))
    why = "big-endian data is not supported; convert it with "
          "arr.astype(arr.dtype.newbyteorder('<'))";
  else
    why = "txc reads <f4 <f8 <f2 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1 (and "
          "<u2 as the bits of a bf16)";
  return llvm::createStringError("'%s': unsupported .npy dtype '%s': %s",
                                 name.str().c_str(), descr.str().c_str(),
                                 why.c_str());
}

uint32_t readLE(llvm::ArrayRef<uint8_t> bytes, size_t offset, size_t size) {
  uint32_t value = 0;
  for (size_t i = 0; i < size; ++i)
    value |= uint32_t(bytes[offset + i]) << (8 * i);
  return value;
}

/// "[3,4]": how the messages print a shape.
std::string bracketShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? "," : "") + std::to_string(shape[d]);
  return text + "]";
}

} // namespace

llvm::StringRef txc::npyDescr(DType dtype) {
  for (const DescrEntry &entry : kDescrs)
    if (entry.dtype == dtype)
      return entry.descr;
  llvm_unreachable("dtype without a descr");
}

bool txc::npyHolds(DType fileDType, DType declared) {
  return fileDType == declared ||
         (fileDType == DType::U16 && declared == DType::BF16);
}

std::string txc::npyShapeString(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? ", " : "") + std::to_string(shape[d]);
  if (shape.size() == 1)
    text += ",";
  return text + ")";
}

llvm::Expected<NpyHeader> txc::parseNpyHeader(llvm::ArrayRef<uint8_t> bytes,
                                              llvm::StringRef name) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("'%s': %s", name.str().c_str(),
                                   why.str().c_str());
  };
  if (bytes.size() < kMagicSize + 2 ||
      std::memcmp(bytes.data(), kMagic, kMagicSize) != 0)
    return fail("not a .npy file (no \\x93NUMPY magic)");
  uint8_t major = bytes[kMagicSize], minor = bytes[kMagicSize + 1];
  if (major < 1 || major > 3 || minor != 0)
    return fail("unsupported .npy version " + llvm::Twine(int(major)) + "." +
                llvm::Twine(int(minor)) + " (txc reads 1.0, 2.0 and 3.0)");
  size_t lengthSize = major == 1 ? 2 : 4;
  size_t headerStart = kMagicSize + 2 + lengthSize;
  if (bytes.size() < headerStart)
    return fail("truncated .npy file (no header length)");
  uint64_t headerLength = readLE(bytes, kMagicSize + 2, lengthSize);
  if (headerLength > bytes.size() - headerStart)
    return fail("truncated .npy file: the header says it has " +
                llvm::Twine(headerLength) + " bytes, but the file ends after " +
                llvm::Twine(bytes.size() - headerStart));
  llvm::StringRef text(
      reinterpret_cast<const char *>(bytes.data()) + headerStart, headerLength);
  auto header = parseHeader(text, name);
  if (!header)
    return header.takeError();
  if (header->fortranOrder)
    return fail("fortran_order is True; txc reads C-order arrays only "
                "(save np.ascontiguousarray(arr))");
  auto dtype = dtypeOfDescr(header->descr, name);
  if (!dtype)
    return dtype.takeError();
  // The data must be exactly what the header promises: a shorter file is
  // truncated, a longer one has a header that lies. Checked before
  // allocating, so an absurd shape never allocates anything.
  uint64_t dataSize = bytes.size() - headerStart - headerLength;
  std::string shapeText = bracketShape(header->shape);
  std::optional<int64_t> count = 1;
  for (int64_t dim : header->shape)
    if (dim < 0 || __builtin_mul_overflow(*count, dim, &*count)) {
      count.reset();
      break;
    }
  int64_t needed = 0;
  if (!count ||
      __builtin_mul_overflow(*count, int64_t(dtypeSize(*dtype)), &needed))
    return fail("the header's shape " + shapeText +
                " has more elements than any file can hold");
  if (uint64_t(needed) != dataSize)
    return fail("the header's shape " + shapeText + " and dtype '" +
                header->descr + "' need " + llvm::Twine(needed) +
                " data bytes, but the file has " + llvm::Twine(dataSize));
  NpyHeader result;
  result.dtype = *dtype;
  result.descr = header->descr;
  result.shape = header->shape;
  result.dataOffset = headerStart + headerLength;
  result.dataBytes = dataSize;
  return result;
}
