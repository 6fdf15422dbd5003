//===- Execution.cpp - Compiling and loading programs in process ----------===//
#include "txc/Driver/Execution.h"

#include "llvm/TargetParser/Triple.h"

using namespace txc;

std::unique_ptr<CompiledProgram>
txc::compileAndLoad(Compiler &compiler, JitEngine &engine,
                    const CheckedProgram &checked, llvm::StringRef triple,
                    llvm::StringRef cpu, llvm::StringRef features,
                    unsigned optLevel, DiagnosticEngine &diags) {
  auto spec = resolveTargetSpec(triple, cpu, features, optLevel);
  if (!spec) {
    reportTargetError(spec.takeError(), diags);
    return nullptr;
  }
  if (!isHostTriple(llvm::Triple(spec->triple))) {
    diags.error(DiagCategory::Target, "target", "", Loc(),
                "an object for " + spec->triple +
                    " cannot run in this process; run it under an emulator");
    return nullptr;
  }
  std::optional<std::string> object =
      compiler.compileObject(checked, *spec, diags);
  if (!object)
    return nullptr;
  std::string name = checked.program->name + "-O" + std::to_string(optLevel);
  auto loaded = engine.load(*object, checked.contract, name);
  if (!loaded) {
    diags.error(DiagCategory::Internal, "jit", checked.program->file, Loc(),
                llvm::toString(loaded.takeError()));
    return nullptr;
  }
  return std::move(*loaded);
}
