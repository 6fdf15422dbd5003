//===- Imports.cpp - The functions a compiled object imports --------------===//
#include "txc/Target/Imports.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Object/ObjectFile.h"

#include <algorithm>

using namespace txc;

llvm::StringRef txc::importLibraryName(ImportLibrary library) {
  switch (library) {
  case ImportLibrary::Libc: return "libc";
  case ImportLibrary::Libm: return "libm";
  case ImportLibrary::CompilerRuntime: return "compiler runtime";
  }
  return "";
}

const ImportInfo *txc::findObjectImport(llvm::StringRef name) {
  auto *it = llvm::find_if(kObjectImports, [&](const ImportInfo &info) {
    return info.name == name;
  });
  return it == std::end(kObjectImports) ? nullptr : it;
}

llvm::TargetLibraryInfoImpl
txc::importableLibraryInfo(const llvm::Triple &triple) {
  llvm::TargetLibraryInfoImpl info(triple);
  info.disableAllFunctions();
  for (const ImportInfo &import : kObjectImports) {
    llvm::LibFunc function;
    if (info.getLibFunc(import.name, function))
      info.setAvailable(function);
  }
  return info;
}

llvm::Expected<std::vector<std::string>>
txc::objectImports(llvm::MemoryBufferRef object) {
  auto file = llvm::object::ObjectFile::createObjectFile(object);
  if (!file)
    return file.takeError();
  std::vector<std::string> names;
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    auto flags = symbol.getFlags();
    if (!flags)
      return flags.takeError();
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    auto name = symbol.getName();
    if (!name)
      return name.takeError();
    // ELF's null symbol is undefined and nameless.
    if (!name->empty())
      names.push_back(name->str());
  }
  llvm::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}
