//===- LinearAlgebra.cpp - ONNX MatMul and Gemm ---------------------------===//
#include "../Importer.h"

using namespace txc;
using namespace txc::onnximport;

namespace {

/// MatMul-13 is numpy's matmul, as txc's.
llvm::LogicalResult convertMatMul(NodeImporter &node) {
  return node.emitOutput(0, "matmul", {node.input(0), node.input(1)});
}

/// Gemm-13. PyTorch's Linear is Gemm(x, W, b) with transB = 1: that is
/// txc's `linear` exactly (x·Wᵀ + b, factors of 1 not applied), which has
/// the better code; anything else is txc's `gemm`, ONNX's definition.
llvm::LogicalResult convertGemm(NodeImporter &node) {
  float alpha = node.floatAttr("alpha", 1.0f);
  float beta = node.floatAttr("beta", 1.0f);
  bool transA = node.intAttr("transA", 0) != 0;
  bool transB = node.intAttr("transB", 0) != 0;
  bool hasC = node.hasInput(2);
  std::vector<ImportedValue> operands = {node.input(0), node.input(1)};
  if (hasC)
    operands.push_back(node.input(2));
  bool cIsRow = !hasC || (node.input(2).type.rank() == 1 &&
                          node.input(1).type.rank() == 2 &&
                          node.input(2).type.shape[0] ==
                              node.input(1).type.shape[0]);
  if (!transA && transB && alpha == 1.0f && (beta == 1.0f || !hasC) &&
      cIsRow)
    return node.emitOutput(0, "linear", operands);
  return node.emitOutput(0, "gemm", operands,
                         {boolAttr("trans_a", transA),
                          boolAttr("trans_b", transB),
                          floatAttr("alpha", alpha), floatAttr("beta", beta)});
}

} // namespace

void txc::onnximport::addLinearAlgebraConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(table.end(), {
                                {"MatMul", 13, 17, convertMatMul},
                                {"Gemm", 13, 17, convertGemm},
                            });
}
