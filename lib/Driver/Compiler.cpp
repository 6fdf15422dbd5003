//===- Compiler.cpp - The compile steps behind every job ------------------===//
#include "txc/Driver/Compiler.h"

#include "txc/Conversion/ProgramToMLIR.h"
#include "txc/Analysis/Specialization.h"
#include "txc/Pipeline/Workspace.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Target/CpuDispatch.h"
#include "txc/Target/Imports.h"
#include "txc/Target/PartitionedOptimizer.h"
#include "txc/Target/Weights.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "mlir/Support/Timing.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Target/TargetMachine.h"

using namespace txc;

PipelineOptions txc::pipelineOptionsFor(const llvm::TargetMachine &machine,
                                        unsigned optLevel) {
  PipelineOptions options;
  options.optLevel = optLevel;
  const llvm::MCSubtargetInfo *subtarget = machine.getMCSubtargetInfo();
  const llvm::Triple &triple = machine.getTargetTriple();
  if (triple.isX86()) {
    if (subtarget->checkFeatures("+avx512f"))
      options.vector = {512, 32};
    else if (subtarget->checkFeatures("+avx"))
      options.vector = {256, 16};
    else
      options.vector = {128, 16};
    options.vector.streamingStores = true;
  } else if (triple.isAArch64()) {
    options.vector = {128, 32};
  }
  return options;
}

bool txc::generateCode(llvm::Module &module, llvm::TargetMachine &machine,
                       MachineCodeKind kind, llvm::StringRef programFile,
                       DiagnosticEngine &diags, llvm::raw_pwrite_stream &out,
                       const CodegenPartitions *partitions,
                       mlir::TimingScope *timing) {
  std::vector<std::string> errors;
  llvm::LLVMContext &context = module.getContext();
  auto previousHandler = context.getDiagnosticHandlerCallBack();
  void *previousContext = context.getDiagnosticContext();
  context.setDiagnosticHandlerCallBack(collectLLVMErrors, &errors);
  llvm::Error err = prepareForCodegen(module);
  if (!err) {
    mlir::TimingScope noTiming;
    err = partitions
              ? emitMachineCodeInPartitions(module, machine, kind, *partitions,
                                            timing ? *timing : noTiming,
                                            errors, out)
              : emitPreparedMachineCode(module, machine, kind, out);
  }
  context.setDiagnosticHandlerCallBack(previousHandler, previousContext);
  if (err) {
    diags.error(DiagCategory::Target, "codegen", programFile, Loc(),
                llvm::toString(std::move(err)));
    return false;
  }
  for (const std::string &error : errors)
    diags.error(DiagCategory::Target, "codegen", "", Loc(),
                "LLVM cannot compile the program for this target: " + error);
  return errors.empty();
}

std::optional<std::vector<std::string>>
txc::checkedObjectImports(llvm::MemoryBufferRef object,
                          llvm::StringRef programFile,
                          DiagnosticEngine &diags) {
  auto imports = objectImports(object);
  if (!imports) {
    diags.error(DiagCategory::Internal, "internal", programFile, Loc(),
                "internal compiler error: cannot read the generated object: " +
                    llvm::toString(imports.takeError()));
    return std::nullopt;
  }
  bool listed = true;
  for (const std::string &name : *imports)
    if (!findObjectImport(name)) {
      diags.error(DiagCategory::Internal, "internal", programFile, Loc(),
                  "internal compiler error: the object imports '" + name +
                      "', which is not among the functions a txc object may "
                      "import (docs/abi.md, \"Imports\")");
      listed = false;
    }
  if (!listed)
    return std::nullopt;
  return std::move(*imports);
}

std::optional<std::string>
txc::generateCode(llvm::Module &module, llvm::TargetMachine &machine,
                  MachineCodeKind kind, llvm::StringRef programFile,
                  DiagnosticEngine &diags, const WeightsPlan *weights,
                  std::vector<std::string> *imports,
                  const CodegenPartitions *partitions,
                  mlir::TimingScope *timing) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream stream(bytes);
  if (!generateCode(module, machine, kind, programFile, diags, stream,
                    partitions, timing))
    return std::nullopt;
  std::string object(bytes.begin(), bytes.end());
  if (kind == MachineCodeKind::Object) {
    auto checked = checkedObjectImports(
        llvm::MemoryBufferRef(object, programFile), programFile, diags);
    if (!checked)
      return std::nullopt;
    if (imports)
      *imports = std::move(*checked);
  }
  if (weights && kind == MachineCodeKind::Object) {
    llvm::Error err = fillEmbeddedWeights(
        llvm::MemoryBufferRef(object, programFile), *weights,
        [&](uint64_t offset, llvm::ArrayRef<uint8_t> data) {
          if (!data.empty())
            std::memcpy(object.data() + offset, data.data(), data.size());
          return llvm::Error::success();
        });
    if (err) {
      diags.error(DiagCategory::Internal, "internal", programFile, Loc(),
                  llvm::toString(std::move(err)));
      return std::nullopt;
    }
  }
  return object;
}

Compiler::Compiler(unsigned jobs) {
  mlir::DialectRegistry registry;
  registerTxcDialects(registry);
  context = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  // The pass manager runs the function passes of independent functions
  // (the regions) on the context's threads, each function's passes in
  // their fixed order: the IR does not depend on the number of threads.
  unsigned threadCount =
      jobs ? jobs : llvm::hardware_concurrency().compute_thread_count();
  if (threadCount > 1) {
    threads = std::make_unique<llvm::DefaultThreadPool>(
        llvm::hardware_concurrency(threadCount));
    context->setThreadPool(*threads);
  }
  context->loadAllAvailableDialects();
}

Compiler::~Compiler() = default;

/// Routes MLIR's diagnostics into the engine. After verification every MLIR
/// error is a txc bug, reported as internal with the program location.
static void reportMLIRDiagnostic(mlir::Diagnostic &diag,
                                 DiagnosticEngine &diags) {
  Loc loc;
  std::string file;
  if (auto fileLoc = mlir::dyn_cast<mlir::FileLineColLoc>(diag.getLocation())) {
    file = fileLoc.getFilename().str();
    loc.line = fileLoc.getLine();
    loc.column = fileLoc.getColumn();
  } else if (auto nameLoc = mlir::dyn_cast<mlir::NameLoc>(diag.getLocation())) {
    if (auto inner =
            mlir::dyn_cast<mlir::FileLineColLoc>(nameLoc.getChildLoc())) {
      file = inner.getFilename().str();
      loc.line = inner.getLine();
      loc.column = inner.getColumn();
    }
  }
  std::string message = diag.str();
  if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
    diags.error(DiagCategory::Internal, "internal-mlir", file, loc,
                "internal compiler error in MLIR: " + message);
  else if (diag.getSeverity() == mlir::DiagnosticSeverity::Warning)
    diags.warning(DiagCategory::Internal, "mlir-warning", file, loc, message);
}

namespace {
/// Sends the context's diagnostics to `diags` while it lives.
class DiagnosticRouter {
public:
  DiagnosticRouter(mlir::MLIRContext &context, DiagnosticEngine &diags)
      : handler(&context, [&diags](mlir::Diagnostic &diag) {
          reportMLIRDiagnostic(diag, diags);
          return mlir::success();
        }) {}

private:
  mlir::ScopedDiagnosticHandler handler;
};
} // namespace

mlir::OwningOpRef<mlir::ModuleOp>
Compiler::lowerToMLIR(const CheckedProgram &checked, MLIRStage last,
                      const PipelineOptions &options, DiagnosticEngine &diags,
                      mlir::TimingScope &timing) {
  return lowerToMLIR(*checked.program, checked.contract, last, options, diags,
                     timing);
}

mlir::OwningOpRef<mlir::ModuleOp>
Compiler::lowerToMLIR(const Program &program, const Contract &contract,
                      MLIRStage last, const PipelineOptions &options,
                      DiagnosticEngine &diags, mlir::TimingScope &timing) {
  DiagnosticRouter router(*context, diags);

  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    mlir::TimingScope mlirgen = timing.nest("mlirgen");
    RegionOptions regions;
    regions.cut = options.cutRegions;
    module = lowerProgramToMLIR(*context, program, contract, regions);
  }
  if (!module) {
    if (!diags.hasErrors())
      diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                  "internal compiler error: MLIRGen produced invalid IR");
    return nullptr;
  }
  mlir::TimingScope passes = timing.nest("mlir-pipeline");
  if (mlir::failed(runTxcPipeline(*module, last, options, passes))) {
    if (!diags.hasErrors())
      diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                  "internal compiler error: the MLIR pipeline failed");
    return nullptr;
  }
  return module;
}

/// Whether `function` is one of the region functions of `contract`
/// (`<prefix>_region<k>`).
static bool isRegionFunction(const llvm::Function &function,
                             const Contract &contract) {
  std::string prefix = regionFunctionName(contract, 0);
  prefix.pop_back();
  llvm::StringRef name = function.getName();
  unsigned index;
  return name.consume_front(prefix) && !name.getAsInteger(10, index) &&
         function.getName() == regionFunctionName(contract, index);
}

/// Whether `function` is a region function of one of the further CPUs'
/// kernels (`<p>_cpu<k>_region<j>`, --cpu A,B,...).
static bool isCPULevelRegion(const llvm::Function &function,
                             const Contract &contract) {
  llvm::StringRef name = function.getName();
  unsigned index;
  if (!name.consume_front(contract.entryPrefix + "_cpu") ||
      name.consumeInteger(10, index))
    return false;
  Contract level = contract;
  level.entryPrefix = cpuLevelPrefix(contract, index);
  return isRegionFunction(function, level);
}

/// The roots of the LLVM partitions (optimizeInPartitions): the region
/// functions (`<prefix>_region<k>`), the entry points' out-of-line, cold
/// functions (the guard interpreter `<p>_run.guards`, the slow copies
/// `<p>_run.slow` their fast paths tail-call), and the entry points. None
/// of them is inlined into another (the first two are noinline; the one
/// entry point that calls another, the forwarder without a workspace,
/// keeps its tail call in a module optimized whole too), so splitting them
/// inlines nothing less; the kernel goes with the first entry point that
/// calls it (a slow copy comes after its entry point).
static std::vector<std::string>
partitionRoots(const llvm::Module &module, const CheckedProgram &checked) {
  std::vector<std::string> names;
  for (const llvm::Function &function : module) {
    // The variants' regions are roots too: they are as large as the
    // generic ones.
    bool region = isRegionFunction(function, checked.contract) ||
                  isCPULevelRegion(function, checked.contract) ||
                  llvm::any_of(checked.variants, [&](const auto &variant) {
                    return isRegionFunction(function, variant->contract);
                  });
    bool coldGuards = function.hasLocalLinkage() &&
                      function.hasFnAttribute(llvm::Attribute::NoInline) &&
                      function.hasFnAttribute(llvm::Attribute::Cold);
    bool entryPoint = !function.hasLocalLinkage();
    if (!function.isDeclaration() && (region || coldGuards || entryPoint))
      names.push_back(function.getName().str());
  }
  return names;
}

CodegenPartitions
Compiler::codegenPartitions(const llvm::Module &module,
                            const CheckedProgram &checked) const {
  return {partitionRoots(module, checked), threads.get()};
}

/// Makes every function `module` defines local to it but `kernelName` and
/// its workspace size function (external until the entry points call them:
/// the linker drops the local functions nothing references yet; the
/// emitters that call a kernel make it internal, internalizeSizeFunctions
/// its size function). The helpers MLIR's lowering adds
/// (`dealloc_helper`) would otherwise be exported by the object, and clash
/// with those of another txc object, or of a variant or a further CPU's
/// code when it is linked in (the linker renames local ones).
static void keepOnlyKernelExternal(llvm::Module &module,
                                   llvm::StringRef kernelName) {
  std::string sizeName = workspaceSizeFunctionName(kernelName);
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    bool kernel = function.getName() == kernelName ||
                  function.getName() == sizeName;
    function.setLinkage(kernel ? llvm::GlobalValue::ExternalLinkage
                               : llvm::GlobalValue::InternalLinkage);
  }
}

std::unique_ptr<llvm::Module> Compiler::translateChecked(
    const CheckedProgram &checked, llvm::LLVMContext &llvmContext,
    llvm::TargetMachine &machine, const PipelineOptions &options,
    DiagnosticEngine &diags, mlir::TimingScope &timing,
    WorkspaceSize &workspace) {
  return translate(*checked.program, checked.contract, llvmContext, machine,
                   options, diags, timing, workspace);
}

std::unique_ptr<llvm::Module> Compiler::translate(
    const Program &program, const Contract &contract,
    llvm::LLVMContext &llvmContext, llvm::TargetMachine &machine,
    const PipelineOptions &options, DiagnosticEngine &diags,
    mlir::TimingScope &timing, WorkspaceSize &workspace) {
  mlir::OwningOpRef<mlir::ModuleOp> module = lowerToMLIR(
      program, contract, MLIRStage::LLVM, options, diags, timing);
  if (!module)
    return nullptr;
  workspace = workspaceSize(*module);
  // Translation may report MLIR diagnostics too.
  DiagnosticRouter router(*context, diags);
  std::string sourceName = llvm::sys::path::filename(program.file).str();
  mlir::TimingScope translate = timing.nest("translate-to-llvm-ir");
  auto translated = translateToLLVMIR(*module, llvmContext, machine, sourceName);
  if (!translated) {
    diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                llvm::toString(translated.takeError()));
    return nullptr;
  }
  keepOnlyKernelExternal(**translated, kernelFunctionName(contract));
  return std::move(*translated);
}

/// Makes local every workspace size function `module` defines: the
/// generic kernel's, each variant's and each further CPU's, which
/// keepOnlyKernelExternal kept external so that linking their modules in
/// and merging identical functions keep them. The one place they become
/// internal, once all are in the module and before the entry points that
/// call them are emitted.
static void internalizeSizeFunctions(llvm::Module &module) {
  std::string suffix = workspaceSizeFunctionName("");
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && function.getName().ends_with(suffix))
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
}

/// Links `from` into `into`; the linker's errors become diagnostics (the
/// context's default handler would exit).
static bool linkInto(llvm::Module &into, std::unique_ptr<llvm::Module> from,
                     llvm::StringRef what, llvm::StringRef programFile,
                     DiagnosticEngine &diags) {
  llvm::LLVMContext &context = into.getContext();
  auto previousHandler = context.getDiagnosticHandlerCallBack();
  void *previousContext = context.getDiagnosticContext();
  std::vector<std::string> errors;
  context.setDiagnosticHandlerCallBack(collectLLVMErrors, &errors);
  bool failed = llvm::Linker::linkModules(into, std::move(from));
  context.setDiagnosticHandlerCallBack(previousHandler, previousContext);
  if (!failed && errors.empty())
    return true;
  diags.error(DiagCategory::Internal, "internal", programFile, Loc(),
              "internal compiler error: cannot link the code of " + what +
                  (errors.empty() ? "" : ": " + llvm::join(errors, "; ")));
  return false;
}

/// Compiles the variants of `checked` and links their kernels into
/// `module`; their workspaces go to `variants`. Their functions are named
/// by their own entry prefixes; everything else is local to each.
bool Compiler::linkVariants(const CheckedProgram &checked, llvm::Module &module,
                            llvm::TargetMachine &machine,
                            const PipelineOptions &options,
                            DiagnosticEngine &diags, mlir::TimingScope &timing,
                            std::vector<VariantKernel> &variants) {
  for (size_t i = 0; i < checked.variants.size(); ++i) {
    const CheckedProgram &variant = *checked.variants[i];
    mlir::TimingScope scope = timing.nest("variant-" + std::to_string(i + 1));
    VariantKernel kernel;
    kernel.variant = &checked.contract.variants[i];
    kernel.kernelName = kernelFunctionName(variant.contract);
    std::unique_ptr<llvm::Module> variantModule =
        translateChecked(variant, module.getContext(), machine, options, diags,
                         scope, kernel.workspace);
    if (!variantModule)
      return false;
    if (!linkInto(module, std::move(variantModule),
                  "variant " + kernel.variant->text(checked.contract),
                  checked.program->file, diags))
      return false;
    variants.push_back(std::move(kernel));
  }
  return true;
}

/// The kernel `<prefix>_kernel` of `module` (and its workspace size
/// function) renamed to the first listed CPU's, `<p>_cpu1_kernel`.
static std::string renameBaselineKernel(llvm::Module &module,
                                        const Contract &contract) {
  std::string from = kernelFunctionName(contract);
  Contract first = contract;
  first.entryPrefix = cpuLevelPrefix(contract, 1);
  std::string to = kernelFunctionName(first);
  if (llvm::Function *kernel = module.getFunction(from))
    kernel->setName(to);
  if (llvm::Function *size = module.getFunction(from + ".workspace_size"))
    size->setName(to + ".workspace_size");
  return to;
}

/// With `moreCPUs` (--cpu A,B,...), compiles the kernel again for each
/// further CPU, with that CPU's pipeline options (vector width, register
/// tiles), into `module`, whose kernel was compiled for the baseline
/// `machine`; then replaces the kernel by the dispatcher among them
/// (CpuDispatch.h). `workspace` becomes the dispatcher's.
bool Compiler::linkCPULevels(const CheckedProgram &checked,
                             llvm::Module &module,
                             llvm::TargetMachine &machine,
                             llvm::ArrayRef<llvm::TargetMachine *> moreCPUs,
                             const PipelineOptions &options,
                             DiagnosticEngine &diags,
                             mlir::TimingScope &timing,
                             WorkspaceSize &workspace) {
  const Contract &contract = checked.contract;
  setTargetAttributes(module, machine);
  std::vector<CpuKernel> levels = {
      {renameBaselineKernel(module, contract),
       x86Level(machine.getTargetCPU()), workspace}};
  for (auto [index, levelMachine] : llvm::enumerate(moreCPUs)) {
    unsigned listed = index + 2;
    mlir::TimingScope scope = timing.nest("cpu-" + std::to_string(listed));
    Contract levelContract = contract;
    levelContract.entryPrefix = cpuLevelPrefix(contract, listed);
    PipelineOptions levelOptions =
        pipelineOptionsFor(*levelMachine, options.optLevel);
    levelOptions.cutRegions = options.cutRegions;
    levelOptions.printIRAfterAll = options.printIRAfterAll;
    CpuKernel level{kernelFunctionName(levelContract),
                    x86Level(levelMachine->getTargetCPU()), {}};
    std::unique_ptr<llvm::Module> levelModule =
        translate(*checked.program, levelContract, module.getContext(),
                  *levelMachine, levelOptions, diags, scope, level.workspace);
    if (!levelModule)
      return false;
    setTargetAttributes(*levelModule, *levelMachine);
    if (!linkInto(module, std::move(levelModule),
                  "CPU " + levelMachine->getTargetCPU().str(),
                  checked.program->file, diags))
      return false;
    levels.push_back(std::move(level));
  }
  auto dispatched = emitCpuDispatch(module, contract,
                                    kernelFunctionName(contract), levels);
  if (!dispatched) {
    diags.error(DiagCategory::Internal, "internal", checked.program->file,
                Loc(), llvm::toString(dispatched.takeError()));
    return false;
  }
  workspace = *dispatched;
  return true;
}

std::unique_ptr<llvm::Module> Compiler::buildLLVMModule(
    const CheckedProgram &checked, llvm::LLVMContext &llvmContext,
    llvm::TargetMachine &machine, const PipelineOptions &options,
    DiagnosticEngine &diags, mlir::TimingScope &timing,
    const WeightsPlan &weights, WorkspaceSize *workspaceOut,
    llvm::ArrayRef<llvm::TargetMachine *> moreCPUs) {
  const Program &program = *checked.program;
  const Contract &contract = checked.contract;
  WorkspaceSize workspace;
  std::unique_ptr<llvm::Module> llvmModule = translateChecked(
      checked, llvmContext, machine, options, diags, timing, workspace);
  if (!llvmModule)
    return nullptr;
  if (!moreCPUs.empty() &&
      !linkCPULevels(checked, *llvmModule, machine, moreCPUs, options, diags,
                     timing, workspace))
    return nullptr;
  std::vector<VariantKernel> variants;
  if (!linkVariants(checked, *llvmModule, machine, options, diags, timing,
                    variants))
    return nullptr;
  if (!variants.empty()) {
    // A region that no bound symbol reaches is the same in every variant.
    // The workspace size functions are still external (keepOnlyKernel-
    // External): one identical to another becomes a call of it rather
    // than disappearing before the entry points call it by name.
    mlir::TimingScope merge = timing.nest("merge-variants");
    mergeIdenticalFunctions(*llvmModule, machine);
  }
  internalizeSizeFunctions(*llvmModule);
  if (workspaceOut) {
    // What the header and manifest promise: a caller's workspace of the
    // static bytes is large enough for every variant whose size does not
    // depend on the symbols (<p>_workspace_size tells the chosen one's).
    *workspaceOut = workspace;
    for (const VariantKernel &variant : variants) {
      workspaceOut->staticBytes =
          std::max(workspaceOut->staticBytes, variant.workspace.staticBytes);
      workspaceOut->dynamic |= variant.workspace.dynamic;
    }
  }
  {
    mlir::TimingScope abi = timing.nest("abi-entry-points");
    if (llvm::Error err = emitAbiEntryPoints(
            *llvmModule, contract, kernelFunctionName(contract), &weights,
            workspace, variants)) {
      diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                  llvm::toString(std::move(err)));
      return nullptr;
    }
  }
  {
    mlir::TimingScope optimize = timing.nest("llvm-optimize");
    std::vector<std::string> roots = partitionRoots(*llvmModule, checked);
    auto optimized = optimizeInPartitions(std::move(llvmModule), roots,
                                          machine, options.optLevel,
                                          threads.get(), optimize);
    if (!optimized) {
      diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                  llvm::toString(optimized.takeError()));
      return nullptr;
    }
    llvmModule = std::move(*optimized);
  }
  finalizeWeightGlobals(*llvmModule, weights);
  return llvmModule;
}

std::optional<std::string>
Compiler::compileObject(const CheckedProgram &checked, const TargetSpec &spec,
                        DiagnosticEngine &diags, mlir::TimingScope *timed) {
  auto machine = createTargetMachine(spec);
  if (!machine) {
    diags.error(DiagCategory::Target, "target", "", Loc(),
                llvm::toString(machine.takeError()));
    return std::nullopt;
  }
  std::vector<std::unique_ptr<llvm::TargetMachine>> levelMachines;
  if (llvm::Error err = createLevelMachines(spec, levelMachines)) {
    diags.error(DiagCategory::Target, "target", "", Loc(),
                llvm::toString(std::move(err)));
    return std::nullopt;
  }
  mlir::DefaultTimingManager timingManager;
  mlir::TimingScope untimed = timingManager.getRootScope();
  mlir::TimingScope &timing = timed ? *timed : untimed;
  PipelineOptions options = pipelineOptionsFor(**machine, spec.optLevel);
  llvm::LLVMContext llvmContext;
  WeightsPlan weights = planWeights(
      *checked.program, checked.contract.entryPrefix, WeightsMode::Embedded);
  std::unique_ptr<llvm::Module> module =
      buildLLVMModule(checked, llvmContext, **machine, options, diags, timing,
                      weights, nullptr, machinePointers(levelMachines));
  if (!module)
    return std::nullopt;
  // The phase txc compile names code generation (docs/cli.md,
  // "--time-report"), so that txc budget reports the same tree.
  mlir::TimingScope codegen = timing.nest("llvm-codegen");
  CodegenPartitions partitions = codegenPartitions(*module, checked);
  return generateCode(*module, **machine, MachineCodeKind::Object,
                      checked.program->file, diags, &weights,
                      /*imports=*/nullptr, &partitions, &codegen);
}

llvm::Error txc::createLevelMachines(
    const TargetSpec &spec,
    std::vector<std::unique_ptr<llvm::TargetMachine>> &machines) {
  for (size_t i = 1; i <= spec.moreCPUs.size(); ++i) {
    auto machine = createTargetMachine(spec.forCPU(i));
    if (!machine)
      return machine.takeError();
    machines.push_back(std::move(*machine));
  }
  return llvm::Error::success();
}

std::vector<llvm::TargetMachine *> txc::machinePointers(
    llvm::ArrayRef<std::unique_ptr<llvm::TargetMachine>> machines) {
  std::vector<llvm::TargetMachine *> pointers;
  for (const auto &machine : machines)
    pointers.push_back(machine.get());
  return pointers;
}
