//===- PartitionedOptimizer.cpp - LLVM optimization on several threads ----===//
#include "txc/Target/PartitionedOptimizer.h"
#include "txc/Target/ObjectEmitter.h"
#include "ModuleSplit.h"

#include "mlir/Support/Timing.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace txc;

namespace {
using GlobalSet = llvm::SmallSetVector<const llvm::GlobalValue *, 8>;
} // namespace

/// The globals `value` refers to, through constant expressions and
/// aggregates too, into `out`.
static void collectGlobals(const llvm::Value *value, GlobalSet &out,
                           llvm::SmallPtrSetImpl<const llvm::Value *> &seen) {
  if (!seen.insert(value).second)
    return;
  if (const auto *global = llvm::dyn_cast<llvm::GlobalValue>(value)) {
    out.insert(global);
    return;
  }
  if (const auto *constant = llvm::dyn_cast<llvm::Constant>(value))
    for (const llvm::Value *operand : constant->operands())
      collectGlobals(operand, out, seen);
}

/// The globals a function or a variable's initializer refers to.
static GlobalSet referencedGlobals(const llvm::GlobalValue &global) {
  GlobalSet out;
  llvm::SmallPtrSet<const llvm::Value *, 32> seen;
  if (const auto *function = llvm::dyn_cast<llvm::Function>(&global)) {
    for (const llvm::Instruction &inst : llvm::instructions(*function))
      for (const llvm::Value *operand : inst.operands())
        if (llvm::isa<llvm::Constant>(operand))
          collectGlobals(operand, out, seen);
  } else if (const auto *variable =
                 llvm::dyn_cast<llvm::GlobalVariable>(&global)) {
    if (variable->hasInitializer())
      collectGlobals(variable->getInitializer(), out, seen);
  }
  return out;
}

/// The instructions of `root` and of the local functions it reaches that
/// are neither roots nor counted already: what its partition will hold. A
/// region whose loops became tasks (ParallelTasks) is a few calls; its
/// tasks, launchers and serial copies are the work.
static unsigned partitionWeight(const llvm::Function &root,
                                const llvm::StringSet<> &rootNames,
                                llvm::SmallPtrSetImpl<const llvm::Function *> &counted) {
  unsigned total = 0;
  llvm::SmallVector<const llvm::Function *> work = {&root};
  while (!work.empty()) {
    const llvm::Function *function = work.pop_back_val();
    bool otherRoot = function != &root &&
                     (!function->hasLocalLinkage() ||
                      rootNames.contains(function->getName()));
    if (function->isDeclaration() || otherRoot ||
        !counted.insert(function).second)
      continue;
    total += function->getInstructionCount();
    for (const llvm::GlobalValue *global : referencedGlobals(*function))
      if (const auto *callee = llvm::dyn_cast<llvm::Function>(global))
        work.push_back(callee);
  }
  return total;
}

/// Groups the roots, in module order, into partitions 1, 2, ... of at
/// least `minInstructions` instructions, their callees' included (the
/// last may be smaller).
static void groupRoots(const llvm::Module &module,
                       llvm::ArrayRef<std::string> roots,
                       unsigned minInstructions,
                       llvm::DenseMap<const llvm::Function *, unsigned> &home,
                       unsigned &count) {
  llvm::StringSet<> rootNames;
  for (const std::string &name : roots)
    rootNames.insert(name);
  llvm::SmallPtrSet<const llvm::Function *, 32> counted;
  unsigned size = 0;
  for (const llvm::Function &function : module) {
    if (function.isDeclaration() || !rootNames.contains(function.getName()))
      continue;
    if (size == 0)
      ++count;
    home[&function] = count - 1;
    size += partitionWeight(function, rootNames, counted);
    if (size >= minInstructions)
      size = 0;
  }
}

/// Gives every function `from` reaches through functions without a
/// partition the partition `partition`.
static void claimCallees(const llvm::Function &from, unsigned partition,
                         llvm::DenseMap<const llvm::Function *, unsigned> &home) {
  llvm::SmallVector<const llvm::Function *> work = {&from};
  while (!work.empty()) {
    const llvm::Function *function = work.pop_back_val();
    for (const llvm::GlobalValue *global : referencedGlobals(*function)) {
      const auto *callee = llvm::dyn_cast<llvm::Function>(global);
      if (!callee || callee->isDeclaration() || home.count(callee))
        continue;
      home[callee] = partition;
      work.push_back(callee);
    }
  }
}

PartitionPlan txc::planPartitions(const llvm::Module &module,
                                  llvm::ArrayRef<std::string> roots,
                                  unsigned minInstructions) {
  llvm::DenseMap<const llvm::Function *, unsigned> home;
  PartitionPlan plan;
  groupRoots(module, roots, minInstructions, home, plan.count);
  // Partition 0 first: the entry points (the functions visible outside
  // that are not roots) and what they reach; then each group's callees, so
  // that a function that may be inlined is in the partition of its first
  // caller. What nothing reaches is in partition 0 too.
  for (const llvm::Function &function : module)
    if (!function.isDeclaration() && !function.hasLocalLinkage() &&
        !home.count(&function)) {
      home[&function] = 0;
      claimCallees(function, 0, home);
    }
  for (const llvm::Function &function : module) {
    auto root = home.find(&function);
    if (root != home.end() && root->second != 0)
      claimCallees(function, root->second, home);
  }
  for (const llvm::Function &function : module)
    if (!function.isDeclaration())
      plan.functions.push_back({&function, home.lookup(&function)});
  return plan;
}

/// Whether a partition may see the initializer of a variable defined in
/// another: a constant whose contents are known now (not the embedded
/// weights, which are externally initialized placeholders).
static bool isCopyableConstant(const llvm::GlobalValue *global) {
  const auto *variable = llvm::dyn_cast<llvm::GlobalVariable>(global);
  return variable && variable->isConstant() && variable->hasInitializer() &&
         !variable->isExternallyInitialized() && !variable->hasComdat();
}

/// Makes a local value external and hidden (a unique name kept), recording
/// how to restore it.
static void externalize(llvm::GlobalValue &global, Split &split) {
  if (!global.hasLocalLinkage())
    return;
  split.externalized.push_back({global.getName().str(), global.getLinkage(),
                                global.getVisibility(), global.isDSOLocal()});
  global.setLinkage(llvm::GlobalValue::ExternalLinkage);
  global.setVisibility(llvm::GlobalValue::HiddenVisibility);
}

Split txc::splitModule(llvm::Module &module, const PartitionPlan &plan) {
  Split split;
  split.count = plan.count;
  split.copies.resize(plan.count);
  for (auto [function, partition] : plan.functions)
    split.home[function] = partition;
  // Every name must survive the trip through bitcode and the linker.
  for (llvm::GlobalValue &global : module.global_values())
    if (!global.hasName())
      global.setName("txc.split.unnamed");
  llvm::SetVector<llvm::GlobalValue *> shared;
  auto notePartitionUses = [&](const llvm::GlobalValue &user,
                               unsigned partition) {
    for (const llvm::GlobalValue *used : referencedGlobals(user)) {
      if (used->isDeclaration() || split.home.lookup(used) == partition)
        continue;
      shared.insert(const_cast<llvm::GlobalValue *>(used));
      if (isCopyableConstant(used))
        split.copies[partition].insert(used);
    }
  };
  for (auto [function, partition] : plan.functions)
    notePartitionUses(*function, partition);
  for (const llvm::GlobalVariable &variable : module.globals())
    notePartitionUses(variable, 0);
  // A copied constant's own references are the copying partition's too.
  for (unsigned p = 1; p < plan.count; ++p)
    for (const llvm::GlobalValue *copy :
         llvm::SmallVector<const llvm::GlobalValue *>(split.copies[p].begin(),
                                                      split.copies[p].end()))
      notePartitionUses(*copy, p);
  for (llvm::GlobalValue *global : shared)
    externalize(*global, split);
  return split;
}

/// Erases the declarations that cloning made of the other partitions'
/// definitions and that this partition does not use. A local function of
/// another partition is external only when this one calls it; an unused
/// declaration of it would stay (at -O0 nothing deletes it) and make the
/// linker rename the local definition when the partitions are linked.
static void eraseUnusedDeclarations(llvm::Module &clone,
                                    const llvm::Module &original) {
  for (llvm::Function &function :
       llvm::make_early_inc_range(clone.functions())) {
    const llvm::Function *source = original.getFunction(function.getName());
    if (function.isDeclaration() && function.use_empty() && source &&
        !source->isDeclaration())
      function.eraseFromParent();
  }
  for (llvm::GlobalVariable &variable :
       llvm::make_early_inc_range(clone.globals())) {
    const llvm::GlobalVariable *source =
        original.getNamedGlobal(variable.getName());
    if (variable.isDeclaration() && variable.use_empty() && source &&
        !source->isDeclaration())
      variable.eraseFromParent();
  }
}

/// The bitcode of partition `partition`: its definitions, declarations of
/// the rest that it uses.
std::string txc::partitionBitcode(const llvm::Module &module,
                                  const Split &split, unsigned partition) {
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> clone = llvm::CloneModule(
      module, map, [&](const llvm::GlobalValue *global) {
        return split.home.lookup(global) == partition ||
               split.copies[partition].contains(global);
      });
  for (const llvm::GlobalValue *copy : split.copies[partition])
    llvm::cast<llvm::GlobalValue>(map[copy])
        ->setLinkage(llvm::GlobalValue::AvailableExternallyLinkage);
  eraseUnusedDeclarations(*clone, module);
  std::string bitcode;
  llvm::raw_string_ostream os(bitcode);
  llvm::WriteBitcodeToFile(*clone, os);
  return bitcode;
}

llvm::Expected<LoadedPartition>
txc::loadPartition(llvm::StringRef bitcode, llvm::LLVMContext &context,
                   const llvm::TargetMachine &machine) {
  auto module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(bitcode, "partition"), context);
  if (!module)
    return module.takeError();
  auto ownMachine = cloneTargetMachine(machine);
  if (!ownMachine)
    return ownMachine.takeError();
  return LoadedPartition{std::move(*module), std::move(*ownMachine)};
}

/// Reads, optimizes and writes back one partition. An error is returned as
/// its message.
static std::string optimizePartition(std::string &bitcode,
                                     const llvm::TargetMachine &machine,
                                     unsigned optLevel) {
  llvm::LLVMContext context;
  auto partition = loadPartition(bitcode, context, machine);
  if (!partition)
    return llvm::toString(partition.takeError());
  optimizeLLVMModule(*partition->module, *partition->machine, optLevel);
  bitcode.clear();
  llvm::raw_string_ostream os(bitcode);
  llvm::WriteBitcodeToFile(*partition->module, os);
  return "";
}

void txc::restoreLocals(llvm::Module &module, const Split &split) {
  for (const Externalized &value : split.externalized) {
    llvm::GlobalValue *global = module.getNamedValue(value.name);
    if (!global)
      continue;
    global->setLinkage(value.linkage);
    global->setVisibility(value.visibility);
    global->setDSOLocal(value.dsoLocal);
  }
}

/// Puts the functions and variables back in the order of the unsplit
/// module (those optimization made after them, in linked order): the
/// object's layout then follows the program as before.
static void restoreOrder(llvm::Module &module,
                         llvm::ArrayRef<std::string> functionOrder,
                         llvm::ArrayRef<std::string> variableOrder) {
  auto sorted = [](auto values, llvm::ArrayRef<std::string> order) {
    llvm::StringMap<unsigned> rank;
    for (unsigned i = 0; i < order.size(); ++i)
      rank[order[i]] = i;
    auto rankOf = [&](const llvm::GlobalValue *value) {
      auto it = rank.find(value->getName());
      return it == rank.end() ? unsigned(order.size()) : it->second;
    };
    std::stable_sort(values.begin(), values.end(), [&](auto *a, auto *b) {
      return rankOf(a) < rankOf(b);
    });
    return values;
  };
  std::vector<llvm::Function *> functions;
  for (llvm::Function &function : module)
    functions.push_back(&function);
  for (llvm::Function *function : sorted(functions, functionOrder))
    module.getFunctionList().splice(module.end(), module.getFunctionList(),
                                    function->getIterator());
  std::vector<llvm::GlobalVariable *> variables;
  for (llvm::GlobalVariable &variable : module.globals())
    variables.push_back(&variable);
  for (llvm::GlobalVariable *variable : sorted(variables, variableOrder)) {
    module.removeGlobalVariable(variable);
    module.insertGlobalVariable(variable);
  }
}

llvm::Error txc::partitionError(unsigned partition,
                                const std::string &what) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "internal error: LLVM partition %u: %s", partition, what.c_str());
}

llvm::Error txc::runPartitions(
    unsigned count, llvm::ThreadPoolInterface *threads,
    mlir::TimingScope &timing,
    llvm::function_ref<std::string(unsigned partition)> work) {
  std::vector<std::string> errors(count);
  // The timers' names, made here: a worker thread only reads them.
  std::vector<std::string> names;
  for (unsigned p = 0; p < count; ++p)
    names.push_back("partition " + std::to_string(p));
  auto run = [&](unsigned p) {
    mlir::TimingScope scope =
        timing.nest(&names[p], [&names, p] { return names[p]; });
    errors[p] = work(p);
  };
  if (threads) {
    llvm::ThreadPoolTaskGroup group(*threads);
    for (unsigned p = 0; p < count; ++p)
      group.async(run, p);
    group.wait();
  } else {
    for (unsigned p = 0; p < count; ++p)
      run(p);
  }
  for (unsigned p = 0; p < count; ++p)
    if (!errors[p].empty())
      return partitionError(p, errors[p]);
  return llvm::Error::success();
}

/// Links the optimized partitions in their order into one module of
/// `context`.
static llvm::Expected<std::unique_ptr<llvm::Module>>
linkPartitions(llvm::ArrayRef<std::string> bitcode,
               llvm::LLVMContext &context) {
  std::unique_ptr<llvm::Module> linked;
  for (unsigned p = 0; p < bitcode.size(); ++p) {
    auto module = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(bitcode[p], "partition"), context);
    if (!module)
      return partitionError(p, llvm::toString(module.takeError()));
    if (!linked) {
      linked = std::move(*module);
      continue;
    }
    if (llvm::Linker::linkModules(*linked, std::move(*module)))
      return partitionError(p, "cannot link it");
  }
  return linked;
}

llvm::Expected<std::unique_ptr<llvm::Module>> txc::optimizeInPartitions(
    std::unique_ptr<llvm::Module> module, llvm::ArrayRef<std::string> roots,
    llvm::TargetMachine &machine, unsigned optLevel,
    llvm::ThreadPoolInterface *threads, mlir::TimingScope &timing,
    unsigned minInstructions) {
  PartitionPlan plan = planPartitions(*module, roots, minInstructions);
  if (plan.count == 1) {
    optimizeLLVMModule(*module, machine, optLevel);
    return module;
  }
  std::vector<std::string> functionOrder, variableOrder;
  for (const llvm::Function &function : module->functions())
    functionOrder.push_back(function.getName().str());
  for (const llvm::GlobalVariable &variable : module->globals())
    variableOrder.push_back(variable.getName().str());

  std::vector<std::string> bitcode;
  Split split;
  {
    mlir::TimingScope scope = timing.nest("llvm-split");
    split = splitModule(*module, plan);
    for (unsigned p = 0; p < split.count; ++p)
      bitcode.push_back(partitionBitcode(*module, split, p));
  }
  {
    mlir::TimingScope scope = timing.nest("llvm-partitions");
    auto optimize = [&](unsigned p) {
      return optimizePartition(bitcode[p], machine, optLevel);
    };
    if (llvm::Error err = runPartitions(split.count, threads, scope, optimize))
      return err;
  }
  mlir::TimingScope scope = timing.nest("llvm-link");
  llvm::LLVMContext &context = module->getContext();
  module.reset();
  auto linked = linkPartitions(bitcode, context);
  if (!linked)
    return linked.takeError();
  restoreLocals(**linked, split);
  restoreOrder(**linked, functionOrder, variableOrder);
  // What no partition could do alone: the arguments of a region function
  // that its body does not read, the locals no partition uses any more (a
  // constant whose loads were folded).
  optimizeAcrossFunctions(**linked, machine, optLevel);
  return linked;
}
