//===- Imports.h - The functions a compiled object may import ---*- C++ -*-===//
//
// What a program's object needs at link time (docs/abi.md, "Imports"): the
// list of Imports.def, and the imports of a generated object.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TARGET_IMPORTS_H
#define TXC_TARGET_IMPORTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <string>
#include <vector>

namespace txc {

/// Where an imported function comes from when the object is linked.
enum class ImportLibrary { Libc, Libm, CompilerRuntime };

struct ImportInfo {
  llvm::StringLiteral name;
  ImportLibrary library;
  llvm::StringLiteral neededFor; ///< what in a program makes the call
};

/// Every function an object may import, in the order of Imports.def.
inline constexpr ImportInfo kObjectImports[] = {
#define TXC_LIBC_IMPORT(Name, NeededFor)                                       \
  {#Name, ImportLibrary::Libc, NeededFor},
#define TXC_LIBM_IMPORT(Name, NeededFor)                                       \
  {#Name, ImportLibrary::Libm, NeededFor},
#define TXC_RUNTIME_IMPORT(Name, NeededFor)                                    \
  {#Name, ImportLibrary::CompilerRuntime, NeededFor},
#include "txc/Target/Imports.def"
};

/// "libc", "libm", "compiler runtime".
llvm::StringRef importLibraryName(ImportLibrary library);

/// The entry of `name` in Imports.def, or null.
const ImportInfo *findObjectImport(llvm::StringRef name);

/// LLVM's knowledge of the C library for `triple`, narrowed to the functions
/// of Imports.def: the optimizer and code generator may only recognize and
/// emit calls of these (left alone, LLVM would turn `pow(2, x)` into `exp2`,
/// a string copy into `strlen`, ...), so that the list stays closed.
llvm::TargetLibraryInfoImpl importableLibraryInfo(const llvm::Triple &triple);

/// The undefined symbols of `object` (an object file in any format LLVM
/// reads), sorted, each once.
llvm::Expected<std::vector<std::string>>
objectImports(llvm::MemoryBufferRef object);

} // namespace txc

#endif
