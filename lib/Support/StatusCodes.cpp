//===- StatusCodes.cpp - Names and meanings of the status codes -----------===//
#include "txc/Support/StatusCodes.h"

using namespace txc;

bool txc::canReturn(const StatusCodeInfo &code, bool externalWeights,
                    bool needsWorkspace) {
  switch (code.scope) {
  case StatusCodeScope::Guards: return true;
  case StatusCodeScope::ExternalWeights: return externalWeights;
  case StatusCodeScope::Workspace: return needsWorkspace;
  }
  return false;
}

const StatusCodeInfo *txc::findStatusCode(StatusCode code) {
  for (const StatusCodeInfo &info : kStatusCodes)
    if (info.code == code)
      return &info;
  return nullptr;
}

llvm::StringRef txc::statusCodeMacro(StatusCode code) {
  const StatusCodeInfo *info = findStatusCode(code);
  return info ? llvm::StringRef(info->macro) : "unknown";
}

llvm::StringRef txc::statusCodeName(StatusCode code) {
  const StatusCodeInfo *info = findStatusCode(code);
  return info ? llvm::StringRef(info->name) : "unknown";
}

llvm::StringRef txc::statusCodeDescription(StatusCode code) {
  const StatusCodeInfo *info = findStatusCode(code);
  return info ? llvm::StringRef(info->meaning) : "unknown status code";
}
