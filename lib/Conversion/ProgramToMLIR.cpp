//===- ProgramToMLIR.cpp - MLIRGen: Program to linalg on tensors ----------===//
#include "txc/Conversion/ProgramToMLIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/StringMap.h"

#include <map>

using namespace txc;
using namespace mlir;

std::string txc::kernelFunctionName(const Contract &contract) {
  return contract.entryPrefix + "_kernel";
}

namespace {

class MLIRGen {
public:
  MLIRGen(MLIRContext &context, const Program &program,
          const Contract &contract)
      : context(context), builder(&context), program(program),
        contract(contract) {}

  OwningOpRef<ModuleOp> run();

private:
  Location loc(const Loc &at, llvm::StringRef name = {}) {
    Location fileLoc =
        at.isKnown()
            ? Location(FileLineColLoc::get(&context, program.file, at.line,
                                           at.column))
            : Location(UnknownLoc::get(&context));
    if (name.empty())
      return fileLoc;
    return NameLoc::get(StringAttr::get(&context, name), fileLoc);
  }

  Type elementType(DType dtype);
  RankedTensorType tensorType(const txc::TensorType &type);
  Value dimValue(const ShapeExpr &dim, Location at);
  SmallVector<Value> dynamicDims(const txc::TensorType &type, Location at);
  Value emptyTensor(const txc::TensorType &type, Location at);
  Value zero(DType dtype, Location at);

  /// A linalg.generic over the result's iteration space; operands of lower
  /// rank or with static 1 dims are broadcast by their indexing maps.
  Value buildElementwise(
      Location at, const txc::TensorType &resultType, ArrayRef<Value> operands,
      ArrayRef<txc::TensorType> operandTypes,
      function_ref<Value(OpBuilder &, Location, ValueRange)> body);
  AffineMap broadcastMap(const txc::TensorType &operand, const txc::TensorType &result);

  Value lowerNode(const Node &node, ArrayRef<Value> operands,
                  ArrayRef<txc::TensorType> operandTypes);
  Value lowerBinary(const Node &node, ArrayRef<Value> operands,
                    ArrayRef<txc::TensorType> operandTypes);
  Value lowerUnary(const Node &node, ArrayRef<Value> operands,
                   ArrayRef<txc::TensorType> operandTypes);
  Value lowerMatMul(const Node &node, ArrayRef<Value> operands);
  Value lowerConstant(const ConstantDecl &constant);

  MLIRContext &context;
  OpBuilder builder;
  const Program &program;
  const Contract &contract;
  llvm::StringMap<std::pair<Value, txc::TensorType>> values;
  SmallVector<Value> symbolArgs;
  std::map<ShapeExpr, Value> dimCache;
};

} // namespace

//===----------------------------------------------------------------------===//
// Types and shapes
//===----------------------------------------------------------------------===//

Type MLIRGen::elementType(DType dtype) {
  switch (dtype) {
  case DType::F32: return builder.getF32Type();
  case DType::F64: return builder.getF64Type();
  case DType::F16: return builder.getF16Type();
  case DType::BF16: return builder.getBF16Type();
  case DType::I8: case DType::U8: return builder.getIntegerType(8);
  case DType::I16: return builder.getIntegerType(16);
  case DType::I32: return builder.getIntegerType(32);
  case DType::I64: return builder.getIntegerType(64);
  case DType::Bool: return builder.getI1Type();
  }
  llvm_unreachable("unknown dtype");
}

RankedTensorType MLIRGen::tensorType(const txc::TensorType &type) {
  SmallVector<int64_t> shape;
  for (const ShapeExpr &dim : type.shape)
    shape.push_back(dim.getConstant().value_or(ShapedType::kDynamic));
  return RankedTensorType::get(shape, elementType(type.dtype));
}

Value MLIRGen::dimValue(const ShapeExpr &dim, Location at) {
  auto cached = dimCache.find(dim);
  if (cached != dimCache.end())
    return cached->second;
  // Materialize sum(coeff * prod(symbols)) on index values. Emitted at the
  // top of the function so that every use is dominated.
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointAfterValue(symbolArgs.empty() ? Value()
                                                         : symbolArgs.back());
  Value sum;
  for (const ShapeExpr::Term &term : dim.terms()) {
    Value product;
    for (uint32_t id : term.symbols)
      product = product ? builder.create<arith::MulIOp>(at, product,
                                                         symbolArgs[id])
                                .getResult()
                        : symbolArgs[id];
    if (!product || term.coeff != 1) {
      Value coeff = builder.create<arith::ConstantIndexOp>(at, term.coeff);
      product = product ? builder.create<arith::MulIOp>(at, product, coeff)
                              .getResult()
                        : coeff;
    }
    sum = sum ? builder.create<arith::AddIOp>(at, sum, product).getResult()
              : product;
  }
  if (!sum)
    sum = builder.create<arith::ConstantIndexOp>(at, 0);
  dimCache[dim] = sum;
  return sum;
}

SmallVector<Value> MLIRGen::dynamicDims(const txc::TensorType &type, Location at) {
  SmallVector<Value> dims;
  for (const ShapeExpr &dim : type.shape)
    if (!dim.isConstant())
      dims.push_back(dimValue(dim, at));
  return dims;
}

Value MLIRGen::emptyTensor(const txc::TensorType &type, Location at) {
  return builder.create<tensor::EmptyOp>(at, tensorType(type),
                                         dynamicDims(type, at));
}

Value MLIRGen::zero(DType dtype, Location at) {
  Type type = elementType(dtype);
  return builder.create<arith::ConstantOp>(at, builder.getZeroAttr(type));
}

AffineMap MLIRGen::broadcastMap(const txc::TensorType &operand,
                                const txc::TensorType &result) {
  unsigned rank = result.rank();
  unsigned offset = rank - operand.rank();
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < operand.rank(); ++i) {
    bool stretched = operand.shape[i].getConstant() == 1 &&
                     result.shape[offset + i].getConstant() != 1;
    exprs.push_back(stretched ? builder.getAffineConstantExpr(0)
                              : builder.getAffineDimExpr(offset + i));
  }
  return AffineMap::get(rank, 0, exprs, &context);
}

Value MLIRGen::buildElementwise(
    Location at, const txc::TensorType &resultType, ArrayRef<Value> operands,
    ArrayRef<txc::TensorType> operandTypes,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> maps;
  for (const txc::TensorType &type : operandTypes)
    maps.push_back(broadcastMap(type, resultType));
  maps.push_back(builder.getMultiDimIdentityMap(resultType.rank()));
  SmallVector<utils::IteratorType> iterators(resultType.rank(),
                                             utils::IteratorType::parallel);
  Value init = emptyTensor(resultType, at);
  auto generic = builder.create<linalg::GenericOp>(
      at, TypeRange{tensorType(resultType)}, ValueRange(operands),
      ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value result = body(b, l, args.drop_back());
        b.create<linalg::YieldOp>(l, result);
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// Integer division that is defined for every input: truncates toward zero,
/// x / 0 == 0 and INT_MIN / -1 == INT_MIN (docs/ops.md), so the object never
/// traps on data.
static Value safeIntDiv(OpBuilder &b, Location at, Value lhs, Value rhs,
                        bool isSigned) {
  Type type = lhs.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Value zero = b.create<arith::ConstantOp>(at, b.getIntegerAttr(type, 0));
  Value one = b.create<arith::ConstantOp>(at, b.getIntegerAttr(type, 1));
  Value isZero =
      b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, rhs, zero);
  Value bad = isZero;
  if (isSigned) {
    Value minusOne =
        b.create<arith::ConstantOp>(at, b.getIntegerAttr(type, -1));
    Value minValue = b.create<arith::ConstantOp>(
        at, b.getIntegerAttr(type, llvm::APInt::getSignedMinValue(width)));
    Value overflow = b.create<arith::AndIOp>(
        at, b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, lhs, minValue),
        b.create<arith::CmpIOp>(at, arith::CmpIPredicate::eq, rhs, minusOne));
    bad = b.create<arith::OrIOp>(at, isZero, overflow);
  }
  Value safeRhs = b.create<arith::SelectOp>(at, bad, one, rhs);
  Value quotient =
      isSigned ? b.create<arith::DivSIOp>(at, lhs, safeRhs).getResult()
               : b.create<arith::DivUIOp>(at, lhs, safeRhs).getResult();
  // x / -1 for INT_MIN: the quotient of INT_MIN / 1 is INT_MIN, as required.
  return b.create<arith::SelectOp>(at, isZero, zero, quotient);
}

Value MLIRGen::lowerBinary(const Node &node, ArrayRef<Value> operands,
                           ArrayRef<txc::TensorType> operandTypes) {
  DType dtype = node.resultTypes[0].dtype;
  bool isFloatType = isFloat(dtype);
  OpKind kind = node.kind;
  return buildElementwise(
      loc(node.loc, node.name), node.resultTypes[0], operands, operandTypes,
      [&](OpBuilder &b, Location at, ValueRange args) -> Value {
        Value x = args[0], y = args[1];
        switch (kind) {
        case OpKind::Add:
          return isFloatType ? b.create<arith::AddFOp>(at, x, y).getResult()
                             : b.create<arith::AddIOp>(at, x, y).getResult();
        case OpKind::Sub:
          return isFloatType ? b.create<arith::SubFOp>(at, x, y).getResult()
                             : b.create<arith::SubIOp>(at, x, y).getResult();
        case OpKind::Mul:
          return isFloatType ? b.create<arith::MulFOp>(at, x, y).getResult()
                             : b.create<arith::MulIOp>(at, x, y).getResult();
        case OpKind::Div:
          return isFloatType ? b.create<arith::DivFOp>(at, x, y).getResult()
                             : safeIntDiv(b, at, x, y, isSigned(dtype));
        default:
          llvm_unreachable("not a binary op");
        }
      });
}

Value MLIRGen::lowerUnary(const Node &node, ArrayRef<Value> operands,
                          ArrayRef<txc::TensorType> operandTypes) {
  DType dtype = node.resultTypes[0].dtype;
  OpKind kind = node.kind;
  return buildElementwise(
      loc(node.loc, node.name), node.resultTypes[0], operands, operandTypes,
      [&](OpBuilder &b, Location at, ValueRange args) -> Value {
        Value x = args[0];
        switch (kind) {
        case OpKind::Relu: {
          if (dtype == DType::U8)
            return x;
          Value zeroValue = b.create<arith::ConstantOp>(
              at, b.getZeroAttr(x.getType()));
          // maximumf propagates NaN, as relu does in PyTorch.
          return isFloat(dtype)
                     ? b.create<arith::MaximumFOp>(at, x, zeroValue).getResult()
                     : b.create<arith::MaxSIOp>(at, x, zeroValue).getResult();
        }
        default:
          llvm_unreachable("not a unary op");
        }
      });
}

Value MLIRGen::lowerMatMul(const Node &node, ArrayRef<Value> operands) {
  Location at = loc(node.loc, node.name);
  const txc::TensorType &resultType = node.resultTypes[0];
  Value init = emptyTensor(resultType, at);
  Value filled =
      builder.create<linalg::FillOp>(at, zero(resultType.dtype, at), init)
          .getResult(0);
  return builder
      .create<linalg::MatmulOp>(at, TypeRange{tensorType(resultType)},
                                ValueRange{operands[0], operands[1]},
                                ValueRange{filled})
      .getResult(0);
}

Value MLIRGen::lowerNode(const Node &node, ArrayRef<Value> operands,
                         ArrayRef<txc::TensorType> operandTypes) {
  switch (node.kind) {
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
    return lowerBinary(node, operands, operandTypes);
  case OpKind::Relu:
    return lowerUnary(node, operands, operandTypes);
  case OpKind::MatMul:
    return lowerMatMul(node, operands);
  case OpKind::Broadcast:
    return buildElementwise(
        loc(node.loc, node.name), node.resultTypes[0], operands, operandTypes,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  case OpKind::Unknown:
    break;
  }
  llvm_unreachable("op without a lowering");
}

Value MLIRGen::lowerConstant(const ConstantDecl &constant) {
  RankedTensorType type = tensorType(constant.type);
  DenseElementsAttr attr;
  if (constant.type.dtype == DType::Bool) {
    // i1 elements are bit-packed in DenseElementsAttr's raw storage.
    SmallVector<bool> bits;
    for (uint8_t byte : constant.data.bytes())
      bits.push_back(byte != 0);
    attr = DenseElementsAttr::get(type, bits);
  } else {
    ArrayRef<char> raw(reinterpret_cast<const char *>(constant.data.data),
                       constant.data.size);
    attr = DenseElementsAttr::getFromRawBuffer(type, raw);
  }
  return builder.create<arith::ConstantOp>(
      loc(constant.loc, constant.name), type, attr);
}

//===----------------------------------------------------------------------===//
// The kernel function
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> MLIRGen::run() {
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(loc(program.nameLoc), program.name);
  builder.setInsertionPointToEnd(module->getBody());

  SmallVector<Type> argTypes, resultTypes;
  for (size_t i = 0; i < contract.symbols.size(); ++i)
    argTypes.push_back(builder.getIndexType());
  for (const ContractTensor &input : contract.inputs)
    argTypes.push_back(tensorType(input.type));
  for (const ContractTensor &output : contract.outputs) {
    argTypes.push_back(tensorType(output.type));
    resultTypes.push_back(tensorType(output.type));
  }
  auto function = builder.create<func::FuncOp>(
      loc(program.nameLoc), kernelFunctionName(contract),
      builder.getFunctionType(argTypes, resultTypes));
  size_t numSymbols = contract.symbols.size();
  size_t numInputs = contract.inputs.size();
  // Inputs belong to the caller: bufferization must never write into them.
  for (size_t i = 0; i < numInputs; ++i)
    function.setArgAttr(numSymbols + i, "bufferization.writable",
                        builder.getBoolAttr(false));

  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  for (size_t i = 0; i < numSymbols; ++i)
    symbolArgs.push_back(entry->getArgument(i));
  for (size_t i = 0; i < numInputs; ++i)
    values[contract.inputs[i].name] = {entry->getArgument(numSymbols + i),
                                       contract.inputs[i].type};
  for (const ConstantDecl &constant : program.constants)
    values[constant.name] = {lowerConstant(constant), constant.type};

  for (const Node &node : program.body.nodes) {
    SmallVector<Value> operands;
    SmallVector<txc::TensorType> operandTypes;
    for (const std::string &name : node.operands) {
      auto &entryValue = values[name];
      operands.push_back(entryValue.first);
      operandTypes.push_back(entryValue.second);
    }
    Value result = lowerNode(node, operands, operandTypes);
    values[node.name] = {result, node.resultTypes[0]};
  }

  SmallVector<Value> results;
  // The first output of each value; a value returned under several names is
  // computed into the first one's buffer and copied from there, since one
  // tensor cannot be materialized into two destinations.
  llvm::StringMap<size_t> firstOutput;
  for (size_t o = 0; o < contract.outputs.size(); ++o) {
    const ContractTensor &output = contract.outputs[o];
    Value dest = entry->getArgument(numSymbols + numInputs + o);
    auto [first, inserted] = firstOutput.try_emplace(output.value, o);
    Value value = inserted ? values[output.value].first
                           : results[first->second];
    results.push_back(builder
                          .create<bufferization::MaterializeInDestinationOp>(
                              loc(output.loc, output.name), value, dest)
                          .getResult());
  }
  builder.create<func::ReturnOp>(loc(program.nameLoc), results);

  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> txc::lowerProgramToMLIR(MLIRContext &context,
                                              const Program &program,
                                              const Contract &contract) {
  return MLIRGen(context, program, contract).run();
}
