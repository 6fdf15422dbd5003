//===- MLIRGen.h - Shared state and helpers of MLIRGen ----------*- C++ -*-===//
//
// Internal to TxcConversion. The core (ProgramToMLIR.cpp) builds the kernel
// function and walks the graph; each op family lowers its ops in its own file
// (Lowering/*.cpp) through a LoweringFn registered in the LoweringTable.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_CONVERSION_MLIRGEN_H
#define TXC_LIB_CONVERSION_MLIRGEN_H

#include "txc/Analysis/Contract.h"
#include "txc/Analysis/Regions.h"
#include "txc/Program/Program.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/StringMap.h"

#include <array>
#include <map>

namespace txc {

class MLIRGen;

/// One node to lower: its operands as tensors and their program types.
struct NodeLowering {
  const Node &node;
  llvm::ArrayRef<mlir::Value> operands;
  llvm::ArrayRef<TensorType> operandTypes;
  mlir::Location loc;

  const TensorType &resultType(size_t i = 0) const {
    return node.resultTypes[i];
  }
};

/// Lowers one node; returns its results (one per result type).
using LoweringFn = mlir::FailureOr<llvm::SmallVector<mlir::Value>> (*)(
    MLIRGen &gen, const NodeLowering &lowering);

class LoweringTable {
public:
  void add(OpKind kind, LoweringFn fn) { fns[size_t(kind)] = fn; }
  LoweringFn lookup(OpKind kind) const { return fns[size_t(kind)]; }

private:
  std::array<LoweringFn, 512> fns{};
};

// One registration function per op family (Lowering/*.cpp).
void registerElementwiseLowerings(LoweringTable &table);
void registerLinearAlgebraLowerings(LoweringTable &table);
void registerShapeOpLowerings(LoweringTable &table);
void registerReductionLowerings(LoweringTable &table);
void registerConvolutionLowerings(LoweringTable &table);
void registerControlFlowLowerings(LoweringTable &table);
void registerIndexingLowerings(LoweringTable &table);

/// True when `kind` has a lowering (every registered op must).
bool hasLowering(OpKind kind);

class MLIRGen {
public:
  MLIRGen(mlir::MLIRContext &context, const Program &program,
          const Contract &contract, const RegionOptions &regionOptions);

  mlir::OwningOpRef<mlir::ModuleOp> run();

  // --- helpers for the lowerings ---
  mlir::OpBuilder &builder() { return b; }
  mlir::MLIRContext &context() { return ctx; }
  const Program &program() const { return prog; }
  const Contract &getContract() const { return contract; }
  /// The kernel's argument after the inputs when the contract has
  /// data-dependent guards: memref<2xi64> holding the id of the first such guard that failed (the
  /// caller sets -1) and the offending value. Null otherwise.
  mlir::Value statusBuffer() const { return statusArg; }

  mlir::Location loc(const Loc &at, llvm::StringRef name = {});
  mlir::Type elementType(DType dtype);
  mlir::RankedTensorType tensorType(const TensorType &type);
  /// The index value of a symbolic dim, materialized once per function.
  mlir::Value dimValue(const ShapeExpr &dim, mlir::Location at);
  llvm::SmallVector<mlir::Value> dynamicDims(const TensorType &type,
                                             mlir::Location at);
  mlir::Value emptyTensor(const TensorType &type, mlir::Location at);
  /// A scalar constant of the dtype (floats rounded to the type).
  mlir::Value scalar(DType dtype, double value, mlir::Location at);
  mlir::Value scalar(mlir::OpBuilder &builder, DType dtype, double value,
                     mlir::Location at);
  /// The map reading `operand` inside the iteration space of `result`,
  /// broadcasting (numpy rules) missing and static-1 dims.
  mlir::AffineMap broadcastMap(const TensorType &operand,
                               const TensorType &result);
  /// A linalg.generic over `resultType`'s iteration space, with the
  /// operands broadcast by their maps; `body` computes one element.
  mlir::Value buildElementwise(
      mlir::Location at, const TensorType &resultType,
      llvm::ArrayRef<mlir::Value> operands,
      llvm::ArrayRef<TensorType> operandTypes,
      llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                     mlir::ValueRange)>
          body);

  /// Lowers a nested graph in the current insertion point with its inputs
  /// bound to `inputs` (values of enclosing graphs stay visible); returns
  /// its outputs.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  lowerGraph(const Graph &graph, llvm::ArrayRef<mlir::Value> inputs);

private:
  struct ScopedValue {
    mlir::Value value;
    TensorType type;
  };
  const ScopedValue *lookup(llvm::StringRef name) const;
  /// lookup, or the inline constant of that name compiled into the
  /// current function.
  const ScopedValue *lookupOrMaterialize(llvm::StringRef name);
  void define(llvm::StringRef name, mlir::Value value, const TensorType &type);
  mlir::LogicalResult lowerNode(const Node &node);
  mlir::Value lowerConstant(const ConstantDecl &constant);
  /// Starts lowering into a function whose first arguments are the symbols.
  void beginFunction(mlir::Block *entry, size_t numSymbols);
  /// Records the dims of a tensor argument of `function` as expressions of
  /// the symbols (kArgumentDimsAttr) when some are not constant.
  void recordArgumentDims(mlir::func::FuncOp function, unsigned argument,
                          const TensorType &type);
  /// The function of one region of the plan: symbols, inputs, the status
  /// buffer if the kernel has one, and a destination per output.
  mlir::func::FuncOp buildRegionFunction(const RegionPlan &plan,
                                         unsigned function);
  /// The kernel's calls of the regions, in order; `outputDests` are the
  /// output arguments regions compute their values into.
  mlir::LogicalResult
  callRegions(const RegionPlan &plan,
              llvm::ArrayRef<mlir::func::FuncOp> functions,
              const llvm::StringMap<mlir::Value> &outputDests);

  mlir::MLIRContext &ctx;
  mlir::OpBuilder b;
  const Program &prog;
  const Contract &contract;
  RegionOptions regionOptions;
  std::vector<llvm::StringMap<ScopedValue>> scopes;
  llvm::SmallVector<mlir::Value> symbolArgs;
  mlir::Value statusArg;
  std::map<ShapeExpr, mlir::Value> dimCache;
  /// The last inline constant of the current function (the next goes after
  /// it), or null.
  mlir::Operation *lastConstant = nullptr;
  mlir::Block *moduleBody = nullptr;
  llvm::StringMap<const ConstantDecl *> inlineConstants;
  llvm::StringMap<TensorType> valueTypes;
  bool kernelHasStatus = false;
};

} // namespace txc

#endif
