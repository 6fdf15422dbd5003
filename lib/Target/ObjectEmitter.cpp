//===- ObjectEmitter.cpp - LLVM IR to object code, in process -------------===//
#include "txc/Target/ObjectEmitter.h"
#include "txc/Target/CpuDispatch.h"
#include "txc/Target/Imports.h"

#include "txc/Support/Diagnostics.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/ConstantMerge.h"
#include "llvm/Transforms/IPO/DeadArgumentElimination.h"
#include "llvm/Transforms/IPO/GlobalDCE.h"
#include "llvm/Transforms/IPO/GlobalOpt.h"
#include "llvm/Transforms/IPO/MergeFunctions.h"
#include "llvm/Transforms/IPO/SCCP.h"
#include "llvm/Transforms/Scalar/InferAlignment.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace txc;

static void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    // Partitioned code generation assembles the partitions' assembly.
    llvm::InitializeAllAsmParsers();
  });
}

char TargetOptionError::ID = 0;

void TargetOptionError::log(llvm::raw_ostream &os) const {
  os << message;
  for (const std::string &note : notes)
    os << "; " << note;
}

static llvm::Error targetOptionError(const llvm::Twine &message,
                                     std::vector<std::string> notes = {}) {
  return llvm::make_error<TargetOptionError>(message.str(), std::move(notes));
}

/// The ABI (docs/abi.md) has 64-bit sizes and pointers and the entry points
/// need a C library; txc generates and tests code for these two.
static const char *const kSupportedArchs[] = {"x86_64", "aarch64"};

static bool isSupportedArch(const llvm::Triple &triple) {
  return triple.getArch() == llvm::Triple::x86_64 ||
         triple.getArch() == llvm::Triple::aarch64;
}

namespace {
/// A normalized triple and its LLVM target, one txc compiles for.
struct ResolvedTarget {
  std::string triple;
  const llvm::Target *target = nullptr;
};
} // namespace

static llvm::Expected<ResolvedTarget> lookupTarget(llvm::StringRef triple) {
  initializeTargets();
  ResolvedTarget resolved;
  resolved.triple =
      llvm::Triple::normalize(triple.empty() ? llvm::sys::getDefaultTargetTriple()
                                             : triple);
  std::string error;
  resolved.target = llvm::TargetRegistry::lookupTarget(resolved.triple, error);
  llvm::Triple parsed(resolved.triple);
  if (!resolved.target || !isSupportedArch(parsed)) {
    // Most misspellings are of the architecture: suggest the triple with
    // the closest supported one.
    auto [arch, rest] = triple.split('-');
    std::string suggestion = nearestName(
        arch, {std::begin(kSupportedArchs), std::end(kSupportedArchs)});
    std::string hint =
        suggestion.empty() || parsed.getArch() != llvm::Triple::UnknownArch
            ? ""
            : " (did you mean '" + suggestion +
                  (rest.empty() ? "" : "-" + rest.str()) + "'?)";
    std::vector<std::string> notes = {
        "the targets are x86_64-linux-gnu and aarch64-linux-gnu (txc "
        "targets describes them)"};
    if (!resolved.target)
      return targetOptionError("unknown target '" + resolved.triple +
                                   "': " + error + hint,
                               notes);
    return targetOptionError(
        "target '" + resolved.triple +
            "' is not supported; txc compiles for x86_64 and aarch64 "
            "(64-bit, with a C library)" + hint,
        notes);
  }
  return resolved;
}

/// The subtarget tables of a target, from a subtarget of its default CPU:
/// one created for an unknown CPU prints LLVM's own warning on stderr.
static std::unique_ptr<const llvm::MCSubtargetInfo>
subtargetTables(const ResolvedTarget &resolved) {
  return std::unique_ptr<const llvm::MCSubtargetInfo>(
      resolved.target->createMCSubtargetInfo(resolved.triple, "", ""));
}

static std::vector<std::string>
cpuNames(const llvm::MCSubtargetInfo &tables) {
  std::vector<std::string> names;
  for (const llvm::SubtargetSubTypeKV &cpu :
       tables.getAllProcessorDescriptions())
    names.push_back(cpu.Key);
  return names;
}

static std::vector<std::string>
featureNames(const llvm::MCSubtargetInfo &tables) {
  std::vector<std::string> names;
  for (const llvm::SubtargetFeatureKV &feature :
       tables.getAllProcessorFeatures())
    names.push_back(feature.Key);
  return names;
}

/// Checks `--features`: a comma-separated list of +name and -name, each a
/// feature of the target. LLVM would only warn about an unknown one, once
/// for every subtarget it creates, and ignore it.
static llvm::Error checkFeatures(llvm::StringRef features,
                                 const ResolvedTarget &resolved,
                                 const llvm::MCSubtargetInfo &tables) {
  std::vector<std::string> valid = featureNames(tables);
  llvm::SmallVector<llvm::StringRef, 16> items;
  features.split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    item = item.trim();
    llvm::StringRef sign = item.take_front(1);
    llvm::StringRef name = item.drop_front(1);
    if (sign != "+" && sign != "-")
      return targetOptionError("--features: '" + item +
                               "' must start with '+' (enable) or '-' "
                               "(disable)");
    if (llvm::is_contained(valid, name))
      continue;
    std::string nearest = nearestName(name, valid);
    return targetOptionError(
        "unknown target feature '" + item + "' in --features for target '" +
            resolved.triple + "'" +
            (nearest.empty()
                 ? std::string()
                 : " (did you mean '" + sign.str() + nearest + "'?)"),
        {"the features of " + resolved.triple + " are " +
         llvm::join(valid, ", ") + " (txc targets " + resolved.triple +
         " describes them)"});
  }
  return llvm::Error::success();
}

llvm::StringRef txc::defaultCPU(const llvm::Triple &triple) {
  // x86-64-v2 (SSE4.2, POPCNT, CMPXCHG16B): every x86-64 server CPU since
  // 2009 (Nehalem, Bulldozer), RHEL 9's baseline. AArch64's generic is
  // ARMv8.0-A with NEON, which every AArch64 Linux machine has.
  return triple.getArch() == llvm::Triple::x86_64 ? "x86-64-v2" : "generic";
}

bool txc::isHostTriple(const llvm::Triple &triple) {
  llvm::Triple host(llvm::sys::getDefaultTargetTriple());
  return triple.getArch() == host.getArch() && triple.getOS() == host.getOS();
}

/// This machine's exact features: a VM may hide some of the CPU model's.
static std::string hostFeatures() {
  llvm::SubtargetFeatures features;
  llvm::StringMap<bool> flags = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> names;
  for (const auto &flag : flags)
    names.push_back((flag.second ? "+" : "-") + flag.first().str());
  llvm::sort(names); // StringMap order is not deterministic
  for (const std::string &name : names)
    features.AddFeature(name);
  return features.getString();
}

/// Checks a --cpu list (`x86-64-v2,x86-64-v3`): x86-64 levels only (the
/// dispatcher knows what each needs of the CPU), in increasing order so
/// that the first, the baseline, runs wherever the object does and each
/// further one is worth choosing; no --features, which would apply to
/// levels with other features.
static llvm::Expected<std::vector<std::string>>
checkCPUList(llvm::StringRef list, const llvm::Triple &triple,
             llvm::StringRef features) {
  std::string levels = llvm::join(x86LevelCPUs(), ", ");
  if (triple.getArch() != llvm::Triple::x86_64)
    return targetOptionError("--cpu '" + list + "': a list of CPUs is only "
                             "valid for x86_64 targets, not '" +
                             triple.str() + "'");
  if (!features.empty())
    return targetOptionError("--features cannot be combined with a list of "
                             "CPUs ('" + list + "')");
  llvm::SmallVector<llvm::StringRef, 4> items;
  list.split(items, ',');
  std::vector<std::string> cpus;
  unsigned previous = 0;
  for (llvm::StringRef item : items) {
    item = item.trim();
    unsigned level = x86Level(item);
    if (!level)
      return targetOptionError(
          "--cpu '" + list + "': '" + item +
              "' is not an x86-64 level; a list of CPUs takes " + levels,
          {"a list names the levels from the baseline up, e.g. "
           "x86-64-v2,x86-64-v3,x86-64-v4 (docs/cli.md, \"Several CPUs in "
           "one object\")"});
    if (llvm::is_contained(cpus, item))
      return targetOptionError("--cpu '" + list + "': '" + item +
                               "' is listed twice");
    if (level < previous)
      return targetOptionError("--cpu '" + list + "': '" + item +
                                   "' comes after a more capable level",
                               {"list the levels in increasing order, the "
                                "baseline first"});
    previous = level;
    cpus.push_back(item.str());
  }
  return cpus;
}

llvm::Expected<TargetSpec> txc::resolveTargetSpec(llvm::StringRef triple,
                                                  llvm::StringRef cpu,
                                                  llvm::StringRef features,
                                                  unsigned optLevel) {
  auto resolved = lookupTarget(triple);
  if (!resolved)
    return resolved.takeError();
  if (cpu.contains(',')) {
    auto cpus = checkCPUList(cpu, llvm::Triple(resolved->triple), features);
    if (!cpus)
      return cpus.takeError();
    auto spec = resolveTargetSpec(triple, cpus->front(), "", optLevel);
    if (spec)
      spec->moreCPUs.assign(cpus->begin() + 1, cpus->end());
    return spec;
  }
  TargetSpec spec;
  spec.optLevel = optLevel;
  spec.triple = resolved->triple;
  llvm::Triple targetTriple(spec.triple);
  if (cpu == "native") {
    if (!isHostTriple(targetTriple))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--cpu native is only valid when compiling for this machine");
    spec.cpu = llvm::sys::getHostCPUName().str();
    spec.hostCPU = true;
    spec.features = hostFeatures();
  } else {
    spec.cpu = cpu.empty() ? defaultCPU(targetTriple).str() : cpu.str();
  }
  // Reject CPU names and features the target does not know instead of
  // silently falling back to a generic model.
  auto tables = subtargetTables(*resolved);
  if (!tables || !tables->isCPUStringValid(spec.cpu))
    return targetOptionError(
        "unknown CPU '" + spec.cpu + "' for target '" + spec.triple + "'" +
            (tables ? didYouMean(spec.cpu, cpuNames(*tables)) : ""),
        {"the CPUs of " + spec.triple + " are " +
             (tables ? llvm::join(cpuNames(*tables), ", ") : "") +
             "; 'native' is this machine's (txc targets " + spec.triple +
             " lists them)"});
  if (!features.empty()) {
    if (llvm::Error err = checkFeatures(features, *resolved, *tables))
      return std::move(err);
    spec.features = spec.features.empty()
                        ? features.str()
                        : spec.features + "," + features.str();
  }
  return spec;
}

std::string txc::describeTargets() {
  initializeTargets();
  std::string text = "Targets txc compiles for (--target "
                     "ARCH-VENDOR-OS[-ENVIRONMENT], e.g. aarch64-linux-gnu; "
                     "default " +
                     llvm::Triple::normalize(
                         llvm::sys::getDefaultTargetTriple()) +
                     "):\n";
  for (const char *arch : kSupportedArchs) {
    std::string error;
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(
        std::string(arch) + "-unknown-linux-gnu", error);
    text += "  " + std::string(arch) +
            (target ? std::string(" - ") + target->getShortDescription()
                    : std::string(" (not in this LLVM)")) +
            "\n";
  }
  return text;
}

llvm::Expected<std::string> txc::describeCPUs(llvm::StringRef triple) {
  auto resolved = lookupTarget(triple);
  if (!resolved)
    return resolved.takeError();
  auto tables = subtargetTables(*resolved);
  std::string text = "CPUs of " + resolved->triple +
                     " (--cpu; also 'native' for this machine's):\n";
  if (tables)
    for (const std::string &name : cpuNames(*tables))
      text += "  " + name + "\n";
  return text;
}

llvm::Expected<std::string> txc::describeFeatures(llvm::StringRef triple) {
  auto resolved = lookupTarget(triple);
  if (!resolved)
    return resolved.takeError();
  auto tables = subtargetTables(*resolved);
  std::string text = "Features of " + resolved->triple +
                     " (--features +NAME,-NAME,...):\n";
  if (tables)
    for (const llvm::SubtargetFeatureKV &feature :
         tables->getAllProcessorFeatures())
      text += "  " + std::string(feature.Key) + " - " + feature.Desc + "\n";
  return text;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
txc::createTargetMachine(const TargetSpec &spec) {
  initializeTargets();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(spec.triple, error);
  if (!target)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown target '%s': %s",
                                   spec.triple.c_str(), error.c_str());
  llvm::TargetOptions options;
  // Only explicit FMAs (math.fma, vector contractions) are fused; separate
  // multiplies and adds are never contracted (manifest: numerics).
  options.AllowFPOpFusion = llvm::FPOpFusion::Standard;
  llvm::CodeGenOptLevel level = spec.optLevel == 0   ? llvm::CodeGenOptLevel::None
                                : spec.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : spec.optLevel == 2
                                    ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      spec.triple, spec.cpu, spec.features, options, llvm::Reloc::PIC_,
      std::nullopt, level));
  if (!machine)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot create a target machine for '%s'",
                                   spec.triple.c_str());
  return machine;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
txc::cloneTargetMachine(const llvm::TargetMachine &machine) {
  std::unique_ptr<llvm::TargetMachine> clone(
      machine.getTarget().createTargetMachine(
          machine.getTargetTriple().str(), machine.getTargetCPU(),
          machine.getTargetFeatureString(), machine.Options,
          machine.getRelocationModel(), machine.getCodeModel(),
          machine.getOptLevel()));
  if (!clone)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot create a target machine for '%s'",
                                   machine.getTargetTriple().str().c_str());
  return clone;
}

llvm::Expected<std::unique_ptr<llvm::Module>>
txc::translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                       llvm::TargetMachine &machine,
                       llvm::StringRef sourceName) {
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, sourceName);
  if (!llvmModule)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "internal error: cannot translate the "
                                   "LLVM dialect to LLVM IR");
  // Only the file name, never a path, reaches the object (reproducibility).
  llvmModule->setSourceFileName(sourceName);
  llvmModule->setTargetTriple(machine.getTargetTriple().str());
  llvmModule->setDataLayout(machine.createDataLayout());
  return llvmModule;
}

/// Runs the module pipeline `build` makes on `module`, with the analyses of
/// the target and a C library of only the functions of Imports.def.
static void runModulePipeline(
    llvm::Module &module, llvm::TargetMachine &machine, unsigned optLevel,
    llvm::function_ref<llvm::ModulePassManager(llvm::PassBuilder &)> build) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  llvm::PassBuilder builder(&machine, tuning);
  // Before the defaults, which would not replace it.
  fam.registerPass([&] {
    return llvm::TargetLibraryAnalysis(
        importableLibraryInfo(machine.getTargetTriple()));
  });
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  build(builder).run(module, mam);
}

void txc::optimizeLLVMModule(llvm::Module &module,
                             llvm::TargetMachine &machine, unsigned optLevel) {
  runModulePipeline(module, machine, optLevel, [&](llvm::PassBuilder &builder) {
    llvm::OptimizationLevel level =
        optLevel == 0   ? llvm::OptimizationLevel::O0
        : optLevel == 1 ? llvm::OptimizationLevel::O1
        : optLevel == 2 ? llvm::OptimizationLevel::O2
                        : llvm::OptimizationLevel::O3;
    return optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                         : builder.buildPerModuleDefaultPipeline(level);
  });
}

void txc::optimizeAcrossFunctions(llvm::Module &module,
                                  llvm::TargetMachine &machine,
                                  unsigned optLevel) {
  if (optLevel == 0)
    return;
  runModulePipeline(module, machine, optLevel, [](llvm::PassBuilder &) {
    llvm::ModulePassManager passes;
    // A constant every call passes (the address of a constant global)
    // becomes the constant in the callee, and its argument dead; no
    // specialized clones, which nothing would optimize after.
    passes.addPass(
        llvm::IPSCCPPass(llvm::IPSCCPOptions(/*AllowFuncSpec=*/false)));
    // The alignment of those constants' loads and stores (vector loads
    // from a global of 32-byte alignment, not of 4).
    passes.addPass(
        llvm::createModuleToFunctionPassAdaptor(llvm::InferAlignmentPass()));
    passes.addPass(llvm::DeadArgumentEliminationPass());
    passes.addPass(llvm::GlobalOptPass());
    passes.addPass(llvm::GlobalDCEPass());
    return passes;
  });
}

void txc::mergeIdenticalFunctions(llvm::Module &module,
                                  llvm::TargetMachine &machine) {
  // The code never compares the addresses of its local functions (a task
  // function's address only goes to parallel_for): with unnamed_addr, a
  // duplicate is replaced everywhere, its address included, rather than
  // kept as a thunk, so that the functions that launch two identical tasks
  // become identical too.
  for (llvm::Function &function : module)
    if (function.hasLocalLinkage() && !function.isDeclaration())
      function.setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  runModulePipeline(module, machine, /*optLevel=*/0,
                    [](llvm::PassBuilder &) {
                      llvm::ModulePassManager passes;
                      passes.addPass(llvm::ConstantMergePass());
                      passes.addPass(llvm::MergeFunctionsPass());
                      return passes;
                    });
}

/// Turns off LLVM's post-register-allocation list scheduler (the
/// `-disable-post-ra` option), which some CPU models (znver3, ...) enable.
/// It is quadratic in the size of a basic block, and unrolled vector code
/// has large ones: on a program of 51 elementwise ops it took 67% of code
/// generation (6.1 s of 9.5 s); out-of-order cores gain little from it.
static void disablePostRAScheduler() {
  static const bool done = [] {
    llvm::StringMap<llvm::cl::Option *> &options =
        llvm::cl::getRegisteredOptions();
    auto it = options.find("disable-post-ra");
    if (it != options.end())
      static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
    return true;
  }();
  (void)done;
}

/// Defines __truncsfbf2 (f32 to bf16, round to nearest even, NaN kept
/// quiet) in the object, hidden and link-once. txc expands its own bf16
/// conversions to integer code, but LLVM's x86 backend still legalizes some
/// bf16 selects and stores through f32 and calls this libgcc function, which
/// the C libraries txc objects link against (and GCC 12's libgcc) lack.
/// Added after optimization, which would delete it as unused.
static bool usesBFloat(const llvm::Module &module) {
  for (const llvm::Function &function : module)
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &inst : block) {
        if (inst.getType()->getScalarType()->isBFloatTy())
          return true;
        for (const llvm::Value *operand : inst.operands())
          if (operand->getType()->getScalarType()->isBFloatTy())
            return true;
      }
  return false;
}

static void defineTruncSFBF2(llvm::Module &module) {
  constexpr llvm::StringLiteral name = "__truncsfbf2";
  if (!usesBFloat(module))
    return;
  if (llvm::Function *existing = module.getFunction(name))
    if (!existing->isDeclaration())
      return;
  llvm::LLVMContext &context = module.getContext();
  auto *type = llvm::FunctionType::get(llvm::Type::getBFloatTy(context),
                                       {llvm::Type::getFloatTy(context)},
                                       /*isVarArg=*/false);
  llvm::Function *function = module.getFunction(name);
  if (!function)
    function = llvm::Function::Create(
        type, llvm::GlobalValue::LinkOnceODRLinkage, name, module);
  else
    function->setLinkage(llvm::GlobalValue::LinkOnceODRLinkage);
  function->setVisibility(llvm::GlobalValue::HiddenVisibility);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", function));
  llvm::Value *x = function->getArg(0);
  llvm::Value *bits = b.CreateBitCast(x, b.getInt32Ty());
  llvm::Value *lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  llvm::Value *rounded = b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7FFF)));
  llvm::Value *upper = b.CreateTrunc(b.CreateLShr(rounded, 16), b.getInt16Ty());
  llvm::Value *quiet =
      b.CreateTrunc(b.CreateOr(b.CreateLShr(bits, 16), 0x40), b.getInt16Ty());
  llvm::Value *result =
      b.CreateSelect(b.CreateFCmpUNO(x, x), quiet, upper);
  b.CreateRet(b.CreateBitCast(result, llvm::Type::getBFloatTy(context)));
}

/// Rewrites every select of bf16 values and every element extracted from a
/// bf16 vector as the same operation on their bits (i16). InstCombine moves
/// the bitcast of MLIR's expanded bf16 truncation (a select of the NaN and
/// the rounded bits) in front of the select, and LLVM 19's AArch64
/// instruction selection crashes (FoldConstantArithmetic, legalizing
/// types) on such a select or extractelement of <1 x bfloat>
/// (test/fuzz/repros/aarch64-bf16-vector1-crash.json).
static void bfloatAsBits(llvm::Module &module) {
  llvm::SmallVector<llvm::Instruction *> rewritten;
  for (llvm::Function &function : module)
    for (llvm::Instruction &inst : llvm::instructions(function))
      if ((llvm::isa<llvm::SelectInst>(inst) &&
           inst.getType()->getScalarType()->isBFloatTy()) ||
          (llvm::isa<llvm::ExtractElementInst>(inst) &&
           inst.getType()->isBFloatTy()))
        rewritten.push_back(&inst);
  for (llvm::Instruction *inst : rewritten) {
    llvm::IRBuilder<> b(inst);
    auto bits = [&](llvm::Value *value) {
      return b.CreateBitCast(
          value, value->getType()->getWithNewType(b.getInt16Ty()));
    };
    llvm::Value *result;
    if (auto *select = llvm::dyn_cast<llvm::SelectInst>(inst))
      result = b.CreateSelect(select->getCondition(),
                              bits(select->getTrueValue()),
                              bits(select->getFalseValue()));
    else
      result = b.CreateExtractElement(bits(inst->getOperand(0)),
                                      inst->getOperand(1));
    inst->replaceAllUsesWith(b.CreateBitCast(result, inst->getType()));
    inst->eraseFromParent();
  }
}

void txc::collectLLVMErrors(const llvm::DiagnosticInfo *info, void *errors) {
  if (info->getSeverity() != llvm::DS_Error)
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::DiagnosticPrinterRawOStream printer(os);
  info->print(printer);
  auto &list = *static_cast<std::vector<std::string> *>(errors);
  std::string message = llvm::StringRef(text).trim().str();
  if (!llvm::is_contained(list, message))
    list.push_back(std::move(message));
}

/// Calls per basic block before splitBlocksOfManyCalls cuts the block.
constexpr unsigned kMaxCallsPerBlock = 64;

/// Cuts every basic block after each kMaxCallsPerBlock-th call, with an
/// unconditional branch to the rest. SelectionDAG schedules one block at a
/// time, and the x86 list scheduler (the `source` order) takes time
/// quadratic in a block of many calls: the kernel of the 1000-op benchmark
/// program, one block of ~1000 region calls and the offsets of their
/// workspaces, took 2.2 s in instruction selection, 0.3 s cut every 64
/// calls. A kernel's straight-line code has no other cost from the cut
/// (the branch falls through); the blocks of hot loops have few calls.
static void splitBlocksOfManyCalls(llvm::Module &module) {
  for (llvm::Function &function : module) {
    std::vector<llvm::Instruction *> cuts;
    for (llvm::BasicBlock &block : function) {
      unsigned calls = 0;
      for (llvm::Instruction &inst : block) {
        auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
        if (!call || llvm::isa<llvm::IntrinsicInst>(call))
          continue;
        if (++calls % kMaxCallsPerBlock == 0 && !inst.isTerminator() &&
            !inst.getNextNode()->isTerminator())
          cuts.push_back(inst.getNextNode());
      }
    }
    for (llvm::Instruction *cut : cuts)
      cut->getParent()->splitBasicBlock(cut);
  }
}

llvm::Error txc::prepareForCodegen(llvm::Module &module) {
  disablePostRAScheduler();
  splitBlocksOfManyCalls(module);
  defineTruncSFBF2(module);
  bfloatAsBits(module);
  if (llvm::verifyModule(module, &llvm::errs()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "internal error: invalid LLVM IR");
  return llvm::Error::success();
}

llvm::Error txc::emitPreparedMachineCode(llvm::Module &module,
                                         llvm::TargetMachine &machine,
                                         MachineCodeKind kind,
                                         llvm::raw_pwrite_stream &out) {
  llvm::legacy::PassManager passes;
  passes.add(new llvm::TargetLibraryInfoWrapperPass(
      importableLibraryInfo(machine.getTargetTriple())));
  auto fileType = kind == MachineCodeKind::Object
                      ? llvm::CodeGenFileType::ObjectFile
                      : llvm::CodeGenFileType::AssemblyFile;
  if (machine.addPassesToEmitFile(passes, out, nullptr, fileType))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the target cannot emit this file type");
  passes.run(module);
  return llvm::Error::success();
}

llvm::Error txc::emitMachineCode(llvm::Module &module,
                                 llvm::TargetMachine &machine,
                                 MachineCodeKind kind,
                                 llvm::raw_pwrite_stream &out) {
  if (llvm::Error err = prepareForCodegen(module))
    return err;
  return emitPreparedMachineCode(module, machine, kind, out);
}

llvm::Expected<std::string> txc::emitMachineCode(llvm::Module &module,
                                                 llvm::TargetMachine &machine,
                                                 MachineCodeKind kind) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream stream(bytes);
  if (llvm::Error err = emitMachineCode(module, machine, kind, stream))
    return err;
  return std::string(bytes.begin(), bytes.end());
}
