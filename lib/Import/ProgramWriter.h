//===- ProgramWriter.h - The imported program as files ----------*- C++ -*-===//
#ifndef TXC_LIB_IMPORT_PROGRAMWRITER_H
#define TXC_LIB_IMPORT_PROGRAMWRITER_H

#include "txc/Program/Program.h"

#include <map>
#include <string>
#include <vector>

namespace txc::onnximport {

struct ImportedProgram {
  const Program &program;
  std::string description;
  /// Per symbol, input, constant and node name.
  const std::map<std::string, std::string> &descriptions;
  /// Per output name.
  const std::map<std::string, std::string> &outputDescriptions;
};

/// The program file (docs/program-format.md), deterministic.
std::string writeProgramJson(const ImportedProgram &imported);

/// The .safetensors file of the constants stored in it (`file` set), each
/// under its `tensor` name; "" when there are none.
std::string writeSafetensors(const std::vector<ConstantDecl> &constants);

} // namespace txc::onnximport

#endif
