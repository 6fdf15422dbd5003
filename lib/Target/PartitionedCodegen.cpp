//===- PartitionedCodegen.cpp - Code generation on several threads --------===//
#include "txc/Target/PartitionedCodegen.h"
#include "ModuleSplit.h"

#include "mlir/Support/Timing.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace txc;

//===----------------------------------------------------------------------===//
// Assembly text of the partitions, made into one
//===----------------------------------------------------------------------===//

/// Characters of the symbol names txc's assembly uses unquoted. `$` is
/// not one: x86 prefixes immediates with it (`$.LCPI0_0`).
static bool isSymbolChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.';
}

/// Renames the symbols of one line outside string literals and comments.
static void renameSymbols(llvm::StringRef line, unsigned partition,
                          llvm::StringRef comment,
                          const llvm::StringSet<> &privateNames,
                          std::string &out) {
  bool inString = false;
  for (size_t i = 0; i < line.size();) {
    char c = line[i];
    if (inString) {
      out += c;
      if (c == '\\' && i + 1 < line.size())
        out += line[++i];
      else if (c == '"')
        inString = false;
      ++i;
      continue;
    }
    if (c == '"') {
      inString = true;
      out += c;
      ++i;
      continue;
    }
    if (line.substr(i).starts_with(comment)) {
      out += line.substr(i);
      return;
    }
    bool startsSymbol = (llvm::isAlpha(c) || c == '_' || c == '.') &&
                        (i == 0 || !isSymbolChar(line[i - 1]));
    if (!startsSymbol) {
      out += c;
      ++i;
      continue;
    }
    size_t end = i;
    while (end < line.size() && isSymbolChar(line[end]))
      ++end;
    llvm::StringRef symbol = line.slice(i, end);
    if (symbol.starts_with(".L"))
      out += (".Lt" + llvm::Twine(partition) + "_" + symbol.drop_front(2)).str();
    else if (privateNames.contains(symbol))
      out += (".Lx_" + symbol).str();
    else
      out += symbol;
    i = end;
  }
}

/// Whether `line` is a directive that the merged text must drop.
static bool isDroppedDirective(llvm::StringRef line, unsigned partition,
                               const llvm::StringSet<> &localNames) {
  llvm::StringRef trimmed = line.trim();
  size_t space = trimmed.find_first_of(" \t");
  llvm::StringRef directive = trimmed.take_front(space);
  llvm::StringRef operand =
      space == llvm::StringRef::npos ? "" : trimmed.drop_front(space).trim();
  if (directive == ".file")
    return partition != 0;
  return (directive == ".globl" || directive == ".hidden") &&
         localNames.contains(operand);
}

std::string txc::mergeablePartitionAssembly(
    llvm::StringRef text, unsigned partition, llvm::StringRef comment,
    const llvm::StringSet<> &localNames, const llvm::StringSet<> &privateNames) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  while (!text.empty()) {
    llvm::StringRef line;
    std::tie(line, text) = text.split('\n');
    if (isDroppedDirective(line, partition, localNames))
      continue;
    renameSymbols(line, partition, comment, privateNames, out);
    out += '\n';
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Code generation of the partitions
//===----------------------------------------------------------------------===//

/// Compiles one partition's bitcode to assembly (replacing `code`), in a
/// context and with a target machine of its own. An error is returned as
/// its message; LLVM's diagnostics go to `errors`.
static std::string assemblePartition(std::string &code,
                                     const llvm::TargetMachine &machine,
                                     std::vector<std::string> &errors) {
  llvm::LLVMContext context;
  context.setDiagnosticHandlerCallBack(collectLLVMErrors, &errors);
  auto partition = loadPartition(code, context, machine);
  if (!partition)
    return llvm::toString(partition.takeError());
  // No comments: the text is read by the assembler, not by people.
  partition->machine->Options.MCOptions.AsmVerbose = false;
  llvm::SmallVector<char, 0> assembly;
  llvm::raw_svector_ostream os(assembly);
  if (llvm::Error err =
          emitPreparedMachineCode(*partition->module, *partition->machine,
                                  MachineCodeKind::Assembly, os))
    return llvm::toString(std::move(err));
  code.assign(assembly.begin(), assembly.end());
  return "";
}

/// Assembles `text` into an object for `machine`'s target, in-process.
static llvm::Error assemble(llvm::StringRef text,
                            const llvm::TargetMachine &machine,
                            llvm::raw_pwrite_stream &out) {
  const llvm::Target &target = machine.getTarget();
  const llvm::Triple &triple = machine.getTargetTriple();
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, "partitions.s",
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  std::string diagnostics;
  sources.setDiagHandler(
      [](const llvm::SMDiagnostic &diag, void *context) {
        llvm::raw_string_ostream os(*static_cast<std::string *>(context));
        diag.print("txc", os, /*ShowColors=*/false);
      },
      &diagnostics);
  const llvm::MCSubtargetInfo &subtarget = *machine.getMCSubtargetInfo();
  const llvm::MCTargetOptions &options = machine.Options.MCOptions;
  llvm::MCContext context(triple, machine.getMCAsmInfo(),
                          machine.getMCRegisterInfo(), &subtarget, &sources,
                          &options);
  std::unique_ptr<llvm::MCObjectFileInfo> fileInfo(
      target.createMCObjectFileInfo(context, machine.isPositionIndependent()));
  context.setObjectFileInfo(fileInfo.get());
  std::unique_ptr<llvm::MCAsmBackend> backend(
      target.createMCAsmBackend(subtarget, *machine.getMCRegisterInfo(),
                                options));
  std::unique_ptr<llvm::MCCodeEmitter> emitter(
      target.createMCCodeEmitter(*machine.getMCInstrInfo(), context));
  if (!backend || !emitter)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the target cannot assemble objects");
  std::unique_ptr<llvm::MCObjectWriter> writer = backend->createObjectWriter(out);
  std::unique_ptr<llvm::MCStreamer> streamer(target.createMCObjectStreamer(
      triple, context, std::move(backend), std::move(writer),
      std::move(emitter), subtarget));
  std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(
      sources, context, *streamer, *machine.getMCAsmInfo()));
  std::unique_ptr<llvm::MCTargetAsmParser> targetParser(
      target.createMCAsmParser(subtarget, *parser, *machine.getMCInstrInfo(),
                               options));
  if (!targetParser)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the target has no assembly parser");
  parser->setTargetParser(*targetParser);
  if (parser->Run(/*NoInitialTextSection=*/false) || !diagnostics.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "internal error: the partitions' assembly does not assemble: %s",
        diagnostics.c_str());
  return llvm::Error::success();
}

/// Whether every name that crosses a cut is written unquoted in assembly
/// (the renaming does not look into quoted names).
static bool hasPlainNames(const Split &split) {
  return llvm::all_of(split.externalized, [](const Externalized &value) {
    return !value.name.empty() && !llvm::isDigit(value.name[0]) &&
           llvm::all_of(value.name, isSymbolChar);
  });
}

llvm::Error txc::emitMachineCodeInPartitions(
    llvm::Module &module, llvm::TargetMachine &machine, MachineCodeKind kind,
    const CodegenPartitions &partitions, mlir::TimingScope &timing,
    std::vector<std::string> &llvmErrors, llvm::raw_pwrite_stream &out) {
  PartitionPlan plan = planPartitions(module, partitions.roots);
  std::vector<std::string> code;
  Split split;
  {
    mlir::TimingScope scope = timing.nest("llvm-split");
    if (plan.count > 1)
      split = splitModule(module, plan);
    if (plan.count == 1 || !hasPlainNames(split)) {
      restoreLocals(module, split);
      return emitPreparedMachineCode(module, machine, kind, out);
    }
    for (unsigned p = 0; p < split.count; ++p)
      code.push_back(partitionBitcode(module, split, p));
    restoreLocals(module, split);
  }
  std::vector<std::vector<std::string>> errors(split.count);
  {
    mlir::TimingScope scope = timing.nest("llvm-partitions");
    auto generate = [&](unsigned p) {
      return assemblePartition(code[p], machine, errors[p]);
    };
    if (llvm::Error err =
            runPartitions(split.count, partitions.threads, scope, generate))
      return err;
  }
  // The partitions may report the same error: each is listed once.
  for (const std::vector<std::string> &partitionErrors : errors)
    for (const std::string &error : partitionErrors)
      if (!llvm::is_contained(llvmErrors, error))
        llvmErrors.push_back(error);
  if (!llvmErrors.empty())
    return llvm::Error::success();

  mlir::TimingScope scope = timing.nest("assemble");
  llvm::StringSet<> localNames, privateNames;
  for (const Externalized &value : split.externalized) {
    localNames.insert(value.name);
    if (value.linkage == llvm::GlobalValue::PrivateLinkage)
      privateNames.insert(value.name);
  }
  llvm::StringRef comment = machine.getMCAsmInfo()->getCommentString();
  std::string text;
  for (unsigned p = 0; p < split.count; ++p) {
    text += mergeablePartitionAssembly(code[p], p, comment, localNames,
                                       privateNames);
    code[p].clear();
  }
  if (kind == MachineCodeKind::Assembly) {
    out << text;
    return llvm::Error::success();
  }
  return assemble(text, machine, out);
}
