//===- DispatchStats.cpp - The dispatch statistics block ------------------===//
//
// The block is written with relaxed atomic read-modify-writes and stores
// only, so that threads may share one block: each counter is exact, and a
// `last` value is one that some call saw. The object never trusts the
// block's memory beyond its first 8 bytes before it checked that its
// struct_size and layout are this program's.
//
//===----------------------------------------------------------------------===//
#include "txc/Target/DispatchStats.h"
#include "txc/Analysis/Specialization.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

#include <algorithm>

using namespace txc;
using namespace llvm;

static void hashInto(uint32_t &hash, StringRef text) {
  // FNV-1a: stable across hosts and compilers, unlike std::hash.
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 16777619u;
  }
}

DispatchStatsLayout txc::dispatchStatsLayout(const Contract &contract) {
  DispatchStatsLayout layout;
  layout.numCodes = 1 + unsigned(contract.variants.size());
  uint32_t hash = 2166136261u;
  hashInto(hash, "txc dispatch stats v1\n" + contract.entryPrefix + "\n");
  for (const ContractVariant &variant : contract.variants) {
    hashInto(hash, std::to_string(variant.id) + ":" + variant.text(contract) +
                       "\n");
    size_t first = layout.slots.size();
    for (const SymbolBinding &binding : variant.bindings)
      for (const Guard &g : contract.guards)
        if (g.kind == GuardKind::SymbolRange &&
            g.symbol == int32_t(binding.symbol))
          layout.slots.push_back(
              {variant.id, g.id, binding.symbol, binding.value,
               contract.symbols[binding.symbol].name + " == " +
                   std::to_string(binding.value)});
    // In the order the guards are checked: the first that fails is the one
    // that sent the call elsewhere.
    std::stable_sort(layout.slots.begin() + first, layout.slots.end(),
                     [](const DispatchStatsSlot &a, const DispatchStatsSlot &b) {
                       return a.guard < b.guard;
                     });
  }
  for (const DispatchStatsSlot &slot : layout.slots)
    hashInto(hash, std::to_string(slot.variant) + "/" +
                       std::to_string(slot.guard) + "\n");
  layout.id = hash ? hash : 1;
  return layout;
}

//===----------------------------------------------------------------------===//
// The header
//===----------------------------------------------------------------------===//

void txc::emitDispatchStatsHeader(raw_ostream &os, const Contract &contract,
                                  StringRef macro) {
  DispatchStatsLayout layout = dispatchStatsLayout(contract);
  std::string type = dispatchStatsType(contract);
  os << "/* Dispatch statistics (docs/specialization.md): a block the caller\n"
        "   owns, initialized with "
     << macro << "_DISPATCH_STATS_INIT and passed in\n"
        "   txc_run_options.dispatch_stats; threads may share one. calls[]\n"
        "   counts the calls each code ran (by "
     << macro << "_VARIANT_*), failed those that\n"
        "   ran none; missed[] counts, per variant and narrowed guard, the\n"
        "   calls that guard sent elsewhere, with the last value seen. */\n"
     << "#define " << macro << "_DISPATCH_STATS_LAYOUT " << layout.id << "u\n";
  for (auto [index, slot] : llvm::enumerate(layout.slots))
    os << "#define " << macro << "_MISSED_"
       << contract.variants[slot.variant - 1].name(contract) << "_"
       << contract.symbols[slot.symbol].name << ' ' << index << " /* guard "
       << slot.guard << ": " << slot.expression << " */\n";
  os << "typedef struct " << type << "_missed {\n"
     << "  int32_t variant;  /* " << macro << "_VARIANT_* */\n"
     << "  int32_t guard;    /* the guard id (the manifest's guards) */\n"
     << "  uint64_t count;   /* calls it sent elsewhere */\n"
     << "  int64_t last;     /* the symbol's value in the last of them */\n"
     << "} " << type << "_missed;\n"
     << "typedef struct " << type << " {\n"
     << "  uint32_t struct_size; /* sizeof(" << type << ") */\n"
     << "  uint32_t layout;      /* " << macro << "_DISPATCH_STATS_LAYOUT */\n"
     << "  uint64_t failed;\n"
     << "  uint64_t calls[" << layout.numCodes << "];\n";
  if (!layout.slots.empty())
    os << "  " << type << "_missed missed[" << layout.slots.size() << "];\n";
  os << "} " << type << ";\n"
     << "typedef char " << type << "_check_layout[(sizeof(" << type
     << ") == " << layout.size() << ") ? 1 : -1];\n"
     << "#define " << macro << "_DISPATCH_STATS_INIT {sizeof(" << type
     << "), " << macro << "_DISPATCH_STATS_LAYOUT, 0, {0}";
  if (!layout.slots.empty()) {
    os << ", {";
    for (auto [index, slot] : llvm::enumerate(layout.slots))
      os << (index ? ", " : "") << "{" << slot.variant << ", " << slot.guard
         << ", 0, 0}";
    os << "}";
  }
  os << "}\n"
     << "/* Writes the block as text into buffer (at most size bytes, with\n"
        "   the terminating NUL) and returns the length of the whole text, as\n"
        "   snprintf does; -1 (nothing written) when stats is not a block of\n"
        "   this program. */\n"
     << "int32_t " << formatDispatchStatsSymbol(contract) << "(const " << type
     << " *stats, char *buffer, size_t size);\n\n";
}

//===----------------------------------------------------------------------===//
// Counting
//===----------------------------------------------------------------------===//

namespace {

/// Emits the IR that reads and updates one block.
class BlockAccess {
public:
  BlockAccess(IRBuilder<> &b, const DispatchStatsLayout &layout, Value *block)
      : b(b), layout(layout), block(block), i64(b.getInt64Ty()) {}

  Value *at(unsigned offset) {
    return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), block, offset);
  }
  /// A relaxed atomic increment of the counter at `address`.
  void increment(Value *address) {
    b.CreateAtomicRMW(AtomicRMWInst::Add, address, b.getInt64(1), Align(8),
                      AtomicOrdering::Monotonic);
  }
  /// A relaxed atomic load, so that a reader racing with writers is not a
  /// data race either.
  Value *read(unsigned offset) {
    LoadInst *load = b.CreateAlignedLoad(i64, at(offset), Align(8));
    load->setAtomic(AtomicOrdering::Monotonic);
    return load;
  }
  void store(Value *value, unsigned offset) {
    StoreInst *store = b.CreateAlignedStore(value, at(offset), Align(8));
    store->setAtomic(AtomicOrdering::Monotonic);
  }

  IRBuilder<> &b;
  const DispatchStatsLayout &layout;
  Value *block;
  Type *i64;
};

} // namespace

StructType *txc::dispatchContextType(LLVMContext &context) {
  return StructType::get(context, {PointerType::getUnqual(context),
                                   Type::getInt32Ty(context)});
}

Value *txc::isDispatchStatsBlock(IRBuilder<> &b,
                                 const DispatchStatsLayout &layout,
                                 Value *block) {
  static_assert(AbiLayout::kStatsStructSize == 0,
                "struct_size is read at the block's address");
  Value *size = b.CreateLoad(b.getInt32Ty(), block, "struct_size");
  Value *id = b.CreateLoad(b.getInt32Ty(),
                           b.CreateConstInBoundsGEP1_64(
                               b.getInt8Ty(), block, AbiLayout::kStatsLayout),
                           "layout");
  return b.CreateAnd(b.CreateICmpEQ(size, b.getInt32(layout.size())),
                     b.CreateICmpEQ(id, b.getInt32(layout.id)));
}

/// For each variant the dispatcher tried before `code` (dispatch order),
/// counts the first of its narrowed guards that the call's symbols fail.
static void recordMisses(IRBuilder<> &b, const Contract &contract,
                         const DispatchStatsLayout &layout, Value *block,
                         Value *code, ArrayRef<Value *> symbols) {
  std::vector<const ContractVariant *> order =
      dispatchOrder(contract.variants);
  // The position of the chosen code in the order; the generic code comes
  // after every variant.
  Value *rank = b.getInt32(order.size());
  for (auto [position, variant] : llvm::enumerate(order))
    rank = b.CreateSelect(b.CreateICmpEQ(code, b.getInt32(variant->id)),
                          b.getInt32(position), rank);
  Function *function = b.GetInsertBlock()->getParent();
  LLVMContext &context = b.getContext();
  BlockAccess access(b, layout, block);
  for (auto [position, variant] : llvm::enumerate(order)) {
    BasicBlock *next = BasicBlock::Create(context, "tried.next", function);
    BasicBlock *check = BasicBlock::Create(context, "tried", function);
    b.CreateCondBr(b.CreateICmpULT(b.getInt32(position), rank), check, next);
    b.SetInsertPoint(check);
    for (auto [index, slot] : llvm::enumerate(layout.slots)) {
      if (slot.variant != variant->id)
        continue;
      Value *value = symbols[slot.symbol];
      BasicBlock *missed = BasicBlock::Create(context, "missed", function);
      BasicBlock *held = BasicBlock::Create(context, "held", function);
      b.CreateCondBr(b.CreateICmpNE(value, b.getInt64(slot.value)), missed,
                     held);
      b.SetInsertPoint(missed);
      unsigned offset = layout.slotOffset(index);
      access.increment(access.at(offset + AbiLayout::kStatsSlotCount));
      access.store(value, offset + AbiLayout::kStatsSlotLast);
      b.CreateBr(next);
      b.SetInsertPoint(held);
    }
    b.CreateBr(next);
    b.SetInsertPoint(next);
  }
}

Function *txc::getOrEmitDispatchRecorder(Module &module,
                                         const Contract &contract) {
  std::string name = contract.entryPrefix + ".record_dispatch";
  if (Function *existing = module.getFunction(name))
    return existing;
  LLVMContext &context = module.getContext();
  Type *i32 = Type::getInt32Ty(context), *i64 = Type::getInt64Ty(context);
  PointerType *ptr = PointerType::getUnqual(context);
  SmallVector<Type *> params = {ptr, i32};
  params.append(contract.symbols.size(), i64);
  Function *function = Function::Create(
      FunctionType::get(Type::getVoidTy(context), params, false),
      GlobalValue::InternalLinkage, name, module);
  // Inlined: with the constant NULL context of the entry points without
  // options, nothing of it remains.
  function->addFnAttr(Attribute::AlwaysInline);
  function->addFnAttr(Attribute::NoUnwind);
  Value *callContext = function->getArg(0), *code = function->getArg(1);
  SmallVector<Value *> symbols;
  for (unsigned s = 0; s < contract.symbols.size(); ++s)
    symbols.push_back(function->getArg(2 + s));

  BasicBlock *entry = BasicBlock::Create(context, "entry", function);
  BasicBlock *mark = BasicBlock::Create(context, "mark", function);
  BasicBlock *count = BasicBlock::Create(context, "count", function);
  BasicBlock *done = BasicBlock::Create(context, "done", function);
  IRBuilder<> b(entry);
  b.CreateCondBr(b.CreateIsNull(callContext), done, mark);
  b.SetInsertPoint(mark);
  // {ptr block, i32 dispatched}: the caller's stack, not shared.
  StructType *contextType = dispatchContextType(context);
  b.CreateStore(b.getInt32(1), b.CreateStructGEP(contextType, callContext, 1));
  Value *block = b.CreateLoad(
      ptr, b.CreateStructGEP(contextType, callContext, 0), "block");
  b.CreateCondBr(b.CreateIsNull(block), done, count);
  b.SetInsertPoint(count);
  DispatchStatsLayout layout = dispatchStatsLayout(contract);
  BlockAccess access(b, layout, block);
  access.increment(b.CreateInBoundsGEP(i64, access.at(AbiLayout::kStatsCalls),
                                       b.CreateZExt(code, i64)));
  recordMisses(b, contract, layout, block, code, symbols);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return function;
}

//===----------------------------------------------------------------------===//
// Formatting
//===----------------------------------------------------------------------===//

namespace {

/// Appends to the caller's buffer with snprintf, as one snprintf of the
/// whole text would: `length` is the text's length so far, whatever fits.
class TextAppender {
public:
  TextAppender(IRBuilder<> &b, Module &module, Value *buffer, Value *size,
               BasicBlock *error)
      : b(b), module(module), buffer(buffer), size(size), error(error),
        length(b.getInt64(0)) {
    LLVMContext &context = module.getContext();
    PointerType *ptr = PointerType::getUnqual(context);
    snprintf = module.getOrInsertFunction(
        "snprintf", FunctionType::get(b.getInt32Ty(),
                                      {ptr, b.getInt64Ty(), ptr}, true));
  }

  /// `format` is a printf format; `args` its 64-bit integers.
  void append(StringRef format, ArrayRef<Value *> args = {}) {
    append(b.CreateGlobalStringPtr(format, "dispatch_stats.format", 0,
                                   &module),
           args);
  }
  void append(Value *format, ArrayRef<Value *> args) {
    // Past the end of the buffer, snprintf measures only (size 0, no
    // write); the pointer stays inside it.
    Value *fits = b.CreateICmpULT(length, size);
    Value *at = b.CreateSelect(
        fits, b.CreateInBoundsGEP(b.getInt8Ty(), buffer, length), buffer);
    Value *room = b.CreateSelect(fits, b.CreateSub(size, length),
                                 b.getInt64(0));
    SmallVector<Value *> callArgs = {at, room, format};
    callArgs.append(args.begin(), args.end());
    Value *written = b.CreateCall(snprintf, callArgs);
    BasicBlock *ok = BasicBlock::Create(b.getContext(), "appended",
                                        b.GetInsertBlock()->getParent());
    b.CreateCondBr(b.CreateICmpSLT(written, b.getInt32(0)), error, ok);
    b.SetInsertPoint(ok);
    length = b.CreateAdd(length, b.CreateSExt(written, b.getInt64Ty()));
  }
  Value *text(StringRef format) {
    return b.CreateGlobalStringPtr(format, "dispatch_stats.format", 0,
                                   &module);
  }
  Value *total() const { return length; }

private:
  IRBuilder<> &b;
  Module &module;
  Value *buffer, *size;
  BasicBlock *error;
  Value *length;
  FunctionCallee snprintf;
};

} // namespace

/// `text` inside a printf format.
static std::string escapeFormat(StringRef text) {
  std::string escaped;
  for (char c : text) {
    escaped += c;
    if (c == '%')
      escaped += '%';
  }
  return escaped;
}

/// The lines of the counts: one per code, then the failed calls.
static void formatCalls(TextAppender &text, BlockAccess &access,
                        const Contract &contract) {
  text.append("  generic: %llu calls\n", {access.read(AbiLayout::kStatsCalls)});
  for (const ContractVariant &variant : contract.variants)
    text.append("  variant " + std::to_string(variant.id) + " " +
                    escapeFormat(variant.name(contract)) + " (" +
                    escapeFormat(variant.text(contract)) + "): %llu calls\n",
                {access.read(AbiLayout::kStatsCalls + 8 * variant.id)});
  text.append("  no code (a check failed): %llu calls\n",
              {access.read(AbiLayout::kStatsFailed)});
}

/// Per variant, the guards that sent calls elsewhere.
static void formatMisses(IRBuilder<> &b, TextAppender &text,
                         BlockAccess &access, const Contract &contract) {
  const DispatchStatsLayout &layout = access.layout;
  int32_t current = 0;
  for (auto [index, slot] : llvm::enumerate(layout.slots)) {
    const ContractVariant &variant = contract.variants[slot.variant - 1];
    if (slot.variant != current)
      text.append("  variant " + std::to_string(variant.id) + " " +
                  escapeFormat(variant.name(contract)) +
                  " missed by guard:\n");
    current = slot.variant;
    unsigned offset = layout.slotOffset(index);
    Value *count = access.read(offset + AbiLayout::kStatsSlotCount);
    std::string head = "    guard " + std::to_string(slot.guard) + " (" +
                       escapeFormat(slot.expression) + "): %llu calls";
    // The last value only means something once a call was counted.
    Value *format = b.CreateSelect(
        b.CreateICmpEQ(count, b.getInt64(0)), text.text(head + "\n"),
        text.text(head + ", last " +
                  escapeFormat(contract.symbols[slot.symbol].name) +
                  " = %lld\n"));
    text.append(format,
                {count, access.read(offset + AbiLayout::kStatsSlotLast)});
  }
}

void txc::emitFormatDispatchStats(Module &module, const Contract &contract) {
  LLVMContext &context = module.getContext();
  Type *i32 = Type::getInt32Ty(context), *i64 = Type::getInt64Ty(context);
  PointerType *ptr = PointerType::getUnqual(context);
  Function *function = Function::Create(
      FunctionType::get(i32, {ptr, ptr, i64}, false),
      GlobalValue::ExternalLinkage, formatDispatchStatsSymbol(contract),
      module);
  function->addFnAttr(Attribute::NoUnwind);
  Value *block = function->getArg(0), *buffer = function->getArg(1),
        *size = function->getArg(2);
  block->setName("stats");
  buffer->setName("buffer");
  size->setName("size");
  BasicBlock *entry = BasicBlock::Create(context, "entry", function);
  BasicBlock *checkLayout = BasicBlock::Create(context, "check", function);
  BasicBlock *format = BasicBlock::Create(context, "format", function);
  BasicBlock *error = BasicBlock::Create(context, "error", function);
  IRBuilder<> b(entry);
  DispatchStatsLayout layout = dispatchStatsLayout(contract);
  b.CreateCondBr(b.CreateIsNull(block), error, checkLayout);
  b.SetInsertPoint(checkLayout);
  b.CreateCondBr(isDispatchStatsBlock(b, layout, block), format, error);
  b.SetInsertPoint(format);
  TextAppender text(b, module, buffer, size, error);
  BlockAccess access(b, layout, block);
  text.append(escapeFormat(contract.programName) +
              " dispatch statistics:\n");
  formatCalls(text, access, contract);
  formatMisses(b, text, access, contract);
  b.CreateRet(b.CreateTrunc(text.total(), i32));
  IRBuilder<> eb(error);
  eb.CreateRet(eb.getInt32(-1));
}
