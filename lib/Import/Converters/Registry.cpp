//===- Registry.cpp - The table of ONNX op converters ---------------------===//
//
// One entry per ONNX op type and opset range; each family of ops adds its
// entries from its own file. Models are converted to kOnnxTargetOpset
// first, so each converter implements the op's version at that opset
// (`sinceOpset` names it: Softmax-13 is the Softmax of opsets 13 to 17).
//
//===----------------------------------------------------------------------===//
#include "../Importer.h"

#include "llvm/ADT/STLExtras.h"

using namespace txc;
using namespace txc::onnximport;

const std::vector<ConverterEntry> &txc::onnximport::allConverters() {
  static const std::vector<ConverterEntry> table = [] {
    std::vector<ConverterEntry> entries;
    addElementwiseConverters(entries);
    addLinearAlgebraConverters(entries);
    addConvolutionConverters(entries);
    addShapeConverters(entries);
    addIndexingConverters(entries);
    addNormalizationConverters(entries);
    addQuantizationConverters(entries);
    addResizeConverters(entries);
    addControlFlowConverters(entries);
    addRecurrentConverters(entries);
    llvm::sort(entries, [](const ConverterEntry &a, const ConverterEntry &b) {
      int order = llvm::StringRef(a.opType).compare(b.opType);
      return order != 0 ? order < 0 : a.sinceOpset < b.sinceOpset;
    });
    return entries;
  }();
  return table;
}

const ConverterEntry *txc::onnximport::findConverter(llvm::StringRef opType,
                                                     int64_t opset) {
  for (const ConverterEntry &entry : allConverters())
    if (opType == entry.opType && entry.sinceOpset <= opset &&
        opset <= entry.untilOpset)
      return &entry;
  return nullptr;
}
