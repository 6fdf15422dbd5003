//===- Execution.h - Compiling and running programs in process --*- C++ -*-===//
#ifndef TXC_DRIVER_EXECUTION_H
#define TXC_DRIVER_EXECUTION_H

#include "txc/Driver/Compiler.h"
#include "txc/JIT/Jit.h"

namespace txc {

/// Compiles `checked` as `txc compile -O<optLevel> --target triple --cpu
/// cpu --features features` does (empty strings: its defaults) and loads
/// the object into `engine`. The triple must be this machine's
/// architecture; the CPU's instructions are not checked (an object for a
/// CPU this machine lacks stops at its first missing instruction). Reports
/// problems to `diags` and returns null.
std::unique_ptr<CompiledProgram>
compileAndLoad(Compiler &compiler, JitEngine &engine,
               const CheckedProgram &checked, llvm::StringRef triple,
               llvm::StringRef cpu, llvm::StringRef features,
               unsigned optLevel, DiagnosticEngine &diags);

/// The object `txc compile -O<optLevel>` writes (for this machine's triple
/// and the portable default CPU), loaded into `engine`.
inline std::unique_ptr<CompiledProgram>
compileForThisMachine(Compiler &compiler, JitEngine &engine,
                      const CheckedProgram &checked, unsigned optLevel,
                      DiagnosticEngine &diags) {
  return compileAndLoad(compiler, engine, checked, "", "", "", optLevel,
                        diags);
}

} // namespace txc

#endif
