//===- ObjectEmitter.cpp - LLVM IR to object code, in process -------------===//
#include "txc/Target/ObjectEmitter.h"
#include "txc/Target/Imports.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
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
  });
}

llvm::Expected<TargetSpec> txc::resolveTargetSpec(llvm::StringRef triple,
                                                  llvm::StringRef cpu,
                                                  llvm::StringRef features,
                                                  unsigned optLevel) {
  initializeTargets();
  TargetSpec spec;
  spec.optLevel = optLevel;
  spec.triple = triple.empty()
                    ? llvm::Triple::normalize(llvm::sys::getDefaultTargetTriple())
                    : llvm::Triple::normalize(triple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(spec.triple, error);
  if (!target)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown target '%s': %s",
                                   spec.triple.c_str(), error.c_str());
  llvm::Triple hostTriple(llvm::sys::getDefaultTargetTriple());
  llvm::Triple targetTriple(spec.triple);
  // The ABI (docs/abi.md) has 64-bit sizes and pointers and the entry
  // points need a C library; txc generates and tests code for these two.
  if (targetTriple.getArch() != llvm::Triple::x86_64 &&
      targetTriple.getArch() != llvm::Triple::aarch64)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "target '%s' is not supported; txc compiles for x86_64 and aarch64 "
        "(64-bit, with a C library)",
        spec.triple.c_str());
  bool isHost = targetTriple.getArch() == hostTriple.getArch() &&
                targetTriple.getOS() == hostTriple.getOS();
  if (cpu.empty() || cpu == "native") {
    if (!isHost && cpu == "native")
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--cpu native is only valid when compiling for this machine");
    if (isHost) {
      spec.cpu = llvm::sys::getHostCPUName().str();
      spec.hostCPU = true;
      // The host's exact features: a VM may hide some of the CPU model's.
      llvm::SubtargetFeatures hostFeatures;
      llvm::StringMap<bool> flags = llvm::sys::getHostCPUFeatures();
      std::vector<std::string> names;
      for (const auto &flag : flags)
        names.push_back((flag.second ? "+" : "-") + flag.first().str());
      llvm::sort(names); // StringMap order is not deterministic
      for (const std::string &name : names)
        hostFeatures.AddFeature(name);
      spec.features = hostFeatures.getString();
    } else {
      spec.cpu = "generic";
    }
  } else {
    spec.cpu = cpu.str();
  }
  if (!features.empty())
    spec.features = spec.features.empty()
                        ? features.str()
                        : spec.features + "," + features.str();
  // Reject CPU names the target does not know instead of silently falling
  // back to a generic model. The probe is created for the default CPU: one
  // created for an unknown CPU prints LLVM's own warning on stderr.
  const llvm::MCSubtargetInfo *probe =
      target->createMCSubtargetInfo(spec.triple, "", "");
  bool knownCPU = probe && probe->isCPUStringValid(spec.cpu);
  delete probe;
  if (!knownCPU)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "unknown CPU '%s' for target '%s'",
                                   spec.cpu.c_str(), spec.triple.c_str());
  return spec;
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

void txc::optimizeLLVMModule(llvm::Module &module,
                             llvm::TargetMachine &machine, unsigned optLevel) {
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
  llvm::OptimizationLevel level = optLevel == 0   ? llvm::OptimizationLevel::O0
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager passes =
      optLevel == 0 ? builder.buildO0DefaultPipeline(level)
                    : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
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

llvm::Error txc::emitMachineCode(llvm::Module &module,
                                 llvm::TargetMachine &machine,
                                 MachineCodeKind kind,
                                 llvm::raw_pwrite_stream &out) {
  disablePostRAScheduler();
  defineTruncSFBF2(module);
  if (llvm::verifyModule(module, &llvm::errs()))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "internal error: invalid LLVM IR");
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

llvm::Expected<std::string> txc::emitMachineCode(llvm::Module &module,
                                                 llvm::TargetMachine &machine,
                                                 MachineCodeKind kind) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream stream(bytes);
  if (llvm::Error err = emitMachineCode(module, machine, kind, stream))
    return err;
  return std::string(bytes.begin(), bytes.end());
}
