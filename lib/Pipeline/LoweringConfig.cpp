//===- LoweringConfig.cpp - The codegen strategy as data ------------------===//
//
// The table of tuning constants per vector target, and the accessors of the
// `txc.lowering_config` attribute (LoweringConfig.h).
//
//===----------------------------------------------------------------------===//
#include "LoweringConfig.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace txc {
namespace {

/// One row per vector width and register file. The rows differ only in
/// the vector width and MR today; the other constants were measured on
/// AVX2 (Zen 3) and kept for the other targets.
constexpr TargetTuning kTuningTable[] = {
    // name, bits, registers, MR, NR vectors, NC, KC, small weight,
    // pack rows, dot-product columns, elementwise vectors, max vector
    // elements, conv filter tile, conv column vectors, conv row tile
    // (channels, columns, elements), flat conv max filters and channel
    // block, depthwise taps
    {"sse-neon", 128, 0, 6, 2, 128, 1024, 256, 16, 4, 4, 4096, 4, 2, 8, 16, 256, 64, 64, 25},
    {"neon-32", 128, 32, 8, 2, 128, 1024, 256, 16, 4, 4, 4096, 4, 2, 8, 16, 256, 64, 64, 25},
    {"avx2", 256, 0, 6, 2, 128, 1024, 256, 16, 4, 4, 4096, 4, 2, 8, 16, 256, 64, 64, 25},
    {"avx2-32", 256, 32, 8, 2, 128, 1024, 256, 16, 4, 4, 4096, 4, 2, 8, 16, 256, 64, 64, 25},
    {"avx512-16", 512, 0, 6, 2, 128, 1024, 256, 16, 4, 4, 4096, 4, 2, 8, 16, 256, 64, 64, 25},
    {"avx512", 512, 32, 8, 2, 128, 1024, 256, 16, 4, 4, 4096, 4, 2, 8, 16, 256, 64, 64, 25},
};

} // namespace

const TargetTuning *lookupTuning(VectorTarget target) {
  const TargetTuning *found = nullptr;
  for (const TargetTuning &row : kTuningTable)
    if (row.vectorBits == target.vectorBits &&
        target.vectorRegisters >= row.minRegisters)
      found = &row;
  return found;
}

DictionaryAttr getLoweringConfig(Operation *op) {
  return op->getAttrOfType<DictionaryAttr>(kLoweringConfig);
}

bool hasStrategy(Operation *op, StringRef strategy) {
  DictionaryAttr config = getLoweringConfig(op);
  return config && getString(config, "strategy") == strategy;
}

DictionaryAttr takeLoweringConfig(Operation *op, StringRef strategy) {
  if (!hasStrategy(op, strategy))
    return {};
  DictionaryAttr config = getLoweringConfig(op);
  op->removeAttr(kLoweringConfig);
  return config;
}

void clearLoweringConfigs(Operation *root) {
  root->walk([](Operation *op) { op->removeAttr(kLoweringConfig); });
}

StringRef getString(DictionaryAttr config, StringRef name) {
  auto value = config.getAs<StringAttr>(name);
  return value ? value.getValue() : StringRef();
}

SmallVector<int64_t> getSizes(DictionaryAttr config, StringRef name) {
  auto value = config.getAs<DenseI64ArrayAttr>(name);
  return value ? SmallVector<int64_t>(value.asArrayRef())
               : SmallVector<int64_t>();
}

int64_t getInt(DictionaryAttr config, StringRef name) {
  auto value = config.getAs<IntegerAttr>(name);
  return value ? value.getInt() : 0;
}

bool getBool(DictionaryAttr config, StringRef name) {
  auto value = config.getAs<BoolAttr>(name);
  return value && value.getValue();
}

DictionaryAttr getDictionary(DictionaryAttr config, StringRef name) {
  return config.getAs<DictionaryAttr>(name);
}

} // namespace txc
