//===- Version.h - txc and LLVM version strings -----------------*- C++ -*-===//
#ifndef TXC_SUPPORT_VERSION_H
#define TXC_SUPPORT_VERSION_H

#include <string>

namespace txc {
/// The txc version, e.g. "0.1.0". Recorded in manifests and cache keys.
std::string txcVersion();
/// The LLVM/MLIR version txc was built against, e.g. "19.1.7".
std::string llvmVersion();
} // namespace txc

#endif
