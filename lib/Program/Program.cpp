//===- Program.cpp --------------------------------------------------------===//
#include "txc/Program/Program.h"

#include "llvm/ADT/StringExtras.h"

using namespace txc;

Blob Blob::fromVector(std::vector<uint8_t> bytes) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  Blob blob;
  blob.data = owner->data();
  blob.size = owner->size();
  blob.owner = std::move(owner);
  return blob;
}

const NodeAttr *Node::findAttribute(llvm::StringRef attrName) const {
  for (const NodeAttr &attr : attributes)
    if (attr.name == attrName)
      return &attr;
  return nullptr;
}

const Graph *Node::findRegion(llvm::StringRef regionName) const {
  for (const auto &region : regions)
    if (region.first == regionName)
      return region.second.get();
  return nullptr;
}

std::vector<std::string> Program::symbolNames() const {
  std::vector<std::string> names;
  names.reserve(symbols.size());
  for (const Symbol &symbol : symbols)
    names.push_back(symbol.name);
  return names;
}

std::optional<uint32_t> Program::findSymbol(llvm::StringRef symbolName) const {
  for (size_t i = 0; i < symbols.size(); ++i)
    if (symbols[i].name == symbolName)
      return uint32_t(i);
  return std::nullopt;
}

std::optional<SymbolRef>
Program::findSymbolRef(llvm::StringRef symbolName) const {
  std::optional<uint32_t> id = findSymbol(symbolName);
  if (!id)
    return std::nullopt;
  return SymbolRef{*id, symbols[*id].multipleOf};
}

std::vector<Interval> Program::symbolRanges() const {
  std::vector<Interval> ranges;
  ranges.reserve(symbols.size());
  for (const Symbol &symbol : symbols)
    ranges.push_back({symbol.min, symbol.max});
  return ranges;
}

bool txc::splitValueName(llvm::StringRef ref, llvm::StringRef &base,
                         unsigned &result) {
  auto [head, tail] = ref.split(':');
  base = head;
  result = 0;
  if (tail.data() == nullptr || ref.find(':') == llvm::StringRef::npos)
    return true;
  return !tail.empty() && llvm::all_of(tail, llvm::isDigit) &&
         tail.size() <= 6 && !tail.getAsInteger(10, result);
}

bool txc::isValidIdentifier(llvm::StringRef name) {
  if (name.empty() || name.size() > ProgramLimits::kMaxNameLength)
    return false;
  if (!llvm::isAlpha(name[0]) && name[0] != '_')
    return false;
  return llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}
