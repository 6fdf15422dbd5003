//===- Execution.h - Compiling and running programs in process --*- C++ -*-===//
#ifndef TXC_DRIVER_EXECUTION_H
#define TXC_DRIVER_EXECUTION_H

#include "txc/Driver/Compiler.h"
#include "txc/JIT/Jit.h"

namespace txc {

/// Compiles `checked` for this machine at `optLevel` (the object `txc
/// compile -O<optLevel>` writes) and loads it into `engine`. Reports
/// problems to `diags` and returns null.
std::unique_ptr<CompiledProgram>
compileForThisMachine(Compiler &compiler, JitEngine &engine,
                      const CheckedProgram &checked, unsigned optLevel,
                      DiagnosticEngine &diags);

} // namespace txc

#endif
