//===- ProgramToMLIR.cpp - MLIRGen: Program to linalg on tensors ----------===//
//
// The core of MLIRGen: the kernel function, types, symbolic dims, constants,
// and the walk over the graph. Ops are lowered by their family's file in
// Lowering/.
//
//===----------------------------------------------------------------------===//
#include "txc/Conversion/ProgramToMLIR.h"
#include "MLIRGen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ErrorHandling.h"

using namespace txc;
using namespace mlir;

std::string txc::kernelFunctionName(const Contract &contract) {
  return contract.entryPrefix + "_kernel";
}

std::string txc::regionFunctionName(const Contract &contract,
                                    unsigned function) {
  return contract.entryPrefix + "_region" + std::to_string(function);
}

static const LoweringTable &lowerings() {
  static const LoweringTable table = [] {
    LoweringTable t;
    registerElementwiseLowerings(t);
    registerLinearAlgebraLowerings(t);
    registerShapeOpLowerings(t);
    registerReductionLowerings(t);
    registerConvolutionLowerings(t);
    registerControlFlowLowerings(t);
    registerIndexingLowerings(t);
    return t;
  }();
  return table;
}

bool txc::hasLowering(OpKind kind) { return lowerings().lookup(kind); }

MLIRGen::MLIRGen(MLIRContext &context, const Program &program,
                 const Contract &contract, const RegionOptions &regionOptions)
    : ctx(context), b(&context), prog(program), contract(contract),
      regionOptions(regionOptions) {}

//===----------------------------------------------------------------------===//
// Types, dims and helpers
//===----------------------------------------------------------------------===//

Location MLIRGen::loc(const Loc &at, llvm::StringRef name) {
  Location fileLoc =
      at.isKnown()
          ? Location(FileLineColLoc::get(&ctx, prog.file, at.line, at.column))
          : Location(UnknownLoc::get(&ctx));
  if (name.empty())
    return fileLoc;
  return NameLoc::get(StringAttr::get(&ctx, name), fileLoc);
}

Type MLIRGen::elementType(DType dtype) {
  switch (dtype) {
  case DType::F32: return b.getF32Type();
  case DType::F64: return b.getF64Type();
  case DType::F16: return b.getF16Type();
  case DType::BF16: return b.getBF16Type();
  case DType::I8: case DType::U8: return b.getIntegerType(8);
  case DType::I16: case DType::U16: return b.getIntegerType(16);
  case DType::I32: case DType::U32: return b.getIntegerType(32);
  case DType::I64: case DType::U64: return b.getIntegerType(64);
  case DType::Bool: return b.getI1Type();
  }
  llvm_unreachable("unknown dtype");
}

RankedTensorType MLIRGen::tensorType(const TensorType &type) {
  SmallVector<int64_t> shape;
  for (const ShapeExpr &dim : type.shape)
    shape.push_back(dim.getConstant().value_or(ShapedType::kDynamic));
  return RankedTensorType::get(shape, elementType(type.dtype));
}

namespace {
/// ShapeExpr::fold operations on index values. Floor division and modulo
/// round toward negative infinity (an operand such as S-1 may be negative
/// although the dim is not): arith.floordivsi, and remsi corrected by the
/// divisor when negative.
struct IndexExprOps {
  OpBuilder &b;
  Location at;
  ArrayRef<Value> symbols;

  Value constant(int64_t value) {
    return b.create<arith::ConstantIndexOp>(at, value);
  }
  Value symbol(uint32_t id) { return symbols[id]; }
  Value add(Value x, Value y) { return b.create<arith::AddIOp>(at, x, y); }
  Value mul(Value x, Value y) { return b.create<arith::MulIOp>(at, x, y); }
  Value exactDiv(Value x, int64_t d) {
    return b.create<arith::DivSIOp>(at, x, constant(d));
  }
  Value floorDiv(Value x, int64_t d) {
    return b.create<arith::FloorDivSIOp>(at, x, constant(d));
  }
  Value mod(Value x, int64_t d) {
    Value divisor = constant(d);
    Value remainder = b.create<arith::RemSIOp>(at, x, divisor);
    Value negative = b.create<arith::CmpIOp>(at, arith::CmpIPredicate::slt,
                                             remainder, constant(0));
    return b.create<arith::SelectOp>(
        at, negative, b.create<arith::AddIOp>(at, remainder, divisor),
        remainder);
  }
};

/// ShapeExpr::fold operations building an affine expression of the symbols
/// (`s<id>`). Products of symbols are semi-affine, which affine expressions
/// hold; AffineExpr's floordiv and mod round like ShapeExpr's.
struct AffineShapeOps {
  MLIRContext *context;

  AffineExpr constant(int64_t value) {
    return getAffineConstantExpr(value, context);
  }
  AffineExpr symbol(uint32_t id) { return getAffineSymbolExpr(id, context); }
  AffineExpr add(AffineExpr x, AffineExpr y) { return x + y; }
  AffineExpr mul(AffineExpr x, AffineExpr y) { return x * y; }
  AffineExpr exactDiv(AffineExpr x, int64_t d) { return x.floorDiv(d); }
  AffineExpr floorDiv(AffineExpr x, int64_t d) { return x.floorDiv(d); }
  AffineExpr mod(AffineExpr x, int64_t d) { return x % d; }
};
} // namespace

void MLIRGen::recordArgumentDims(func::FuncOp function, unsigned argument,
                                 const TensorType &type) {
  if (llvm::all_of(type.shape,
                   [](const ShapeExpr &dim) { return dim.isConstant(); }))
    return;
  AffineShapeOps ops{&ctx};
  SmallVector<AffineExpr> dims;
  for (const ShapeExpr &dim : type.shape)
    dims.push_back(dim.fold(ops));
  auto map = AffineMap::get(/*dimCount=*/0, contract.symbols.size(), dims,
                            &ctx);
  function.setArgAttr(argument, kArgumentDimsAttr, AffineMapAttr::get(map));
}

Value MLIRGen::dimValue(const ShapeExpr &dim, Location at) {
  auto cached = dimCache.find(dim);
  if (cached != dimCache.end())
    return cached->second;
  // Emitted right after the symbol arguments so that it dominates every
  // use, in any region.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(symbolArgs.back());
  IndexExprOps ops{b, at, symbolArgs};
  Value value = dim.fold(ops);
  dimCache[dim] = value;
  return value;
}

SmallVector<Value> MLIRGen::dynamicDims(const TensorType &type, Location at) {
  SmallVector<Value> dims;
  for (const ShapeExpr &dim : type.shape)
    if (!dim.isConstant())
      dims.push_back(dimValue(dim, at));
  return dims;
}

Value MLIRGen::emptyTensor(const TensorType &type, Location at) {
  return b.create<tensor::EmptyOp>(at, tensorType(type), dynamicDims(type, at));
}

Value MLIRGen::scalar(DType dtype, double value, Location at) {
  return scalar(b, dtype, value, at);
}

Value MLIRGen::scalar(OpBuilder &builder, DType dtype, double value,
                      Location at) {
  Type type = elementType(dtype);
  TypedAttr attr = isFloat(dtype)
                       ? TypedAttr(builder.getFloatAttr(type, value))
                       : TypedAttr(builder.getIntegerAttr(type, int64_t(value)));
  return builder.create<arith::ConstantOp>(at, attr);
}

AffineMap MLIRGen::broadcastMap(const TensorType &operand,
                                const TensorType &result) {
  unsigned rank = result.rank();
  unsigned offset = rank - operand.rank();
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < operand.rank(); ++i) {
    bool stretched = operand.shape[i].getConstant() == 1 &&
                     result.shape[offset + i].getConstant() != 1;
    exprs.push_back(stretched ? b.getAffineConstantExpr(0)
                              : b.getAffineDimExpr(offset + i));
  }
  return AffineMap::get(rank, 0, exprs, &ctx);
}

Value MLIRGen::buildElementwise(
    Location at, const TensorType &resultType, ArrayRef<Value> operands,
    ArrayRef<TensorType> operandTypes,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<AffineMap> maps;
  for (const TensorType &type : operandTypes)
    maps.push_back(broadcastMap(type, resultType));
  maps.push_back(b.getMultiDimIdentityMap(resultType.rank()));
  SmallVector<utils::IteratorType> iterators(resultType.rank(),
                                             utils::IteratorType::parallel);
  Value init = emptyTensor(resultType, at);
  auto generic = b.create<linalg::GenericOp>(
      at, TypeRange{tensorType(resultType)}, ValueRange(operands),
      ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location l, ValueRange args) {
        Value result = body(nested, l, args.drop_back());
        nested.create<linalg::YieldOp>(l, result);
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// Values, nodes and graphs
//===----------------------------------------------------------------------===//

const MLIRGen::ScopedValue *MLIRGen::lookup(llvm::StringRef name) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end())
      return &found->second;
  }
  return nullptr;
}

void MLIRGen::define(llvm::StringRef name, Value value,
                     const TensorType &type) {
  scopes.back()[name] = ScopedValue{value, type};
}

LogicalResult MLIRGen::lowerNode(const Node &node) {
  SmallVector<Value> operands;
  SmallVector<TensorType> operandTypes;
  for (const std::string &name : node.operands) {
    const ScopedValue *value = lookupOrMaterialize(name);
    if (!value)
      return emitError(loc(node.loc, node.name))
             << "internal error: operand '" << name << "' has no value";
    operands.push_back(value->value);
    operandTypes.push_back(value->type);
  }
  LoweringFn fn = lowerings().lookup(node.kind);
  if (!fn)
    return emitError(loc(node.loc, node.name))
           << "internal error: op '" << getOpInfo(node.kind).name
           << "' has no lowering";
  NodeLowering lowering{node, operands, operandTypes, loc(node.loc, node.name)};
  FailureOr<SmallVector<Value>> results = fn(*this, lowering);
  if (failed(results))
    return failure();
  if (results->size() != node.resultTypes.size())
    return emitError(lowering.loc) << "internal error: op '"
                                   << getOpInfo(node.kind).name
                                   << "' lowered to the wrong result count";
  for (size_t i = 0; i < results->size(); ++i)
    define(i == 0 ? node.name : node.name + ":" + std::to_string(i),
           (*results)[i], node.resultTypes[i]);
  return success();
}

FailureOr<SmallVector<Value>>
MLIRGen::lowerGraph(const Graph &graph, ArrayRef<Value> inputs) {
  scopes.emplace_back();
  for (size_t i = 0; i < graph.inputs.size(); ++i)
    define(graph.inputs[i].name, inputs[i], graph.inputs[i].type);
  for (const Node &node : graph.nodes)
    if (failed(lowerNode(node))) {
      scopes.pop_back();
      return failure();
    }
  SmallVector<Value> outputs;
  for (const OutputDecl &output : graph.outputs)
    outputs.push_back(lookupOrMaterialize(output.value)->value);
  scopes.pop_back();
  return outputs;
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
  return b.create<arith::ConstantOp>(loc(constant.loc, constant.name), type,
                                     attr);
}

//===----------------------------------------------------------------------===//
// The kernel function
//===----------------------------------------------------------------------===//

/// A linalg.generic that copies its one input unchanged (a `broadcast` to
/// the same shape, `floor` of an integer): the canonicalizer folds it into
/// its input.
static bool isIdentityGeneric(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 || generic.getNumResults() != 1)
    return false;
  Value input = generic.getDpsInputOperand(0)->get();
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  return input.getType() == generic.getResult(0).getType() &&
         llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }) &&
         yield.getValues()[0] == generic.getBody()->getArgument(0);
}

/// The tensor `value` views, through reshapes, slices, pads, casts and
/// identity copies (which may all fold away), or `value` itself if it is
/// computed.
static Value viewedTensor(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
             tensor::ExtractSliceOp, tensor::PadOp, tensor::CastOp,
             tensor::ReshapeOp>(op) &&
        !isIdentityGeneric(op))
      break;
    value = op->getOperand(0);
  }
  return value;
}

/// The dtype and shape of every value of the program's top level.
static llvm::StringMap<txc::TensorType> topLevelTypes(const Program &program) {
  llvm::StringMap<txc::TensorType> types;
  for (const ValueDecl &input : program.inputs)
    types[input.name] = input.type;
  for (const ConstantDecl &constant : program.constants)
    types[constant.name] = constant.type;
  for (const Node &node : program.body.nodes)
    for (size_t i = 0; i < node.resultTypes.size(); ++i)
      types[i == 0 ? node.name : node.name + ":" + std::to_string(i)] =
          node.resultTypes[i];
  return types;
}

void MLIRGen::beginFunction(Block *entry, size_t numSymbols) {
  b.setInsertionPointToStart(entry);
  symbolArgs.assign(entry->args_begin(), entry->args_begin() + numSymbols);
  statusArg = nullptr;
  lastConstant = nullptr;
  dimCache.clear();
  scopes.clear();
  scopes.emplace_back();
}

const MLIRGen::ScopedValue *MLIRGen::lookupOrMaterialize(llvm::StringRef name) {
  if (const ScopedValue *value = lookup(name))
    return value;
  // Inline constants are compiled into each function that reads them, at
  // its start, so that they dominate every use.
  auto constant = inlineConstants.find(name);
  if (constant == inlineConstants.end())
    return nullptr;
  OpBuilder::InsertionGuard guard(b);
  if (lastConstant) {
    b.setInsertionPointAfter(lastConstant);
  } else {
    Block *block = b.getInsertionBlock();
    while (!isa<func::FuncOp>(block->getParentOp()))
      block = block->getParentOp()->getBlock();
    b.setInsertionPointToStart(block);
  }
  Value value = lowerConstant(*constant->second);
  lastConstant = value.getDefiningOp();
  scopes.front()[name] = ScopedValue{value, constant->second->type};
  return &scopes.front()[name];
}

func::FuncOp MLIRGen::buildRegionFunction(const RegionPlan &plan,
                                          unsigned index) {
  const Region &region = plan.regions[plan.functions[index].firstRegion];
  const std::vector<Node> &nodes = prog.body.nodes;
  size_t numSymbols = contract.symbols.size();
  SmallVector<Type> argTypes(numSymbols, b.getIndexType());
  for (const std::string &input : region.inputs)
    argTypes.push_back(tensorType(valueTypes.lookup(input)));
  if (kernelHasStatus)
    argTypes.push_back(MemRefType::get({2}, b.getI64Type()));
  SmallVector<Type> resultTypes;
  for (const std::string &output : region.outputs)
    resultTypes.push_back(tensorType(valueTypes.lookup(output)));
  argTypes.append(resultTypes.begin(), resultTypes.end());

  Location at = loc(nodes[region.firstNode].loc, nodes[region.firstNode].name);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(moduleBody);
  auto function = b.create<func::FuncOp>(
      at, regionFunctionName(contract, index),
      b.getFunctionType(argTypes, resultTypes));
  function.setPrivate();
  // Internal in the object; one call per region, never inlined back into
  // the kernel, so that LLVM works on one region at a time.
  function->setAttr("llvm.linkage",
                    LLVM::LinkageAttr::get(&ctx, LLVM::Linkage::Internal));
  function->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
  for (size_t i = 0; i < region.inputs.size(); ++i) {
    function.setArgAttr(numSymbols + i, "bufferization.writable",
                        b.getBoolAttr(false));
    recordArgumentDims(function, numSymbols + i,
                       valueTypes.lookup(region.inputs[i]));
  }

  Block *entry = function.addEntryBlock();
  beginFunction(entry, numSymbols);
  for (size_t i = 0; i < region.inputs.size(); ++i)
    define(region.inputs[i], entry->getArgument(numSymbols + i),
           valueTypes.lookup(region.inputs[i]));
  if (kernelHasStatus)
    statusArg = entry->getArgument(numSymbols + region.inputs.size());
  for (unsigned n = region.firstNode; n < region.endNode; ++n)
    if (failed(lowerNode(nodes[n])))
      return nullptr;
  SmallVector<Value> results;
  size_t firstDest = argTypes.size() - resultTypes.size();
  for (size_t i = 0; i < region.outputs.size(); ++i) {
    const ScopedValue *value = lookup(region.outputs[i]);
    results.push_back(b.create<bufferization::MaterializeInDestinationOp>(
                           value->value.getLoc(), value->value,
                           entry->getArgument(firstDest + i))
                          .getResult());
  }
  b.create<func::ReturnOp>(at, results);
  return function;
}

LogicalResult MLIRGen::callRegions(const RegionPlan &plan,
                                   ArrayRef<func::FuncOp> functions,
                                   const llvm::StringMap<Value> &outputDests) {
  const std::vector<Node> &nodes = prog.body.nodes;
  for (const Region &region : plan.regions) {
    SmallVector<Value> operands(symbolArgs.begin(), symbolArgs.end());
    for (const std::string &input : region.inputs) {
      const ScopedValue *value = lookupOrMaterialize(input);
      if (!value)
        return emitError(loc(nodes[region.firstNode].loc))
               << "internal error: region input '" << input << "' has no value";
      operands.push_back(value->value);
    }
    if (kernelHasStatus)
      operands.push_back(statusArg);
    Location at =
        loc(nodes[region.firstNode].loc, nodes[region.firstNode].name);
    for (const std::string &output : region.outputs) {
      Value dest = outputDests.lookup(output);
      // A new buffer per destination: an alloc_tensor, unlike an empty
      // tensor, is never merged with another by CSE, which made two
      // outputs of one call the same buffer (each written over the other).
      const TensorType &type = valueTypes.lookup(output);
      operands.push_back(dest ? dest
                              : b.create<bufferization::AllocTensorOp>(
                                     at, cast<RankedTensorType>(tensorType(type)),
                                     dynamicDims(type, at))
                                    .getResult());
    }
    auto call = b.create<func::CallOp>(at, functions[region.function],
                                       operands);
    for (size_t i = 0; i < region.outputs.size(); ++i)
      define(region.outputs[i], call.getResult(i),
             valueTypes.lookup(region.outputs[i]));
  }
  return success();
}

OwningOpRef<ModuleOp> MLIRGen::run() {
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc(prog.nameLoc), prog.name);
  moduleBody = module->getBody();
  b.setInsertionPointToEnd(moduleBody);
  for (const ConstantDecl &constant : prog.constants)
    if (!constant.isStored())
      inlineConstants[constant.name] = &constant;
  valueTypes = topLevelTypes(prog);
  RegionPlan plan = planRegions(prog, contract, regionOptions);

  SmallVector<Type> argTypes, resultTypes;
  for (size_t i = 0; i < contract.symbols.size(); ++i)
    argTypes.push_back(b.getIndexType());
  for (const ContractTensor &input : contract.inputs)
    argTypes.push_back(tensorType(input.type));
  // Stored constants (weights) are read-only arguments after the inputs:
  // their bytes never become attributes (txc/Target/Weights.h).
  SmallVector<const ConstantDecl *> stored;
  for (const ConstantDecl &constant : prog.constants)
    if (constant.isStored()) {
      stored.push_back(&constant);
      argTypes.push_back(tensorType(constant.type));
    }
  // The status buffer of data-dependent guards comes before the outputs,
  // which stay the last arguments.
  kernelHasStatus = llvm::any_of(contract.guards, [](const Guard &g) {
    return isDataDependent(g.kind);
  });
  if (kernelHasStatus)
    argTypes.push_back(MemRefType::get({2}, b.getI64Type()));
  for (const ContractTensor &output : contract.outputs) {
    argTypes.push_back(tensorType(output.type));
    resultTypes.push_back(tensorType(output.type));
  }
  // One region is lowered into the kernel itself; several become
  // functions the kernel calls.
  SmallVector<func::FuncOp> regionFunctions;
  if (plan.regions.size() > 1)
    for (unsigned f = 0; f < plan.functions.size(); ++f) {
      func::FuncOp function = buildRegionFunction(plan, f);
      if (!function)
        return nullptr;
      regionFunctions.push_back(function);
    }

  b.setInsertionPointToEnd(moduleBody);
  auto function = b.create<func::FuncOp>(
      loc(prog.nameLoc), kernelFunctionName(contract),
      b.getFunctionType(argTypes, resultTypes));
  size_t numSymbols = contract.symbols.size();
  size_t numInputs = contract.inputs.size() + stored.size();
  // Inputs belong to the caller and weights are read-only data:
  // bufferization must never write into them.
  for (size_t i = 0; i < numInputs; ++i)
    function.setArgAttr(numSymbols + i, "bufferization.writable",
                        b.getBoolAttr(false));
  for (size_t i = 0; i < contract.inputs.size(); ++i)
    recordArgumentDims(function, numSymbols + i, contract.inputs[i].type);

  Block *entry = function.addEntryBlock();
  beginFunction(entry, numSymbols);
  if (kernelHasStatus)
    statusArg = entry->getArgument(numSymbols + numInputs);
  for (size_t i = 0; i < contract.inputs.size(); ++i)
    define(contract.inputs[i].name, entry->getArgument(numSymbols + i),
           contract.inputs[i].type);
  size_t nextStored = numSymbols + contract.inputs.size();
  for (const ConstantDecl *constant : stored)
    define(constant->name, entry->getArgument(nextStored++), constant->type);

  auto outputArg = [&](size_t o) {
    return entry->getArgument(numSymbols + numInputs + kernelHasStatus + o);
  };
  // A region computes each value the program returns straight into the
  // first output buffer that returns it.
  llvm::StringMap<Value> outputDests;
  if (plan.regions.size() > 1) {
    for (size_t o = 0; o < contract.outputs.size(); ++o)
      outputDests.try_emplace(contract.outputs[o].value, outputArg(o));
    if (failed(callRegions(plan, regionFunctions, outputDests)))
      return nullptr;
  } else {
    for (const Node &node : prog.body.nodes)
      if (failed(lowerNode(node)))
        return nullptr;
  }

  // Every result is written into its output argument, so that bufferization
  // computes it straight into the caller's buffer.
  SmallVector<Value> results;
  // The first output of each value; a value returned under several names is
  // computed into the first one's buffer and copied from there, since one
  // tensor cannot be materialized into two destinations.
  llvm::StringMap<size_t> firstOutput;
  // How many distinct outputs view each tensor.
  llvm::DenseMap<Value, unsigned> viewers;
  {
    llvm::StringSet<> seen;
    for (const ContractTensor &output : contract.outputs)
      if (seen.insert(output.value).second)
        ++viewers[viewedTensor(lookupOrMaterialize(output.value)->value)];
  }
  for (size_t o = 0; o < contract.outputs.size(); ++o) {
    const ContractTensor &output = contract.outputs[o];
    Value dest = outputArg(o);
    auto [first, inserted] = firstOutput.try_emplace(output.value, o);
    Value value =
        inserted ? lookupOrMaterialize(output.value)->value
                 : results[first->second];
    // A region already computed it into this output's buffer.
    if (inserted && outputDests.lookup(output.value) == dest &&
        isa<OpResult>(value) && isa<func::CallOp>(value.getDefiningOp())) {
      results.push_back(value);
      continue;
    }
    // A view (reshape, slice, pad, ...) may fold into the very tensor that
    // another output returns (flatten(reshape(x)) is x; so is a pad by 0):
    // two destinations for one tensor, which bufferization cannot satisfy.
    // A copy into the destination makes the output its own tensor. A pad
    // (by 0, folding away) also defeats in-place tiling at -O2.
    Value viewed = viewedTensor(value);
    if (inserted && viewed != value && !isa<BlockArgument>(viewed) &&
        (viewers[viewed] > 1 || value.getDefiningOp<tensor::PadOp>()))
      value = b.create<linalg::CopyOp>(loc(output.loc, output.name), value,
                                       dest)
                  .getResult(0);
    results.push_back(b.create<bufferization::MaterializeInDestinationOp>(
                           loc(output.loc, output.name), value, dest)
                          .getResult());
  }
  b.create<func::ReturnOp>(loc(prog.nameLoc), results);
  scopes.pop_back();

  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> txc::lowerProgramToMLIR(MLIRContext &context,
                                              const Program &program,
                                              const Contract &contract,
                                              const RegionOptions &regions) {
  return MLIRGen(context, program, contract, regions).run();
}
