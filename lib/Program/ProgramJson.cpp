//===- ProgramJson.cpp - Program model pieces as JSON ---------------------===//
#include "txc/Program/ProgramJson.h"

using namespace txc;
using json = nlohmann::ordered_json;

json txc::shapeToJson(const Shape &shape,
                      const std::vector<std::string> &names) {
  json dims = json::array();
  for (const ShapeExpr &dim : shape) {
    if (auto value = dim.getConstant())
      dims.push_back(*value);
    else
      dims.push_back(dim.toString(names));
  }
  return dims;
}

json txc::locationToJson(const std::string &file, const Loc &loc) {
  json result;
  result["file"] = file;
  if (loc.isKnown()) {
    result["line"] = loc.line;
    result["column"] = loc.column;
  }
  result["pointer"] = loc.pointer;
  return result;
}
