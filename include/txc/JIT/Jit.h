//===- Jit.h - Running compiled objects in process --------------*- C++ -*-===//
//
// Loads the object `txc compile` emits (the same bytes, from the same code
// generator) into an ORC LLJIT in this process and calls its C entry points
// on Tensors, the way a C caller would: <p>_output_shapes to learn the
// output shapes, then <p>_run into freshly allocated output buffers, and
// <p>_error_message for a failed call's message. One JitEngine holds any
// number of loaded programs, each in its own JITDylib, so the same program
// compiled at several optimization levels can be loaded side by side.
//
// The object's undefined symbols (snprintf, memset, memcpy, malloc, free,
// libm's functions) resolve to this process's libc and libm, as they would
// when the object is linked into a C program.
//
// Every call also checks that the compiled code stayed inside its buffers:
// inputs are passed as private copies surrounded by guard bytes, outputs
// get guard bytes on both sides, and a call that changed an input or a
// guard byte is an error.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_JIT_JIT_H
#define TXC_JIT_JIT_H

#include "txc/Analysis/Contract.h"
#include "txc/Interp/Interpreter.h"
#include "txc/Interp/Tensor.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace llvm::orc {
class JITDylib;
class LLJIT;
} // namespace llvm::orc

namespace txc {

class CompiledProgram;

class JitEngine {
public:
  static llvm::Expected<std::unique_ptr<JitEngine>> create();
  ~JitEngine();

  /// Loads an object compiled for this machine from the program whose
  /// contract is `contract` and resolves its entry points. The contract is
  /// copied. `name` names the object in errors.
  llvm::Expected<std::unique_ptr<CompiledProgram>>
  load(llvm::StringRef object, const Contract &contract, llvm::StringRef name);

private:
  friend class CompiledProgram;
  JitEngine() = default;

  std::unique_ptr<llvm::orc::LLJIT> jit;
  unsigned loaded = 0;
  /// Errors the JIT reported on the side (e.g. which symbols were missing),
  /// added to the next load error.
  std::string sideErrors;
};

/// The entry points of one loaded object. Unloads it when destroyed (before
/// its JitEngine).
class CompiledProgram {
public:
  using EntryPoint = int32_t (*)(const void *inputs, int64_t numInputs,
                                 void *outputs, int64_t numOutputs,
                                 void *status);
  using MessageFunction = int32_t (*)(const void *status, char *buffer,
                                      size_t size);

  ~CompiledProgram();

  /// Calls the object on `inputs` (in contract order). Errors are failures
  /// of the compiled code or of this runner (e.g. a buffer overrun), never
  /// statuses.
  llvm::Expected<ExecutionResult> run(llvm::ArrayRef<Tensor> inputs) const;

  const Contract &getContract() const { return contract; }

  /// Calls `<p>_run`, or `<p>_output_shapes` when `shapesOnly`, with
  /// descriptors built from `inputs` and `outputs` exactly as given (data
  /// addresses, sizes, dtypes, dims; the rank field is dims.size(), dims
  /// beyond the ABI's 8 are not passed). Nothing is allocated or checked:
  /// the caller makes sure that every address points to memory of the size
  /// claimed, or that a guard fails before the kernel runs. Returns the
  /// status the call wrote (its return value as the code), the message of
  /// `<p>_error_message` for a failure, and on success the shapes the call
  /// wrote into the output descriptors.
  CallStatus callWithDescriptors(llvm::ArrayRef<CallTensor> inputs,
                                 llvm::ArrayRef<CallTensor> outputs,
                                 bool shapesOnly, std::string &message,
                                 std::vector<std::vector<int64_t>>
                                     &outputShapes) const;

private:
  friend class JitEngine;
  CompiledProgram(JitEngine &engine, llvm::orc::JITDylib &dylib,
                  Contract contract)
      : engine(engine), dylib(dylib), contract(std::move(contract)) {}

  /// The message <p>_error_message writes for a status.
  std::string formatMessage(const void *status) const;

  JitEngine &engine;
  llvm::orc::JITDylib &dylib;
  Contract contract;
  EntryPoint runFn = nullptr;
  EntryPoint shapesFn = nullptr;
  MessageFunction messageFn = nullptr;
};

} // namespace txc

#endif
