//===- Version.cpp --------------------------------------------------------===//
#include "txc/Support/Version.h"

#include "llvm/Config/llvm-config.h"

#ifndef TXC_VERSION_STRING
#error "TXC_VERSION_STRING must be defined by the build"
#endif

std::string txc::txcVersion() { return TXC_VERSION_STRING; }
std::string txc::llvmVersion() { return LLVM_VERSION_STRING; }
