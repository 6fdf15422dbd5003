//===- LinearAlgebra.cpp - ONNX MatMul, Gemm and Einsum -------------------===//
#include "../Importer.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>

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

//===----------------------------------------------------------------------===//
// Einsum-12 as txc's sum, transpose, reshape and matmul: a contraction of
// two operands is a batched matrix product once the letters are grouped
// (batch, kept-left, contracted / batch, contracted, kept-right), which is
// what the matmul computes with txc's best code.
//===----------------------------------------------------------------------===//

/// An operand (or the result) of an einsum and its letters, one per dim.
struct Lettered {
  MaybeValue value;
  std::string letters;
};

/// The terms of an equation without spaces ("bij,bjk->bik"); the implicit
/// output (no "->") is the letters that appear once, in alphabetical
/// order, as ONNX says. An error text when txc cannot take it.
std::optional<std::string> parseEinsum(std::string equation,
                                       std::vector<std::string> &inputs,
                                       std::string &output) {
  llvm::erase_if(equation, [](char c) { return c == ' '; });
  if (equation.find('.') != std::string::npos)
    return "its equation has an ellipsis ('...'), which txc's importer does "
           "not expand yet";
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  for (size_t begin = 0;;) {
    size_t comma = lhs.find(',', begin);
    inputs.push_back(lhs.substr(begin, comma - begin));
    if (comma == std::string::npos)
      break;
    begin = comma + 1;
  }
  std::map<char, int> count;
  for (const std::string &term : inputs)
    for (char c : term) {
      if (!std::isalpha(static_cast<unsigned char>(c)))
        return "its equation has the character '" + std::string(1, c) + "'";
      if (llvm::count(term, c) > 1)
        return "the letter '" + std::string(1, c) +
               "' repeats within one operand (a diagonal), which txc has no "
               "op for";
      ++count[c];
    }
  if (arrow == std::string::npos) {
    for (auto [c, n] : count)
      if (n == 1)
        output.push_back(c);
    return std::nullopt;
  }
  output = equation.substr(arrow + 2);
  for (char c : output)
    if (!count.count(c) || llvm::count(output, c) > 1)
      return "its output letter '" + std::string(1, c) +
             "' is repeated or in no operand";
  return std::nullopt;
}

/// Sums the dims whose letters are not in `keep` away.
Lettered sumOut(NodeImporter &node, Lettered in, llvm::StringRef keep) {
  std::vector<int64_t> axes;
  std::string kept;
  for (size_t d = 0; d < in.letters.size(); ++d) {
    if (keep.contains(in.letters[d]))
      kept.push_back(in.letters[d]);
    else
      axes.push_back(d);
  }
  if (axes.empty())
    return in;
  return {emitIf(node, "sum", {in.value},
                 {intListAttr("axes", axes), boolAttr("keepdims", false)}),
          kept};
}

/// Transposes to the letters of `order` (a permutation of in.letters).
Lettered permuteTo(NodeImporter &node, Lettered in, const std::string &order) {
  if (in.letters == order)
    return in;
  std::vector<int64_t> perm;
  for (char c : order)
    perm.push_back(in.letters.find(c));
  return {emitIf(node, "transpose", {in.value}, {intListAttr("perm", perm)}),
          order};
}

MaybeValue reshapeTo(NodeImporter &node, MaybeValue value, const Shape &shape) {
  if (!value || value->type.shape == shape)
    return value;
  return node.emit("reshape", {*value},
                   {shapeAttr("shape", shape, node.program().symbolNames())});
}

/// The dim of each letter, from the operands.
using LetterDims = std::map<char, ShapeExpr>;

ShapeExpr productOf(const LetterDims &dims, const std::string &letters) {
  ShapeExpr product = ShapeExpr::constant(1);
  for (char c : letters)
    product = *ShapeExpr::mul(product, dims.at(c));
  return product;
}

Shape dimsOf(const LetterDims &dims, const std::string &letters) {
  Shape shape;
  for (char c : letters)
    shape.push_back(dims.at(c));
  return shape;
}

/// A · B over their shared letters, as one batched matmul.
Lettered contract(NodeImporter &node, Lettered a, Lettered b,
                  const std::string &output, const LetterDims &dims) {
  std::string batch, left, right, inner;
  for (char c : output) {
    bool inA = a.letters.find(c) != std::string::npos;
    bool inB = b.letters.find(c) != std::string::npos;
    (inA && inB ? batch : inA ? left : right).push_back(c);
  }
  for (char c : a.letters)
    if (b.letters.find(c) != std::string::npos &&
        output.find(c) == std::string::npos)
      inner.push_back(c);
  a = permuteTo(node, a, batch + left + inner);
  b = permuteTo(node, b, batch + inner + right);
  Shape batchDims = dimsOf(dims, batch);
  auto matrix = [&](const std::string &rows, const std::string &cols) {
    Shape shape = batchDims;
    shape.push_back(productOf(dims, rows));
    shape.push_back(productOf(dims, cols));
    return shape;
  };
  MaybeValue product =
      emitIf(node, "matmul",
             {reshapeTo(node, a.value, matrix(left, inner)),
              reshapeTo(node, b.value, matrix(inner, right))});
  return {reshapeTo(node, product, dimsOf(dims, batch + left + right)),
          batch + left + right};
}

llvm::LogicalResult convertEinsum(NodeImporter &node) {
  std::vector<std::string> terms;
  std::string output;
  if (std::optional<std::string> error =
          parseEinsum(node.stringAttr("equation", ""), terms, output))
    return node.unsupported(*error, "");
  if (terms.size() != node.numInputs())
    return node.invalid("its equation has " + llvm::Twine(terms.size()) +
                        " operands, not " + llvm::Twine(node.numInputs()));
  if (terms.size() > 2)
    return node.unsupported("it has " + llvm::Twine(terms.size()) +
                                " operands; txc's importer contracts one or "
                                "two",
                            "write it as a chain of two-operand Einsums");
  LetterDims dims;
  std::vector<Lettered> operands;
  for (unsigned i = 0; i < terms.size(); ++i) {
    const ImportedValue &input = node.input(i);
    if (input.type.rank() != terms[i].size())
      return node.invalid("its operand " + llvm::Twine(i) + " has rank " +
                          llvm::Twine(input.type.rank()) + ", not the " +
                          llvm::Twine(terms[i].size()) + " of '" + terms[i] +
                          "'");
    for (size_t d = 0; d < terms[i].size(); ++d) {
      auto [it, inserted] =
          dims.emplace(terms[i][d], input.type.shape[d]);
      if (!inserted && !(it->second == input.type.shape[d]))
        return node.unsupported(
            "the letter '" + llvm::Twine(terms[i][d]) + "' is the dim " +
                node.str({it->second}) + " in one operand and " +
                node.str({input.type.shape[d]}) + " in another",
            "txc's einsum does not broadcast");
    }
    operands.push_back({input, terms[i]});
  }
  // A letter of one operand only that the output drops is summed first.
  for (unsigned i = 0; i < operands.size(); ++i) {
    std::string keep = output + (operands.size() == 2 ? terms[1 - i] : "");
    operands[i] = sumOut(node, operands[i], keep);
  }
  Lettered result = operands.size() == 1
                        ? operands[0]
                        : contract(node, operands[0], operands[1], output, dims);
  return outputIf(node, permuteTo(node, result, output).value);
}

} // namespace

void txc::onnximport::addLinearAlgebraConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(table.end(), {
                                {"MatMul", 13, 17, convertMatMul},
                                {"Gemm", 13, 17, convertGemm},
                                {"Einsum", 12, 17, convertEinsum},
                            });
}
