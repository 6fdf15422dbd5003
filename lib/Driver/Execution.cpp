//===- Execution.cpp - Compiling and loading programs in process ----------===//
#include "txc/Driver/Execution.h"

using namespace txc;

std::unique_ptr<CompiledProgram>
txc::compileForThisMachine(Compiler &compiler, JitEngine &engine,
                           const CheckedProgram &checked, unsigned optLevel,
                           DiagnosticEngine &diags) {
  auto spec = resolveTargetSpec("", "", "", optLevel);
  if (!spec) {
    diags.error(DiagCategory::Target, "target", "", Loc(),
                llvm::toString(spec.takeError()));
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
