//===- Driver.cpp - The compile and check jobs ----------------------------===//
#include "txc/Driver/Driver.h"

#include "txc/Driver/CompileCache.h"
#include "txc/Driver/Compiler.h"
#include "txc/Driver/Progress.h"
#include "txc/Driver/TimeReport.h"

#include "txc/Analysis/Regions.h"
#include "txc/Analysis/Specialization.h"
#include "txc/Analysis/Verifier.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Pipeline/Workspace.h"
#include "txc/Support/InputFiles.h"
#include "txc/Support/OutputFiles.h"
#include "txc/Target/ArtifactInfo.h"
#include "txc/Target/ObjectEmitter.h"
#include "txc/Target/Weights.h"

#include "mlir/Support/Timing.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <cerrno>
#include <unistd.h>

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
    {EmitKind::Regions, "regions", "json",
     "the kernel regions and the functions they share (JSON)"},
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

/// The workspace size of the object these flags compile, for the header
/// and manifest of an MLIR emit: read from `module` when `stopAt` is past
/// the Workspace pass, else (only if `needed`) from a second lowering up to
/// bufferization. Null after reporting.
static std::optional<WorkspaceSize>
workspaceSizeAfter(Compiler &compiler, const CheckedProgram &checked,
                    MLIRStage stopAt, mlir::ModuleOp module,
                    PipelineOptions pipeline, bool needed,
                    DiagnosticEngine &diags, mlir::TimingScope &timing) {
  if (int(stopAt) >= int(MLIRStage::Bufferized))
    return workspaceSize(module);
  if (!needed)
    return WorkspaceSize();
  pipeline.printIRAfterAll = false;
  mlir::TimingScope again = timing.nest("workspace-size");
  mlir::OwningOpRef<mlir::ModuleOp> bufferized = compiler.lowerToMLIR(
      checked, MLIRStage::Bufferized, pipeline, diags, again);
  if (!bufferized)
    return std::nullopt;
  return workspaceSize(*bufferized);
}

/// The variant `variant` of `generic`: the program read again (a Program
/// cannot be copied), verified, its symbols bound; the contract bound the
/// same way. Null after reporting.
static std::unique_ptr<CheckedProgram>
loadVariant(llvm::StringRef path, const CheckedProgram &generic,
            const ContractVariant &variant, const ReaderOptions &reader,
            DiagnosticEngine &diags) {
  // The program was read and verified once: its diagnostics (warnings) are
  // not repeated per variant.
  DiagnosticEngine again;
  auto result = std::make_unique<CheckedProgram>();
  result->program = readProgramFile(path, again, reader);
  if (!result->program || !verifyProgram(*result->program, again) ||
      result->program->sha256 != generic.program->sha256) {
    diags.error(DiagCategory::IO, "io-read", path, Loc(),
                "the program file changed while it was compiled");
    return nullptr;
  }
  bindProgramSymbols(*result->program, variant.bindings);
  result->contract = bindVariant(generic.contract, variant,
                                 variantPrefix(generic.contract, variant));
  return result;
}

/// Parses --specialize into the contract's variants and loads each.
static bool loadVariants(llvm::StringRef path,
                         llvm::ArrayRef<std::string> specializations,
                         const ReaderOptions &reader, CheckedProgram &checked,
                         DiagnosticEngine &diags) {
  auto variants =
      parseSpecializations(specializations, checked.contract, diags);
  if (!variants)
    return false;
  if (!variants->empty() && path == kStdioPath) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                "--specialize needs a program file, not standard input");
    return false;
  }
  checked.contract.variants = std::move(*variants);
  for (const ContractVariant &variant : checked.contract.variants) {
    auto loaded = loadVariant(path, checked, variant, reader, diags);
    if (!loaded)
      return false;
    checked.variants.push_back(std::move(loaded));
  }
  return true;
}

static std::unique_ptr<CheckedProgram>
loadProgramTimed(llvm::StringRef path, llvm::StringRef entryPrefix,
                 const ReaderOptions &reader, DiagnosticEngine &diags,
                 mlir::TimingScope &timing,
                 llvm::ArrayRef<std::string> specializations = {}) {
  if (!entryPrefix.empty() && !isValidIdentifier(entryPrefix)) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                "--entry-prefix '" + entryPrefix +
                    "' is not a C identifier");
    return nullptr;
  }
  auto result = std::make_unique<CheckedProgram>();
  {
    mlir::TimingScope parse = timing.nest("parse");
    result->program = readProgramFile(path, diags, reader);
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
  contractTimer.stop();
  if (specializations.empty())
    return result;
  mlir::TimingScope variantsTimer = timing.nest("variants");
  if (!loadVariants(path, specializations, reader, *result, diags))
    return nullptr;
  return result;
}

std::unique_ptr<CheckedProgram>
txc::loadProgram(llvm::StringRef path, llvm::StringRef entryPrefix,
                 DiagnosticEngine &diags, const ReaderOptions &reader,
                 llvm::ArrayRef<std::string> specializations,
                 mlir::TimingScope *timed) {
  mlir::DefaultTimingManager timing;
  mlir::TimingScope untimed = timing.getRootScope();
  return loadProgramTimed(path, entryPrefix, reader, diags,
                          timed ? *timed : untimed, specializations);
}

int txc::runCheck(llvm::StringRef programPath, DiagnosticEngine &diags,
                  const ReaderOptions &reader) {
  loadProgram(programPath, "", diags, reader);
  return diags.exitCode();
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
      {"--header-cxx", &options.headerCxxPath},
      {"--manifest", &options.manifestPath},
      {"--weights-file", &options.weightsPath},
      {"--depfile", &options.depfilePath}};
  auto normalized = [](const std::string &path) {
    llvm::SmallString<256> text(path);
    llvm::sys::path::remove_dots(text, /*remove_dot_dot=*/true);
    return std::string(text);
  };
  for (size_t i = 0; i < std::size(outputs); ++i)
    for (size_t j = i + 1; j < std::size(outputs); ++j) {
      const std::string &a = *outputs[i].second, &b = *outputs[j].second;
      // Outputs written in place (-, /dev/null, a FIFO) do not replace
      // one another.
      if (a.empty() || b.empty() || normalized(a) != normalized(b) ||
          isWrittenInPlace(a))
        continue;
      diags.error(DiagCategory::Usage, "usage", "", Loc(),
                  std::string(outputs[i].first) + " and " + outputs[j].first +
                      " name the same file '" + b +
                      "'; each output needs its own path");
      return false;
    }
  return true;
}

/// A path in a Make rule: as clang's DependencyFileGenerator writes it.
static void appendMakePath(std::string &text, llvm::StringRef path) {
  for (size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (c == ' ' || c == '#') {
      // Backslashes before a space or '#' are escaped too: "a\ b" is
      // "a\\\ b".
      for (size_t j = i; j > 0 && path[j - 1] == '\\'; --j)
        text += '\\';
      text += '\\';
    } else if (c == '$') {
      text += '$';
    }
    text += c;
  }
}

llvm::Expected<std::string>
txc::formatDepfile(llvm::StringRef target, llvm::ArrayRef<std::string> deps) {
  auto unwritable = [](llvm::StringRef path) -> llvm::Error {
    return llvm::createStringError(
        "--depfile cannot name the file '" + escapeForTerminal(path) +
        "': a Make rule cannot hold a newline in a path");
  };
  if (target.contains('\n'))
    return unwritable(target);
  std::string text;
  appendMakePath(text, target);
  text += ':';
  for (const std::string &dep : deps) {
    if (llvm::StringRef(dep).contains('\n'))
      return unwritable(dep);
    text += " \\\n  ";
    appendMakePath(text, dep);
  }
  text += '\n';
  for (size_t i = 1; i < deps.size(); ++i) {
    text += '\n';
    appendMakePath(text, deps[i]);
    text += ":\n";
  }
  return text;
}

/// The files a compile of `program` reads: the program file (unless it is
/// standard input) and its weights files.
static std::vector<std::string> compileInputs(const Program &program) {
  std::vector<std::string> files;
  if (program.file != kStdioPath && program.file != kStdinName)
    files.push_back(program.file);
  files.insert(files.end(), program.weightsFiles.begin(),
               program.weightsFiles.end());
  return files;
}

/// Queues --depfile's rule; false after reporting a path it cannot hold.
static bool addDepfile(OutputFileSet &outputs, const CompileOptions &options,
                       const std::string &outputPath, const Program &program,
                       DiagnosticEngine &diags) {
  if (options.depfilePath.empty())
    return true;
  auto text = formatDepfile(outputPath, compileInputs(program));
  if (!text) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                llvm::toString(text.takeError()));
    return false;
  }
  outputs.add(options.depfilePath, std::move(*text));
  return true;
}

/// The blob of --weights external: --weights-file, or the primary output's
/// path with the extension .weights.
static std::string weightsBlobPath(const CompileOptions &options,
                                   const std::string &outputPath) {
  if (!options.weightsPath.empty())
    return options.weightsPath;
  llvm::SmallString<256> path(outputPath);
  llvm::sys::path::replace_extension(path, "weights");
  return std::string(path);
}

/// Code generation of an object straight into its output's temporary file,
/// then the embedded weights written into it: a gigabyte of weights is
/// never held in memory (the weights files are mapped). Its imports go to
/// `imports`.
static bool emitObjectFile(llvm::Module &module, llvm::TargetMachine &machine,
                           const Program &program, const WeightsPlan &weights,
                           const CodegenPartitions &partitions,
                           mlir::TimingScope &timing,
                           OutputFileSet::Streamed &out,
                           std::vector<std::string> &imports,
                           DiagnosticEngine &diags) {
  llvm::raw_fd_ostream &os = out.stream();
  if (!generateCode(module, machine, MachineCodeKind::Object, program.file,
                    diags, os, &partitions, &timing))
    return false;
  os.flush();
  auto ioError = [&](std::error_code ec) {
    diags.error(DiagCategory::IO, "io-write", "", Loc(),
                "cannot write '" + out.path() + "': " + ec.message());
    return false;
  };
  if (os.has_error()) {
    std::error_code ec = os.error();
    os.clear_error();
    return ioError(ec);
  }
  auto object = llvm::MemoryBuffer::getOpenFile(
      out.fd(), out.path(), os.tell(), /*RequiresNullTerminator=*/false);
  if (!object)
    return ioError(object.getError());
  auto checked = checkedObjectImports((*object)->getMemBufferRef(),
                                      program.file, diags);
  if (!checked)
    return false;
  imports = std::move(*checked);
  if (weights.mode != WeightsMode::Embedded || weights.blobs.empty())
    return true;
  std::error_code writeError;
  llvm::Error err = fillEmbeddedWeights(
      (*object)->getMemBufferRef(), weights,
      [&](uint64_t offset, llvm::ArrayRef<uint8_t> bytes) -> llvm::Error {
        while (!bytes.empty()) {
          ssize_t n =
              ::pwrite(out.fd(), bytes.data(),
                       std::min<size_t>(bytes.size(), 1u << 30), off_t(offset));
          if (n < 0) {
            if (errno == EINTR)
              continue;
            writeError = std::error_code(errno, std::generic_category());
            return llvm::errorCodeToError(writeError);
          }
          bytes = bytes.drop_front(size_t(n));
          offset += uint64_t(n);
        }
        return llvm::Error::success();
      });
  if (err) {
    std::string message = llvm::toString(std::move(err));
    if (writeError)
      return ioError(writeError);
    diags.error(DiagCategory::Internal, "internal", program.file, Loc(),
                "cannot write the weights into the object: " + message);
    return false;
  }
  return true;
}

/// The cache and the key of this compile, or nullopt (after a warning) when
/// the cache cannot be used; the compile then goes on without it.
static std::optional<std::pair<CompileCache, std::string>>
openCompileCache(const CompileOptions &options, const CheckedProgram &checked,
                 const TargetSpec &spec, DiagnosticEngine &diags) {
  auto disabled = [&](const llvm::Twine &why) {
    diags.warning(DiagCategory::IO, "cache", "", Loc(),
                  "the compile cache is not used: " + why);
    return std::nullopt;
  };
  // Standard input cannot be read again to check, when the result is
  // stored, that the program did not change while it was compiled.
  if (options.programPath == kStdioPath)
    return disabled("the program is read from standard input");
  auto cache = CompileCache::open(
      options.cacheDir, options.cacheMaxBytes.value_or(kDefaultCacheMaxBytes));
  if (!cache)
    return disabled(llvm::toString(cache.takeError()));
  std::string error;
  auto files = hashReferencedFiles(checked.program->file,
                                   checked.program->sha256, error);
  if (!files)
    return disabled(error);
  CacheKeyInputs key;
  key.programFileName = llvm::sys::path::filename(checked.program->file).str();
  key.programSha256 = checked.program->sha256;
  key.referencedFiles = std::move(*files);
  key.emitKind = emitKindInfo(options.emit).name;
  key.optLevel = options.optLevel;
  key.target = spec;
  key.entryPrefix = checked.contract.entryPrefix;
  key.cutRegions = options.cutRegions;
  for (const ContractVariant &variant : checked.contract.variants)
    key.specializations.push_back(variant.text(checked.contract));
  return std::make_pair(std::move(*cache), cacheKey(key));
}

/// Queues the header, the C++ header and the manifest that are asked for.
static void addDescriptions(OutputFileSet &outputs,
                            const CompileOptions &options,
                            const CacheArtifacts &artifacts,
                            const Contract &contract,
                            const ArtifactInfo &info) {
  if (!options.headerPath.empty())
    outputs.add(options.headerPath, artifacts.header);
  if (!options.headerCxxPath.empty())
    outputs.add(options.headerCxxPath,
                emitCxxHeader(contract, info, artifacts.header));
  if (!options.manifestPath.empty())
    outputs.add(options.manifestPath, artifacts.manifest);
}

/// Writes the primary output and the descriptions and depfile asked for.
static int writeArtifacts(const CompileOptions &options,
                          const std::string &outputPath,
                          const CacheArtifacts &artifacts,
                          const CheckedProgram &checked,
                          const ArtifactInfo &info, DiagnosticEngine &diags) {
  OutputFileSet outputs;
  outputs.add(outputPath, artifacts.primary);
  addDescriptions(outputs, options, artifacts, checked.contract, info);
  if (!addDepfile(outputs, options, outputPath, *checked.program, diags))
    return diags.exitCode();
  if (llvm::Error err = outputs.commit())
    diags.error(DiagCategory::IO, "io-write", "", Loc(),
                llvm::toString(std::move(err)));
  return diags.exitCode();
}

/// Whether the compile writes a description of the artifact (a header, a
/// manifest, or a cache entry holding both), which needs the workspace size
/// even when the primary output stops before bufferization.
static bool describesArtifact(const CompileOptions &options, bool usesCache) {
  return !options.headerPath.empty() || !options.headerCxxPath.empty() ||
         !options.manifestPath.empty() || usesCache;
}

/// The top-level phases of a compile with these options, in the order they
/// run (docs/architecture.md, "The compile job"): what the status line
/// counts. A cache hit goes from cache-lookup to write.
static std::vector<std::string> compilePhases(const CompileOptions &options,
                                              bool usesCache) {
  std::vector<std::string> phases = {"frontend", "weights"};
  if (usesCache)
    phases.push_back("cache-lookup");
  bool describes = describesArtifact(options, usesCache);
  if (options.emit == EmitKind::Regions) {
    phases.push_back("regions");
    if (describes)
      phases.push_back("workspace-size");
  } else if (std::optional<MLIRStage> stage = mlirStageOf(options.emit)) {
    phases.insert(phases.end(), {"mlirgen", "mlir-pipeline"});
    if (describes && int(*stage) < int(MLIRStage::Bufferized))
      phases.push_back("workspace-size");
  } else {
    phases.insert(phases.end(), {"mlirgen", "mlir-pipeline",
                                 "translate-to-llvm-ir", "abi-entry-points",
                                 "llvm-optimize"});
    if (options.emit != EmitKind::LLVMIR)
      phases.push_back("llvm-codegen");
  }
  phases.push_back("write");
  if (usesCache)
    phases.push_back("cache-store");
  return phases;
}

void txc::reportTargetError(llvm::Error err, DiagnosticEngine &diags) {
  llvm::handleAllErrors(
      std::move(err),
      [&](const TargetOptionError &error) {
        Diagnostic &diag = diags.error(DiagCategory::Target, "target", "",
                                       Loc(), error.message);
        for (const std::string &note : error.notes)
          diag.addNote(note);
      },
      [&](const llvm::ErrorInfoBase &error) {
        diags.error(DiagCategory::Target, "target", "", Loc(),
                    error.message());
      });
}

/// `--target help`, `--cpu help`, `--features help`: the valid values on
/// standard output, instead of compiling. Nullopt if none asks for help.
static std::optional<int> printTargetHelp(const CompileOptions &options,
                                          DiagnosticEngine &diags) {
  if (options.triple == "help") {
    llvm::outs() << describeTargets();
    return diags.exitCode();
  }
  if (options.cpu != "help" && options.features != "help")
    return std::nullopt;
  auto print = [&](llvm::Expected<std::string> text) {
    if (text)
      llvm::outs() << *text;
    else if (!diags.hasErrors()) // the same error for both lists
      reportTargetError(text.takeError(), diags);
    else
      llvm::consumeError(text.takeError());
  };
  if (options.cpu == "help")
    print(describeCPUs(options.triple));
  if (options.features == "help")
    print(describeFeatures(options.triple));
  return diags.exitCode();
}

/// With a list of CPUs (--cpu A,B,...): their target machines after the
/// baseline's. Variants and CPU levels are not combined yet: each variant
/// would need a kernel per CPU and a dispatcher of its own.
static bool checkCPUList(
    const CompileOptions &options, const TargetSpec &spec,
    std::vector<std::unique_ptr<llvm::TargetMachine>> &machines,
    DiagnosticEngine &diags) {
  if (spec.moreCPUs.empty())
    return true;
  if (!options.specializations.empty()) {
    diags
        .error(DiagCategory::Usage, "usage", "", Loc(),
               "--specialize cannot be combined with a list of CPUs (--cpu " +
                   options.cpu + ") yet")
        .addNote("compile the variants for one CPU, or the CPUs without "
                 "variants (docs/cli.md, \"Several CPUs in one object\")");
    return false;
  }
  if (llvm::Error err = createLevelMachines(spec, machines)) {
    reportTargetError(std::move(err), diags);
    return false;
  }
  return true;
}

int txc::runCompile(const CompileOptions &options, DiagnosticEngine &diags) {
  if (std::optional<int> code = printTargetHelp(options, diags))
    return *code;
  if (options.programPath.empty()) {
    diags
        .error(DiagCategory::Usage, "usage", "", Loc(),
               "no program file given")
        .addNote("usage: txc compile PROGRAM [options]; txc compile --help "
                 "lists the options");
    return diags.exitCode();
  }
  if (!checkDistinctOutputs(options, diags))
    return diags.exitCode();
  if (options.externalWeights && options.weightsPath.empty() &&
      options.outputPath == "-") {
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                "--weights external with -o - needs --weights-file to name "
                "the weights blob");
    return diags.exitCode();
  }
  // The status line counts the phases the timers time: on a terminal they
  // run without --time-report too, and print nothing.
  bool timeReport = options.timeReport || options.timeReportJson;
  bool statusLine = !options.quiet && !options.printIRAfterAll &&
                    canShowStatusLine(llvm::errs());
  CompileTiming timing(statusLine ? &llvm::errs() : nullptr,
                       llvm::sys::path::filename(options.programPath));
  timing.setEnabled(timeReport || statusLine);
  if (options.timeReportJson)
    timing.setOutput(createJsonTimingOutput(llvm::errs()));
  else if (!timeReport)
    timing.setOutput(createSilentTimingOutput());
  timing.setPhases(compilePhases(
      options, !options.cacheDir.empty() && options.cacheMaxBytes != 0u));
  mlir::TimingScope root = timing.getRootScope();

  mlir::TimingScope frontend = root.nest("frontend");
  ReaderOptions reader;
  reader.allowedWeightDirs = options.allowedWeightDirs;
  std::unique_ptr<CheckedProgram> checked =
      loadProgramTimed(options.programPath, options.entryPrefix, reader, diags,
                       frontend, options.specializations);
  frontend.stop();
  if (!checked)
    return diags.exitCode();
  const Program &program = *checked->program;
  const Contract &contract = checked->contract;

  auto spec = resolveTargetSpec(options.triple, options.cpu, options.features,
                                options.optLevel);
  if (!spec) {
    reportTargetError(spec.takeError(), diags);
    return diags.exitCode();
  }
  auto machine = createTargetMachine(*spec);
  if (!machine) {
    reportTargetError(machine.takeError(), diags);
    return diags.exitCode();
  }
  std::vector<std::unique_ptr<llvm::TargetMachine>> levelMachines;
  if (!checkCPUList(options, *spec, levelMachines, diags))
    return diags.exitCode();

  std::string outputPath = options.outputPath;
  if (outputPath.empty())
    outputPath = program.name + "." + emitKindInfo(options.emit).extension;

  // Hashes every constant and lays out the stored ones.
  WeightsPlan weights;
  {
    mlir::TimingScope plan = root.nest("weights");
    weights = planWeights(program, contract.entryPrefix,
                          options.externalWeights ? WeightsMode::External
                                                  : WeightsMode::Embedded);
  }
  ArtifactInfo info;
  info.programFile = llvm::sys::path::filename(program.file).str();
  info.programSha256 = program.sha256;
  info.target = *spec;
  info.program = &program;
  info.weights = &weights;

  // A cache hit gives the bytes a compile would write. Objects with stored
  // weights are streamed to their file and can be gigabytes: not cached.
  std::optional<std::pair<CompileCache, std::string>> cache;
  bool cacheWanted = !options.cacheDir.empty() && options.cacheMaxBytes != 0u;
  if (cacheWanted && (!weights.blobs.empty() || options.externalWeights)) {
    timing.setPhases(compilePhases(options, /*usesCache=*/false));
    diags.warning(DiagCategory::IO, "cache", "", Loc(),
                  options.externalWeights
                      ? "the compile cache is not used with --weights "
                        "external"
                      : "the compile cache is not used: the program stores "
                        "weights, which are not cached");
  } else if (cacheWanted) {
    mlir::TimingScope lookup = root.nest("cache-lookup");
    cache = openCompileCache(options, *checked, *spec, diags);
    // --print-ir-after-all asks for the compile itself.
    if (cache && !options.printIRAfterAll)
      if (std::optional<CacheArtifacts> hit =
              cache->first.lookup(cache->second)) {
        lookup.stop();
        mlir::TimingScope write = root.nest("write");
        return writeArtifacts(options, outputPath, *hit, *checked, info,
                              diags);
      }
  }

  // Printing the IR after every pass prints whole modules, which MLIR
  // does only when passes do not run in parallel.
  Compiler compiler(options.printIRAfterAll ? 1 : options.jobs);
  PipelineOptions pipeline = pipelineOptionsFor(**machine, options.optLevel);
  pipeline.printIRAfterAll = options.printIRAfterAll;
  pipeline.cutRegions = options.cutRegions;
  OutputFileSet outputs;
  CacheArtifacts artifacts;
  bool primaryStreamed = false;
  bool describes = describesArtifact(options, cache.has_value());
  if (options.emit == EmitKind::Regions) {
    {
      mlir::TimingScope regions = root.nest("regions");
      RegionOptions regionOptions;
      regionOptions.cut = options.cutRegions;
      artifacts.primary =
          regionPlanToJson(program,
                           planRegions(program, contract, regionOptions))
              .dump(2) +
          "\n";
    }
    std::optional<WorkspaceSize> workspace =
        workspaceSizeAfter(compiler, *checked, MLIRStage::Tensor, nullptr,
                           pipeline, describes, diags, root);
    if (!workspace)
      return diags.exitCode();
    info.setWorkspace(*workspace);
  } else if (std::optional<MLIRStage> stopAt = mlirStageOf(options.emit)) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        compiler.lowerToMLIR(*checked, *stopAt, pipeline, diags, root);
    if (!module)
      return diags.exitCode();
    artifacts.primary = printModule(*module);
    std::optional<WorkspaceSize> workspace = workspaceSizeAfter(
        compiler, *checked, *stopAt, *module, pipeline, describes, diags, root);
    if (!workspace)
      return diags.exitCode();
    info.setWorkspace(*workspace);
  } else {
    llvm::LLVMContext llvmContext;
    WorkspaceSize workspace;
    std::unique_ptr<llvm::Module> llvmModule =
        compiler.buildLLVMModule(*checked, llvmContext, **machine, pipeline,
                                 diags, root, weights, &workspace,
                                 machinePointers(levelMachines));
    info.setWorkspace(workspace);
    if (!llvmModule)
      return diags.exitCode();
    if (options.emit == EmitKind::LLVMIR) {
      artifacts.primary = printLLVMModule(*llvmModule);
    } else if (options.emit == EmitKind::Object && outputPath != "-" &&
               !weights.blobs.empty()) {
      mlir::TimingScope codegen = root.nest("llvm-codegen");
      auto streamed = outputs.addStreamed(outputPath);
      if (!streamed) {
        diags.error(DiagCategory::IO, "io-write", "", Loc(),
                    llvm::toString(streamed.takeError()));
        return diags.exitCode();
      }
      std::vector<std::string> imports;
      CodegenPartitions partitions =
          compiler.codegenPartitions(*llvmModule, *checked);
      if (!emitObjectFile(*llvmModule, **machine, program, weights, partitions,
                          codegen, **streamed, imports, diags))
        return diags.exitCode();
      info.imports = std::move(imports);
      primaryStreamed = true;
    } else {
      mlir::TimingScope codegen = root.nest("llvm-codegen");
      bool object = options.emit == EmitKind::Object;
      std::vector<std::string> imports;
      CodegenPartitions partitions =
          compiler.codegenPartitions(*llvmModule, *checked);
      auto code = generateCode(
          *llvmModule, **machine,
          object ? MachineCodeKind::Object : MachineCodeKind::Assembly,
          program.file, diags, &weights, &imports, &partitions, &codegen);
      if (!code)
        return diags.exitCode();
      artifacts.primary = std::move(*code);
      if (object)
        info.imports = std::move(imports);
    }
  }

  {
    mlir::TimingScope write = root.nest("write");
    if (options.externalWeights) {
      std::string blobPath = weightsBlobPath(options, outputPath);
      info.weightsFile = llvm::sys::path::filename(blobPath).str();
      // The blob is as large as the weights: written at commit time
      // straight from the mapped weights files.
      outputs.addWriter(blobPath, [&weights](llvm::raw_ostream &os) {
        return weights.writeBlob(os);
      });
    }
    artifacts.header = emitCHeader(contract, info);
    artifacts.manifest = emitManifest(contract, info);
    if (!primaryStreamed)
      outputs.add(outputPath, artifacts.primary);
    addDescriptions(outputs, options, artifacts, contract, info);
    if (!addDepfile(outputs, options, outputPath, program, diags))
      return diags.exitCode();
    if (llvm::Error err = outputs.commit()) {
      diags.error(DiagCategory::IO, "io-write", "", Loc(),
                  llvm::toString(std::move(err)));
      return diags.exitCode();
    }
  }
  if (cache) {
    mlir::TimingScope store = root.nest("cache-store");
    // Store only if the referenced files did not change while compiling.
    auto again = openCompileCache(options, *checked, *spec, diags);
    if (again && again->second == cache->second) {
      if (llvm::Error err = cache->first.store(cache->second, artifacts))
        diags.warning(DiagCategory::IO, "cache", "", Loc(),
                      "the compile cache could not store the result: " +
                          llvm::toString(std::move(err)));
    }
  }
  return diags.exitCode();
}
