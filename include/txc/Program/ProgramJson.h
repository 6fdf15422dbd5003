//===- ProgramJson.h - Program model pieces as JSON -------------*- C++ -*-===//
//
// The JSON spelling of shapes and source locations, shared by the manifest
// (lib/Target/Manifest.cpp) and `txc explain` (lib/Tools/Explain.cpp) so
// that both describe a program the same way.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PROGRAM_PROGRAMJSON_H
#define TXC_PROGRAM_PROGRAMJSON_H

#include "txc/Program/Program.h"
#include "txc/Support/Diagnostics.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace txc {

/// A shape as an array of dims: integers, or expressions over `names`
/// (the symbols) such as "2*S+1".
nlohmann::ordered_json shapeToJson(const Shape &shape,
                                   const std::vector<std::string> &names);

/// {"file", "line", "column", "pointer"}; line and column only when known.
nlohmann::ordered_json locationToJson(const std::string &file, const Loc &loc);

} // namespace txc

#endif
