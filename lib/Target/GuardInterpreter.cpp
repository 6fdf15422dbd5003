//===- GuardInterpreter.cpp - The guard tables' code in LLVM IR -----------===//
//
// The code that interprets the guard tables (GuardTable.h) in an object:
// `<p>_run.guards`, a loop over the guard rows with one case per guard
// kind; `<p>_run.guard_expr`, the postfix evaluator of their expressions;
// and the loop of `<p>_error_message` over a guard's message pieces. Their
// size depends on which kinds a contract has, not on how many guards.
//
//===----------------------------------------------------------------------===//
#include "GuardInterpreter.h"
#include "IRExprOps.h"

#include "txc/Target/AbiEmitter.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"

#include <set>

using namespace txc;
using namespace llvm;

namespace {
/// Emits the functions and tables; holds what they share.
class GuardCodeEmitter {
public:
  GuardCodeEmitter(Module &module, const Contract &contract,
                   const GuardTable &table)
      : module(module), context(module.getContext()), contract(contract),
        table(table), i32(Type::getInt32Ty(context)),
        i64(Type::getInt64Ty(context)), i128(Type::getIntNTy(context, 128)),
        ptr(PointerType::getUnqual(context)) {}

  Function *emitInterpreter(bool cold);
  void emitMessage(IRBuilder<> &b, Value *guardId, Value *buffer, Value *size,
                   ArrayRef<Value *> fields,
                   function_ref<Value *(IRBuilder<> &)> otherName,
                   function_ref<Value *(IRBuilder<> &)> dtypeName);

private:
  /// The postfix evaluator of the table's expressions.
  Function *emitEvaluator();
  /// A private constant global of `values`.
  GlobalVariable *constantTable(Constant *values, const Twine &name) {
    auto *global = new GlobalVariable(
        module, values->getType(),
        /*isConstant=*/true, GlobalValue::PrivateLinkage, values, name);
    global->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
    return global;
  }
  Constant *c64(int64_t value) { return ConstantInt::get(i64, value, true); }
  Constant *c32(int64_t value) { return ConstantInt::get(i32, value, true); }

  Module &module;
  LLVMContext &context;
  const Contract &contract;
  const GuardTable &table;
  Type *i32, *i64, *i128;
  PointerType *ptr;
};
} // namespace

namespace {
/// The fields of a guard row, {i32 x 8, i64} (GuardRow).
enum RowField : unsigned {
  RowKind,
  RowCode,
  RowSide,
  RowTensor,
  RowDim,
  RowSymbol,
  RowId,
  RowExpr,
  RowValue
};

/// One iteration of the interpreter: the row, its descriptor and
/// expression, and where a check goes when it passes or fails.
struct RowContext {
  Value *row = nullptr;
  Value *desc = nullptr;
  Value *expr = nullptr; ///< i128, when some row has an expression
  Value *inputBytes = nullptr, *outputBytes = nullptr;
  BasicBlock *next = nullptr;
  BasicBlock *fail = nullptr;
  PHINode *expectedMin = nullptr, *expectedMax = nullptr, *actual = nullptr;
};
} // namespace

namespace {
/// The interpreter of the guard rows. Each row's check is one case of a
/// switch on its kind; only the kinds the contract has are emitted. The
/// status fields that name the guard come from the row, the values from
/// the check.
class GuardInterpreter {
public:
  GuardInterpreter(Function *function, const GuardTable &table,
                   const Contract &contract, Value *rows, Type *rowsType,
                   Value *symbolRanges, Function *evaluator)
      : function(function), table(table), contract(contract),
        context(function->getContext()), rows(rows), rowsType(rowsType),
        symbolRanges(symbolRanges), evaluator(evaluator),
        i32(Type::getInt32Ty(context)), i64(Type::getInt64Ty(context)),
        i128(Type::getIntNTy(context, 128)),
        ptr(PointerType::getUnqual(context)) {}

  void emit();

private:
  Value *arg(unsigned i) { return function->getArg(i); }
  Value *rowField(IRBuilder<> &b, RowField field, const Twine &name = "") {
    Type *type = field == RowValue ? i64 : i32;
    return b.CreateLoad(type, b.CreateStructGEP(rowType(), ctx.row, field),
                        name);
  }
  StructType *rowType() {
    return cast<StructType>(cast<ArrayType>(rowsType)->getElementType());
  }
  Constant *c64(int64_t v) { return ConstantInt::get(i64, v, true); }
  Value *wide(int64_t v) { return ConstantInt::get(i128, v, true); }
  /// Fails with these status values when `failed`, else goes to `next`
  /// (the next row unless given).
  void check(IRBuilder<> &b, Value *failed, Value *expectedMin,
             Value *expectedMax, Value *actual, BasicBlock *next = nullptr) {
    BasicBlock *from = b.GetInsertBlock();
    b.CreateCondBr(failed, ctx.fail, next ? next : ctx.next,
                   MDBuilder(context).createUnlikelyBranchWeights());
    ctx.expectedMin->addIncoming(expectedMin, from);
    ctx.expectedMax->addIncoming(expectedMax, from);
    ctx.actual->addIncoming(actual, from);
  }
  Value *dimValue(IRBuilder<> &b) {
    Value *offset = b.CreateAdd(
        c64(AbiLayout::kTensorDims),
        b.CreateMul(b.CreateSExt(rowField(b, RowDim), i64), c64(8)));
    return b.CreateLoad(i64, b.CreateGEP(b.getInt8Ty(), ctx.desc, offset),
                        "dim");
  }
  Value *loadAt(IRBuilder<> &b, Type *type, Value *base, unsigned offset) {
    return b.CreateLoad(type,
                        b.CreateConstGEP1_64(b.getInt8Ty(), base, offset));
  }
  Value *bytesSlot(IRBuilder<> &b, Value *array, Value *index) {
    return b.CreateGEP(i64, array, b.CreateSExt(index, i64));
  }
  void emitPrologue(IRBuilder<> &b);
  void emitFailure(BasicBlock *block);
  void emitCase(IRBuilder<> &b, GuardKind kind);
  void emitSymbolCheck(IRBuilder<> &b, GuardKind kind);
  /// SymbolValues: whether the bound symbol is one of the row's guard's
  /// values, by calling the membership function.
  void emitValuesCheck(IRBuilder<> &b);
  /// `i1 <p>_run.symbol_values(i32 guard, i64 value, ptr bounds)`: a switch
  /// on the guard id, then on the value; writes the set's smallest and
  /// largest value to bounds[0..1] (the status's expected_min/max).
  Function *membershipFunction();
  void emitAliasCheck(IRBuilder<> &b);
  /// Fails when [start, end) overlaps a tensor of `array` below `count`.
  void emitOverlapLoop(IRBuilder<> &b, Value *start, Value *end, Value *bytes,
                       Value *array, Value *bytesArray, Value *count,
                       TensorSide side);

  Function *function;
  const GuardTable &table;
  const Contract &contract;
  LLVMContext &context;
  Value *rows;
  Type *rowsType;
  Value *symbolRanges;
  Function *evaluator;
  Type *i32, *i64, *i128;
  PointerType *ptr;
  Value *stack = nullptr;
  RowContext ctx;
};
} // namespace

void GuardInterpreter::emit() {
  BasicBlock *entry = BasicBlock::Create(context, "entry", function);
  BasicBlock *header = BasicBlock::Create(context, "row", function);
  BasicBlock *body = BasicBlock::Create(context, "row.check", function);
  BasicBlock *passed = BasicBlock::Create(context, "passed", function);
  ctx.next = BasicBlock::Create(context, "row.next", function);
  ctx.fail = BasicBlock::Create(context, "failed", function);
  IRBuilder<> b(entry);
  emitPrologue(b);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  PHINode *index = b.CreatePHI(i64, 2, "index");
  index->addIncoming(c64(0), entry);
  b.CreateCondBr(b.CreateICmpEQ(index, c64(int64_t(table.rows.size()))), passed,
                 body);
  IRBuilder<>(passed).CreateRet(ConstantInt::get(i32, 0));
  {
    IRBuilder<> nb(ctx.next);
    Value *next = nb.CreateAdd(index, c64(1));
    index->addIncoming(next, ctx.next);
    nb.CreateBr(header);
  }
  b.SetInsertPoint(body);
  ctx.row = b.CreateInBoundsGEP(rowsType, rows, {c64(0), index}, "guard");
  emitFailure(ctx.fail);
  // <p>_output_shapes skips the guards about outputs.
  Value *side = rowField(b, RowSide, "side");
  Value *skip = b.CreateAnd(
      b.CreateICmpEQ(arg(6), ConstantInt::get(i32, 0)),
      b.CreateICmpEQ(side, ConstantInt::get(i32, int32_t(TensorSide::Output))));
  BasicBlock *dispatch = BasicBlock::Create(context, "row.kind", function);
  b.CreateCondBr(skip, ctx.next, dispatch);
  b.SetInsertPoint(dispatch);
  // The descriptor (only loaded from by rows that name a tensor).
  Value *array = b.CreateSelect(
      b.CreateICmpEQ(side, ConstantInt::get(i32, int32_t(TensorSide::Input))),
      arg(0), arg(2));
  ctx.desc = b.CreateGEP(b.getInt8Ty(), array,
                         b.CreateMul(b.CreateSExt(rowField(b, RowTensor), i64),
                                     c64(AbiLayout::kTensorSize)),
                         "desc");
  if (evaluator) {
    Value *start = rowField(b, RowExpr, "expr");
    BasicBlock *eval = BasicBlock::Create(context, "row.expr", function);
    BasicBlock *kinds = BasicBlock::Create(context, "row.switch", function);
    BasicBlock *from = b.GetInsertBlock();
    b.CreateCondBr(b.CreateICmpSGE(start, ConstantInt::get(i32, 0)), eval,
                   kinds);
    IRBuilder<> eb(eval);
    Value *value = eb.CreateCall(
        evaluator, {eb.CreateSExt(start, i64), arg(5), stack}, "value");
    eb.CreateBr(kinds);
    b.SetInsertPoint(kinds);
    PHINode *phi = b.CreatePHI(i128, 2, "expr_value");
    phi->addIncoming(wide(0), from);
    phi->addIncoming(value, eval);
    ctx.expr = phi;
  }
  Value *kind = rowField(b, RowKind, "kind");
  SwitchInst *kinds = b.CreateSwitch(kind, ctx.next);
  std::set<int32_t> present;
  for (const GuardRow &row : table.rows)
    present.insert(row.kind);
  for (int32_t k : present) {
    BasicBlock *block = BasicBlock::Create(context, guardKindName(GuardKind(k)),
                                           function, ctx.next);
    kinds->addCase(ConstantInt::get(cast<IntegerType>(i32), k), block);
    IRBuilder<> kb(block);
    emitCase(kb, GuardKind(k));
  }
}

void GuardInterpreter::emitPrologue(IRBuilder<> &b) {
  if (evaluator)
    stack = b.CreateAlloca(ArrayType::get(i128, table.stackDepth), nullptr,
                           "stack");
  bool sizes = llvm::any_of(table.rows, [](const GuardRow &row) {
    return row.kind == int32_t(GuardKind::BufferSize);
  });
  if (!sizes)
    return;
  // The byte counts the size guards computed, for the alias guards.
  auto array = [&](size_t count, const char *name) {
    return b.CreateAlloca(ArrayType::get(i64, std::max<size_t>(count, 1)),
                          nullptr, name);
  };
  ctx.inputBytes = array(contract.inputs.size(), "input_bytes");
  ctx.outputBytes = array(contract.outputs.size(), "output_bytes");
}

void GuardInterpreter::emitFailure(BasicBlock *block) {
  IRBuilder<> b(block);
  ctx.expectedMin = b.CreatePHI(i64, 8, "expected_min");
  ctx.expectedMax = b.CreatePHI(i64, 8, "expected_max");
  ctx.actual = b.CreatePHI(i64, 8, "actual");
  Value *code = rowField(b, RowCode, "code");
  Value *status = arg(4);
  BasicBlock *store = BasicBlock::Create(context, "failed.store", function);
  BasicBlock *done = BasicBlock::Create(context, "failed.return", function);
  // The status is optional: a NULL status only gets the return code.
  b.CreateCondBr(b.CreateIsNull(status), done, store);
  b.SetInsertPoint(store);
  auto put = [&](Value *value, unsigned offset) {
    b.CreateStore(value, b.CreateConstGEP1_64(b.getInt8Ty(), status, offset));
  };
  put(code, AbiLayout::kStatusCode);
  put(rowField(b, RowId), AbiLayout::kStatusGuard);
  put(rowField(b, RowSide), AbiLayout::kStatusTensorKind);
  put(rowField(b, RowTensor), AbiLayout::kStatusTensorIndex);
  put(rowField(b, RowDim), AbiLayout::kStatusDim);
  put(rowField(b, RowSymbol), AbiLayout::kStatusSymbol);
  put(ctx.expectedMin, AbiLayout::kStatusExpectedMin);
  put(ctx.expectedMax, AbiLayout::kStatusExpectedMax);
  put(ctx.actual, AbiLayout::kStatusActual);
  put(ConstantInt::get(i32, -1, true), AbiLayout::kStatusVariant);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRet(code);
}

void GuardInterpreter::emitCase(IRBuilder<> &b, GuardKind kind) {
  Value *zero = c64(0);
  Value *value = rowField(b, RowValue, "value");
  switch (kind) {
  case GuardKind::InputCount:
  case GuardKind::OutputCount: {
    Value *count = arg(kind == GuardKind::InputCount ? 1 : 3);
    check(b, b.CreateICmpNE(count, value), value, value, count);
    return;
  }
  case GuardKind::InputsArray:
  case GuardKind::OutputsArray:
    check(b, b.CreateIsNull(arg(kind == GuardKind::InputsArray ? 0 : 2)), zero,
          zero, zero);
    return;
  case GuardKind::DataPointer:
    check(b, b.CreateIsNull(loadAt(b, ptr, ctx.desc, AbiLayout::kTensorData)),
          zero, zero, zero);
    return;
  case GuardKind::DType:
  case GuardKind::Rank: {
    Value *actual =
        b.CreateSExt(loadAt(b, i32, ctx.desc,
                            kind == GuardKind::DType ? AbiLayout::kTensorDType
                                                     : AbiLayout::kTensorRank),
                     i64);
    check(b, b.CreateICmpNE(actual, value), value, value, actual);
    return;
  }
  case GuardKind::StaticDim: {
    Value *actual = dimValue(b);
    check(b, b.CreateICmpNE(actual, value), value, value, actual);
    return;
  }
  case GuardKind::SymbolForm:
  case GuardKind::SymbolRange:
  case GuardKind::SymbolMultiple:
    emitSymbolCheck(b, kind);
    return;
  case GuardKind::SymbolValues:
    emitValuesCheck(b);
    return;
  case GuardKind::DimEquals: {
    Value *expected = b.CreateTrunc(ctx.expr, i64);
    Value *actual = dimValue(b);
    check(b, b.CreateICmpNE(actual, expected), expected, expected, actual);
    return;
  }
  case GuardKind::BufferSize: {
    Value *needed = b.CreateTrunc(ctx.expr, i64);
    Value *isInput =
        b.CreateICmpEQ(rowField(b, RowSide),
                       ConstantInt::get(i32, int32_t(TensorSide::Input)));
    b.CreateStore(
        needed,
        bytesSlot(b, b.CreateSelect(isInput, ctx.inputBytes, ctx.outputBytes),
                  rowField(b, RowTensor)));
    Value *actual = loadAt(b, i64, ctx.desc, AbiLayout::kTensorSizeBytes);
    check(b, b.CreateICmpSLT(actual, needed), needed, c64(INT64_MAX), actual);
    return;
  }
  case GuardKind::NoAlias:
    emitAliasCheck(b);
    return;
  case GuardKind::IndexInRange:
    b.CreateBr(ctx.next); // not in the table (checked by the kernel)
    return;
  }
}

Function *GuardInterpreter::membershipFunction() {
  Module &module = *function->getParent();
  std::string name = contract.runSymbol() + ".symbol_values";
  if (Function *existing = module.getFunction(name))
    return existing;
  Function *member = Function::Create(
      FunctionType::get(Type::getInt1Ty(context), {i32, i64, ptr}, false),
      GlobalValue::InternalLinkage, name, module);
  member->addFnAttr(Attribute::NoUnwind);
  BasicBlock *entry = BasicBlock::Create(context, "entry", member);
  BasicBlock *no = BasicBlock::Create(context, "no", member);
  BasicBlock *yes = BasicBlock::Create(context, "yes", member);
  IRBuilder<>(no).CreateRet(IRBuilder<>(no).getFalse());
  IRBuilder<>(yes).CreateRet(IRBuilder<>(yes).getTrue());
  IRBuilder<> b(entry);
  SwitchInst *byGuard = b.CreateSwitch(member->getArg(0), no);
  for (const Guard &g : contract.guards) {
    if (g.kind != GuardKind::SymbolValues)
      continue;
    BasicBlock *block = BasicBlock::Create(context, "guard", member);
    byGuard->addCase(cast<ConstantInt>(ConstantInt::get(i32, g.id)), block);
    IRBuilder<> gb(block);
    Value *bounds = member->getArg(2);
    gb.CreateStore(c64(g.values.front()), bounds);
    gb.CreateStore(c64(g.values.back()), gb.CreateConstGEP1_64(i64, bounds, 1));
    SwitchInst *byValue = gb.CreateSwitch(member->getArg(1), no);
    for (int64_t value : g.values)
      byValue->addCase(cast<ConstantInt>(ConstantInt::get(i64, value, true)), yes);
  }
  return member;
}

void GuardInterpreter::emitValuesCheck(IRBuilder<> &b) {
  Value *symbol = b.CreateLoad(
      i64, b.CreateGEP(i64, arg(5), b.CreateSExt(rowField(b, RowSymbol), i64)));
  IRBuilder<> entry(&function->getEntryBlock(),
                    function->getEntryBlock().begin());
  Value *bounds = entry.CreateAlloca(ArrayType::get(i64, 2), nullptr, "bounds");
  Value *member = b.CreateCall(membershipFunction(),
                               {rowField(b, RowId), symbol, bounds});
  Value *min = b.CreateLoad(i64, bounds);
  Value *max = b.CreateLoad(i64, b.CreateConstGEP1_64(i64, bounds, 1));
  check(b, b.CreateNot(member), min, max, symbol);
}

void GuardInterpreter::emitSymbolCheck(IRBuilder<> &b, GuardKind kind) {
  Value *value = rowField(b, RowValue, "value");
  Value *symbolSlot =
      b.CreateGEP(i64, arg(5), b.CreateSExt(rowField(b, RowSymbol), i64));
  if (kind == GuardKind::SymbolMultiple) {
    Value *symbol = b.CreateLoad(i64, symbolSlot);
    check(b, b.CreateICmpNE(b.CreateSRem(symbol, value), c64(0)), value, value,
          symbol);
    return;
  }
  // (dims[d] - rest) as i128 so that no caller-provided value overflows.
  Value *dim = dimValue(b);
  Value *numerator = b.CreateSub(b.CreateSExt(dim, i128), ctx.expr);
  Value *coeff = b.CreateSExt(value, i128);
  if (kind == GuardKind::SymbolForm) {
    Value *remainder = b.CreateSRem(numerator, coeff);
    check(b, b.CreateICmpNE(remainder, wide(0)), c64(0), c64(0), dim);
    return;
  }
  // A coefficient of 1 or -1 needs no 128-bit division (no call of
  // __divti3) when no row has another one.
  Value *symbol = table.needsWideDivision
                      ? b.CreateSDiv(numerator, coeff)
                      : b.CreateSelect(b.CreateICmpEQ(value, c64(1)), numerator,
                                       b.CreateNeg(numerator));
  Value *range = b.CreateInBoundsGEP(ArrayType::get(i64, 2), symbolRanges,
                                     b.CreateSExt(rowField(b, RowSymbol), i64));
  Value *min = b.CreateLoad(
      i64, b.CreateConstInBoundsGEP2_32(ArrayType::get(i64, 2), range, 0, 0));
  Value *max = b.CreateLoad(
      i64, b.CreateConstInBoundsGEP2_32(ArrayType::get(i64, 2), range, 0, 1));
  Value *outside = b.CreateOr(b.CreateICmpSLT(symbol, b.CreateSExt(min, i128)),
                              b.CreateICmpSGT(symbol, b.CreateSExt(max, i128)));
  // Report the value clamped to int64, as evaluateGuards does.
  Value *clamped =
      b.CreateSelect(b.CreateICmpSGT(symbol, wide(INT64_MAX)), wide(INT64_MAX),
                     b.CreateSelect(b.CreateICmpSLT(symbol, wide(INT64_MIN)),
                                    wide(INT64_MIN), symbol));
  BasicBlock *bind = BasicBlock::Create(context, "bind", function, ctx.next);
  check(b, outside, min, max, b.CreateTrunc(clamped, i64), bind);
  IRBuilder<> bb(bind);
  bb.CreateStore(bb.CreateTrunc(symbol, i64), symbolSlot);
  bb.CreateBr(ctx.next);
}

void GuardInterpreter::emitAliasCheck(IRBuilder<> &b) {
  Value *tensor = rowField(b, RowTensor);
  Value *bytes = b.CreateLoad(i64, bytesSlot(b, ctx.outputBytes, tensor));
  Value *start =
      b.CreatePtrToInt(loadAt(b, ptr, ctx.desc, AbiLayout::kTensorData), i64);
  Value *end = b.CreateAdd(start, bytes);
  // Against every input, then the outputs before this one.
  emitOverlapLoop(b, start, end, bytes, arg(0), ctx.inputBytes,
                  c64(int64_t(contract.inputs.size())), TensorSide::Input);
  emitOverlapLoop(b, start, end, bytes, arg(2), ctx.outputBytes,
                  b.CreateSExt(tensor, i64), TensorSide::Output);
  b.CreateBr(ctx.next);
}

void GuardInterpreter::emitOverlapLoop(IRBuilder<> &b, Value *start, Value *end,
                                       Value *bytes, Value *array,
                                       Value *bytesArray, Value *count,
                                       TensorSide side) {
  BasicBlock *before = b.GetInsertBlock();
  BasicBlock *header = BasicBlock::Create(context, "alias", function, ctx.next);
  BasicBlock *body =
      BasicBlock::Create(context, "alias.check", function, ctx.next);
  BasicBlock *latch =
      BasicBlock::Create(context, "alias.next", function, ctx.next);
  BasicBlock *done =
      BasicBlock::Create(context, "alias.done", function, ctx.next);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  PHINode *index = b.CreatePHI(i64, 2, "other");
  index->addIncoming(c64(0), before);
  b.CreateCondBr(b.CreateICmpSLT(index, count), body, done);
  b.SetInsertPoint(body);
  Value *other = b.CreateInBoundsGEP(
      b.getInt8Ty(), array, b.CreateMul(index, c64(AbiLayout::kTensorSize)));
  Value *otherStart =
      b.CreatePtrToInt(loadAt(b, ptr, other, AbiLayout::kTensorData), i64);
  Value *otherBytes =
      b.CreateLoad(i64, b.CreateInBoundsGEP(i64, bytesArray, index));
  Value *otherEnd = b.CreateAdd(otherStart, otherBytes);
  Value *zero = c64(0);
  // Empty ranges overlap nothing.
  Value *overlap = b.CreateAnd(b.CreateAnd(b.CreateICmpSGT(bytes, zero),
                                           b.CreateICmpSGT(otherBytes, zero)),
                               b.CreateAnd(b.CreateICmpULT(start, otherEnd),
                                           b.CreateICmpULT(otherStart, end)));
  check(b, overlap, c64(int64_t(side)), index, zero, latch);
  b.SetInsertPoint(latch);
  index->addIncoming(b.CreateAdd(index, c64(1)), latch);
  b.CreateBr(header);
  b.SetInsertPoint(done);
}

Function *GuardCodeEmitter::emitInterpreter(bool cold) {
  Type *params[] = {ptr, i64, ptr, i64, ptr, ptr, i32};
  Function *function = Function::Create(
      FunctionType::get(i32, params, /*isVarArg=*/false),
      GlobalValue::InternalLinkage, contract.runSymbol() + ".guards", module);
  const char *names[] = {"inputs", "num_inputs", "outputs",      "num_outputs",
                         "status", "symbols",    "check_outputs"};
  for (unsigned i = 0; i < 7; ++i)
    function->getArg(i)->setName(names[i]);
  function->addFnAttr(Attribute::NoUnwind);
  function->addFnAttr(Attribute::NoInline);
  if (cold)
    function->addFnAttr(Attribute::Cold);

  StructType *rowType =
      StructType::get(context, {i32, i32, i32, i32, i32, i32, i32, i32, i64});
  std::vector<Constant *> rows;
  for (const GuardRow &row : table.rows)
    rows.push_back(ConstantStruct::get(
        rowType, {c32(row.kind), c32(row.code), c32(row.side), c32(row.tensor),
                  c32(row.dim), c32(row.symbol), c32(row.id), c32(row.expr),
                  c64(row.value)}));
  ArrayType *rowsType = ArrayType::get(rowType, rows.size());
  GlobalVariable *rowsGlobal =
      constantTable(ConstantArray::get(rowsType, rows), "guard_rows");
  std::vector<Constant *> ranges;
  ArrayType *rangeType = ArrayType::get(i64, 2);
  for (const ContractSymbol &symbol : contract.symbols)
    ranges.push_back(
        ConstantArray::get(rangeType, {c64(symbol.min), c64(symbol.max)}));
  ArrayType *rangesType = ArrayType::get(rangeType, ranges.size());
  GlobalVariable *rangesGlobal =
      constantTable(ConstantArray::get(rangesType, ranges), "symbol_ranges");
  Function *evaluator = table.code.empty() ? nullptr : emitEvaluator();
  GuardInterpreter(function, table, contract, rowsGlobal, rowsType,
                   rangesGlobal, evaluator)
      .emit();
  return function;
}

/// The value of the postfix code at `start`: a loop over (op, operand)
/// pairs with a stack of i128, each op as IRExprOps computes it.
Function *GuardCodeEmitter::emitEvaluator() {
  Function *function = Function::Create(
      FunctionType::get(i128, {i64, ptr, ptr}, /*isVarArg=*/false),
      GlobalValue::InternalLinkage, contract.runSymbol() + ".guard_expr",
      module);
  function->addFnAttr(Attribute::NoUnwind);
  Value *start = function->getArg(0), *symbols = function->getArg(1),
        *stack = function->getArg(2);
  start->setName("start");
  symbols->setName("symbols");
  stack->setName("stack");
  ArrayType *codeType = ArrayType::get(i64, table.code.size());
  GlobalVariable *code = constantTable(
      ConstantDataArray::get(context, ArrayRef<int64_t>(table.code)),
      "guard_code");

  BasicBlock *entry = BasicBlock::Create(context, "entry", function);
  BasicBlock *loop = BasicBlock::Create(context, "op", function);
  BasicBlock *next = BasicBlock::Create(context, "op.next", function);
  BasicBlock *end = BasicBlock::Create(context, "end", function);
  IRBuilder<>(entry).CreateBr(loop);
  IRBuilder<> b(loop);
  PHINode *pc = b.CreatePHI(i64, 2, "pc");
  PHINode *sp = b.CreatePHI(i64, 2, "sp");
  pc->addIncoming(start, entry);
  sp->addIncoming(c64(0), entry);
  Value *op = b.CreateLoad(
      i64, b.CreateInBoundsGEP(codeType, code, {c64(0), pc}), "opcode");
  Value *operand = b.CreateLoad(
      i64,
      b.CreateInBoundsGEP(codeType, code, {c64(0), b.CreateAdd(pc, c64(1))}),
      "operand");
  SwitchInst *ops = b.CreateSwitch(op, end);
  IRBuilder<> nb(next);
  PHINode *nextSp = nb.CreatePHI(i64, 8, "next_sp");
  pc->addIncoming(nb.CreateAdd(pc, c64(2)), next);
  sp->addIncoming(nextSp, next);
  nb.CreateBr(loop);
  auto slot = [&](IRBuilder<> &at, int64_t fromTop) {
    return at.CreateInBoundsGEP(i128, stack, at.CreateSub(sp, c64(fromTop)));
  };
  // Each case leaves its result at `stack[sp + delta - 1]`.
  auto addCase = [&](GuardCodeOp which, int64_t delta,
                     function_ref<Value *(IRBuilder<> &)> result) {
    BasicBlock *block = BasicBlock::Create(context, "op", function, next);
    ops->addCase(cast<ConstantInt>(c64(int64_t(which))), block);
    IRBuilder<> cb(block);
    Value *value = result(cb);
    cb.CreateStore(value, slot(cb, 1 - delta));
    nextSp->addIncoming(cb.CreateAdd(sp, c64(delta)), block);
    cb.CreateBr(next);
  };
  auto top = [&](IRBuilder<> &at, int64_t fromTop) {
    return at.CreateLoad(i128, slot(at, fromTop));
  };
  addCase(GuardCodeOp::Constant, 1,
          [&](IRBuilder<> &at) { return at.CreateSExt(operand, i128); });
  addCase(GuardCodeOp::Symbol, 1, [&](IRBuilder<> &at) {
    return at.CreateSExt(
        at.CreateLoad(i64, at.CreateInBoundsGEP(i64, symbols, operand)), i128);
  });
  addCase(GuardCodeOp::Add, -1, [&](IRBuilder<> &at) {
    return at.CreateAdd(top(at, 2), top(at, 1));
  });
  addCase(GuardCodeOp::Mul, -1, [&](IRBuilder<> &at) {
    return at.CreateMul(top(at, 2), top(at, 1));
  });
  auto unary = [&](GuardCodeOp which,
                   Value *(IRExprOps::*apply)(Value *, Value *)) {
    addCase(which, 0, [&](IRBuilder<> &at) {
      IRExprOps ops{at, {}, i128};
      return (ops.*apply)(top(at, 1), operand);
    });
  };
  unary(GuardCodeOp::ExactDiv, &IRExprOps::exactDivBy);
  unary(GuardCodeOp::FloorDiv, &IRExprOps::floorDivBy);
  unary(GuardCodeOp::Mod, &IRExprOps::modBy);
  IRBuilder<> eb(end);
  eb.CreateRet(eb.CreateLoad(
      i128, eb.CreateInBoundsGEP(i128, stack, eb.CreateSub(sp, c64(1)))));
  return function;
}

void GuardCodeEmitter::emitMessage(
    IRBuilder<> &b, Value *guardId, Value *buffer, Value *size,
    ArrayRef<Value *> fields, function_ref<Value *(IRBuilder<> &)> otherName,
    function_ref<Value *(IRBuilder<> &)> dtypeName) {
  Function *function = b.GetInsertBlock()->getParent();
  FunctionCallee snprintfFn = module.getOrInsertFunction(
      "snprintf", FunctionType::get(i32, {ptr, i64, ptr}, /*isVarArg=*/true));
  // The tables: each guard's first piece, the pieces, their texts.
  ArrayType *startsType = ArrayType::get(i32, table.messages.size());
  GlobalVariable *startsGlobal = constantTable(
      ConstantDataArray::get(context, ArrayRef<int32_t>(table.messages)),
      "message_starts");
  StructType *pieceType = StructType::get(context, {i32, i32});
  ArrayType *piecesType = ArrayType::get(pieceType, table.pieces.size());
  std::vector<Constant *> pieces;
  for (const MessagePiece &piece : table.pieces)
    pieces.push_back(ConstantStruct::get(
        pieceType, {c32(int32_t(piece.kind)), c32(piece.text)}));
  GlobalVariable *piecesGlobal =
      constantTable(ConstantArray::get(piecesType, pieces), "message_pieces");
  GlobalVariable *strings = constantTable(
      ConstantDataArray::getString(context, table.strings,
                                   /*AddNull=*/table.strings.empty()),
      "message_texts");

  // Each piece is printed by its own snprintf at the end of what the
  // earlier ones printed (or with no room, only counted), so that the
  // buffer and the length are those of one snprintf of the whole message.
  BasicBlock *entry = b.GetInsertBlock();
  BasicBlock *loop = BasicBlock::Create(context, "piece", function);
  BasicBlock *next = BasicBlock::Create(context, "piece.next", function);
  BasicBlock *done = BasicBlock::Create(context, "pieces.done", function);
  BasicBlock *asInt = BasicBlock::Create(context, "piece.int", function);
  BasicBlock *asText = BasicBlock::Create(context, "piece.text", function);
  Value *first = b.CreateSExt(
      b.CreateLoad(i32,
                   b.CreateInBoundsGEP(startsType, startsGlobal,
                                       {c64(0), b.CreateZExt(guardId, i64)})),
      i64);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  PHINode *index = b.CreatePHI(i64, 2, "piece");
  PHINode *total = b.CreatePHI(i32, 2, "length");
  index->addIncoming(first, entry);
  total->addIncoming(c32(0), entry);
  Value *piece = b.CreateInBoundsGEP(piecesType, piecesGlobal, {c64(0), index});
  Value *kind = b.CreateLoad(i32, b.CreateStructGEP(pieceType, piece, 0));
  Value *text = b.CreateLoad(i32, b.CreateStructGEP(pieceType, piece, 1));
  Value *position = b.CreateZExt(total, i64);
  Value *room = b.CreateICmpULT(position, size);
  Value *at = b.CreateSelect(
      room, b.CreateInBoundsGEP(b.getInt8Ty(), buffer, position), buffer);
  Value *available = b.CreateSelect(room, b.CreateSub(size, position), c64(0));
  SwitchInst *kinds = b.CreateSwitch(kind, done);
  auto kindIs = [&](IRBuilder<> &ib, MessagePieceKind k) {
    return ib.CreateICmpEQ(kind, c32(int32_t(k)));
  };
  auto addCase = [&](MessagePieceKind k, BasicBlock *block) {
    kinds->addCase(cast<ConstantInt>(c32(int32_t(k))), block);
  };
  IRBuilder<> tb(asText);
  PHINode *textArg = tb.CreatePHI(ptr, 3, "text");
  Value *printedText = tb.CreateCall(
      snprintfFn,
      {at, available, tb.CreateGlobalStringPtr("%s", "fmt"), textArg});
  tb.CreateBr(next);
  // Integers: the status field the piece names, or an unknown dtype's code.
  IRBuilder<> ib(asInt);
  Value *number =
      ib.CreateSelect(kindIs(ib, MessagePieceKind::ExpectedMin), fields[0],
                      ib.CreateSelect(kindIs(ib, MessagePieceKind::ExpectedMax),
                                      fields[1], fields[2]));
  Value *format =
      ib.CreateSelect(kindIs(ib, MessagePieceKind::ActualDType),
                      ib.CreateGlobalStringPtr("dtype code %lld", "fmt"),
                      ib.CreateGlobalStringPtr("%lld", "fmt"));
  Value *printedInt =
      ib.CreateCall(snprintfFn, {at, available, format, number});
  ib.CreateBr(next);
  for (MessagePieceKind k :
       {MessagePieceKind::ExpectedMin, MessagePieceKind::ExpectedMax,
        MessagePieceKind::Actual})
    addCase(k, asInt);
  {
    BasicBlock *block = BasicBlock::Create(context, "piece.literal", function);
    addCase(MessagePieceKind::Text, block);
    IRBuilder<> lb(block);
    textArg->addIncoming(
        lb.CreateInBoundsGEP(b.getInt8Ty(), strings, lb.CreateSExt(text, i64)),
        block);
    lb.CreateBr(asText);
  }
  auto uses = [&](MessagePieceKind k) {
    return llvm::any_of(table.pieces,
                        [&](const MessagePiece &p) { return p.kind == k; });
  };
  if (uses(MessagePieceKind::Other)) {
    BasicBlock *block = BasicBlock::Create(context, "piece.other", function);
    addCase(MessagePieceKind::Other, block);
    IRBuilder<> ob(block);
    textArg->addIncoming(otherName(ob), ob.GetInsertBlock());
    ob.CreateBr(asText);
  }
  if (uses(MessagePieceKind::ActualDType)) {
    // A code that is no dtype has no name: its number is printed.
    BasicBlock *block = BasicBlock::Create(context, "piece.dtype", function);
    addCase(MessagePieceKind::ActualDType, block);
    IRBuilder<> db(block);
    Value *name = dtypeName(db);
    textArg->addIncoming(name, db.GetInsertBlock());
    db.CreateCondBr(db.CreateIsNull(name), asInt, asText);
  }
  IRBuilder<> nb(next);
  PHINode *printed = nb.CreatePHI(i32, 2, "printed");
  printed->addIncoming(printedText, asText);
  printed->addIncoming(printedInt, asInt);
  index->addIncoming(nb.CreateAdd(index, c64(1)), next);
  total->addIncoming(nb.CreateAdd(total, printed), next);
  nb.CreateBr(loop);
  IRBuilder<>(done).CreateRet(total);
}

Function *txc::emitGuardInterpreter(Module &module, const Contract &contract,
                                    const GuardTable &table, bool cold) {
  return GuardCodeEmitter(module, contract, table).emitInterpreter(cold);
}

void txc::emitGuardMessage(IRBuilder<> &b, const Contract &contract,
                           const GuardTable &table, Value *guardId,
                           Value *buffer, Value *size, ArrayRef<Value *> fields,
                           function_ref<Value *(IRBuilder<> &)> otherName,
                           function_ref<Value *(IRBuilder<> &)> dtypeName) {
  GuardCodeEmitter(*b.GetInsertBlock()->getModule(), contract, table)
      .emitMessage(b, guardId, buffer, size, fields, otherName, dtypeName);
}
