//===- Driver.cpp - The compile and check jobs ----------------------------===//
#include "txc/Driver/Driver.h"

#include "txc/Analysis/Verifier.h"
#include "txc/Conversion/ProgramToMLIR.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Pipeline/Pipeline.h"
#include "txc/Support/OutputFiles.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Target/ArtifactInfo.h"
#include "txc/Target/ObjectEmitter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/Timing.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace txc;

static const EmitKindInfo kEmitKinds[] = {
    {EmitKind::MLIRTensor, "mlir", "mlir",
     "MLIR from MLIRGen: linalg on tensors"},
    {EmitKind::MLIROptimized, "mlir-optimized", "mlir",
     "MLIR after tensor-level optimization (fusion)"},
    {EmitKind::MLIRBufferized, "mlir-bufferized", "mlir",
     "MLIR on buffers, writing into the caller's outputs"},
    {EmitKind::MLIRLoops, "mlir-loops", "mlir", "MLIR with explicit loops"},
    {EmitKind::MLIRLLVM, "mlir-llvm", "mlir", "MLIR in the LLVM dialect"},
    {EmitKind::LLVMIR, "llvm", "ll",
     "optimized LLVM IR including the ABI entry points"},
    {EmitKind::Assembly, "asm", "s", "target assembly"},
    {EmitKind::Object, "obj", "o", "relocatable object file (default)"},
};

llvm::ArrayRef<EmitKindInfo> txc::emitKinds() { return kEmitKinds; }

std::optional<EmitKind> txc::parseEmitKind(llvm::StringRef name) {
  for (const EmitKindInfo &info : kEmitKinds)
    if (name == info.name)
      return info.kind;
  return std::nullopt;
}

static const EmitKindInfo &emitKindInfo(EmitKind kind) {
  for (const EmitKindInfo &info : kEmitKinds)
    if (info.kind == kind)
      return info;
  llvm_unreachable("unknown emit kind");
}

/// The MLIR stage an --emit kind stops at, if it is an MLIR kind.
static std::optional<MLIRStage> mlirStageOf(EmitKind kind) {
  switch (kind) {
  case EmitKind::MLIRTensor: return MLIRStage::Tensor;
  case EmitKind::MLIROptimized: return MLIRStage::Optimized;
  case EmitKind::MLIRBufferized: return MLIRStage::Bufferized;
  case EmitKind::MLIRLoops: return MLIRStage::Loops;
  case EmitKind::MLIRLLVM: return MLIRStage::LLVM;
  default: return std::nullopt;
  }
}

static std::unique_ptr<CheckedProgram>
loadProgramTimed(llvm::StringRef path, llvm::StringRef entryPrefix,
                 DiagnosticEngine &diags, mlir::TimingScope &timing) {
  if (!entryPrefix.empty() && !isValidIdentifier(entryPrefix)) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                "--entry-prefix '" + entryPrefix +
                    "' is not a C identifier");
    return nullptr;
  }
  auto result = std::make_unique<CheckedProgram>();
  {
    mlir::TimingScope parse = timing.nest("parse");
    result->program = readProgramFile(path, diags);
  }
  if (!result->program)
    return nullptr;
  {
    mlir::TimingScope verify = timing.nest("verify");
    if (!verifyProgram(*result->program, diags))
      return nullptr;
  }
  mlir::TimingScope contractTimer = timing.nest("contract");
  auto contract = buildContract(*result->program, entryPrefix, diags);
  if (!contract)
    return nullptr;
  result->contract = std::move(*contract);
  return result;
}

std::unique_ptr<CheckedProgram> txc::loadProgram(llvm::StringRef path,
                                                 llvm::StringRef entryPrefix,
                                                 DiagnosticEngine &diags) {
  mlir::DefaultTimingManager timing;
  mlir::TimingScope root = timing.getRootScope();
  return loadProgramTimed(path, entryPrefix, diags, root);
}

int txc::runCheck(llvm::StringRef programPath, DiagnosticEngine &diags) {
  loadProgram(programPath, "", diags);
  return diags.exitCode();
}

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
    if (auto inner = mlir::dyn_cast<mlir::FileLineColLoc>(nameLoc.getChildLoc())) {
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

/// Collects the errors LLVM reports through its context (e.g. an operation
/// the target cannot lower); without a handler LLVM only prints them and
/// code generation "succeeds".
static void collectLLVMDiagnostic(const llvm::DiagnosticInfo *info,
                                  void *errors) {
  if (info->getSeverity() != llvm::DS_Error)
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::DiagnosticPrinterRawOStream printer(os);
  info->print(printer);
  auto &list = *static_cast<std::vector<std::string> *>(errors);
  std::string message = llvm::StringRef(os.str()).trim().str();
  if (!llvm::is_contained(list, message))
    list.push_back(std::move(message));
}

/// The vector unit codegen tiles for.
static VectorTarget vectorTargetFor(const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *subtarget = machine.getMCSubtargetInfo();
  const llvm::Triple &triple = machine.getTargetTriple();
  VectorTarget target;
  if (triple.isX86()) {
    if (subtarget->checkFeatures("+avx512f"))
      return {512, 32};
    if (subtarget->checkFeatures("+avx"))
      return {256, 16};
    return {128, 16};
  }
  if (triple.isAArch64())
    return {128, 32};
  return target;
}

static std::string printModule(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  os << '\n';
  return text;
}

static std::string printLLVMModule(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

/// Reports two outputs given the same path: one would overwrite the other.
static bool checkDistinctOutputs(const CompileOptions &options,
                                 DiagnosticEngine &diags) {
  const std::pair<const char *, const std::string *> outputs[] = {
      {"-o", &options.outputPath},
      {"--header", &options.headerPath},
      {"--manifest", &options.manifestPath}};
  auto normalized = [](const std::string &path) {
    llvm::SmallString<256> text(path);
    llvm::sys::path::remove_dots(text, /*remove_dot_dot=*/true);
    return std::string(text);
  };
  for (size_t i = 0; i < std::size(outputs); ++i)
    for (size_t j = i + 1; j < std::size(outputs); ++j) {
      const std::string &a = *outputs[i].second, &b = *outputs[j].second;
      if (a.empty() || b.empty() || a == "-" || b == "-" ||
          normalized(a) != normalized(b))
        continue;
      diags.error(DiagCategory::Usage, "usage", "", Loc(),
                  std::string(outputs[i].first) + " and " + outputs[j].first +
                      " name the same file '" + b +
                      "'; each output needs its own path");
      return false;
    }
  return true;
}

int txc::runCompile(const CompileOptions &options, DiagnosticEngine &diags) {
  if (!checkDistinctOutputs(options, diags))
    return diags.exitCode();
  mlir::DefaultTimingManager timing;
  timing.setEnabled(options.timeReport);
  mlir::TimingScope root = timing.getRootScope();

  mlir::TimingScope frontend = root.nest("frontend");
  std::unique_ptr<CheckedProgram> checked =
      loadProgramTimed(options.programPath, options.entryPrefix, diags,
                       frontend);
  frontend.stop();
  if (!checked)
    return diags.exitCode();
  const Program &program = *checked->program;
  const Contract &contract = checked->contract;

  auto spec = resolveTargetSpec(options.triple, options.cpu, options.features,
                                options.optLevel);
  if (!spec) {
    diags.error(DiagCategory::Target, "target", "", Loc(),
                llvm::toString(spec.takeError()));
    return diags.exitCode();
  }
  auto machine = createTargetMachine(*spec);
  if (!machine) {
    diags.error(DiagCategory::Target, "target", "", Loc(),
                llvm::toString(machine.takeError()));
    return diags.exitCode();
  }

  mlir::DialectRegistry registry;
  registerTxcDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    reportMLIRDiagnostic(diag, diags);
    return mlir::success();
  });

  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    mlir::TimingScope mlirgen = root.nest("mlirgen");
    module = lowerProgramToMLIR(context, program, contract);
  }
  if (!module) {
    if (!diags.hasErrors())
      diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                  "internal compiler error: MLIRGen produced invalid IR");
    return diags.exitCode();
  }

  PipelineOptions pipeline;
  pipeline.optLevel = options.optLevel;
  pipeline.printIRAfterAll = options.printIRAfterAll;
  pipeline.vector = vectorTargetFor(**machine);
  std::optional<MLIRStage> stopAt = mlirStageOf(options.emit);
  {
    mlir::TimingScope passes = root.nest("mlir-pipeline");
    if (mlir::failed(runTxcPipeline(*module, stopAt.value_or(MLIRStage::LLVM),
                                    pipeline, passes))) {
      if (!diags.hasErrors())
        diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                    "internal compiler error: the MLIR pipeline failed");
      return diags.exitCode();
    }
  }

  std::string primary;
  if (stopAt) {
    primary = printModule(*module);
  } else {
    llvm::LLVMContext llvmContext;
    std::vector<std::string> llvmErrors;
    llvmContext.setDiagnosticHandlerCallBack(collectLLVMDiagnostic,
                                             &llvmErrors);
    std::string sourceName = llvm::sys::path::filename(program.file).str();
    std::unique_ptr<llvm::Module> llvmModule;
    {
      mlir::TimingScope translate = root.nest("translate-to-llvm-ir");
      auto translated =
          translateToLLVMIR(*module, llvmContext, **machine, sourceName);
      if (!translated) {
        diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                    llvm::toString(translated.takeError()));
        return diags.exitCode();
      }
      llvmModule = std::move(*translated);
    }
    {
      mlir::TimingScope abi = root.nest("abi-entry-points");
      if (llvm::Error err = emitAbiEntryPoints(
              *llvmModule, contract, kernelFunctionName(contract))) {
        diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                    llvm::toString(std::move(err)));
        return diags.exitCode();
      }
    }
    {
      mlir::TimingScope optimize = root.nest("llvm-optimize");
      optimizeLLVMModule(*llvmModule, **machine, options.optLevel);
    }
    if (options.emit == EmitKind::LLVMIR) {
      primary = printLLVMModule(*llvmModule);
    } else {
      mlir::TimingScope codegen = root.nest("llvm-codegen");
      auto code = emitMachineCode(*llvmModule, **machine,
                                  options.emit == EmitKind::Object
                                      ? MachineCodeKind::Object
                                      : MachineCodeKind::Assembly);
      if (!code) {
        diags.error(DiagCategory::Target, "codegen", program.file, Loc(),
                    llvm::toString(code.takeError()));
        return diags.exitCode();
      }
      for (const std::string &error : llvmErrors)
        diags.error(DiagCategory::Target, "codegen", "", Loc(),
                    "LLVM cannot compile the program for this target: " +
                        error);
      if (!llvmErrors.empty())
        return diags.exitCode();
      primary = std::move(*code);
    }
  }

  mlir::TimingScope write = root.nest("write");
  ArtifactInfo info;
  info.programFile = llvm::sys::path::filename(program.file).str();
  info.programSha256 = program.sha256;
  info.target = *spec;
  OutputFileSet outputs;
  std::string outputPath = options.outputPath;
  if (outputPath.empty())
    outputPath = program.name + "." + emitKindInfo(options.emit).extension;
  outputs.add(outputPath, std::move(primary));
  if (!options.headerPath.empty())
    outputs.add(options.headerPath, emitCHeader(contract, info));
  if (!options.manifestPath.empty())
    outputs.add(options.manifestPath, emitManifest(contract, info));
  if (llvm::Error err = outputs.commit()) {
    diags.error(DiagCategory::IO, "io-write", "", Loc(),
                llvm::toString(std::move(err)));
    return diags.exitCode();
  }
  return diags.exitCode();
}
