//===- Jit.cpp - Running compiled objects in process ----------------------===//
#include "txc/JIT/Jit.h"
#include "ImportAddresses.h"

#include "txc/Target/AbiEmitter.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace txc;

namespace {

/// txc_tensor and txc_status of the generated header (docs/abi.md).
struct AbiTensor {
  void *data;
  int64_t sizeBytes;
  int32_t dtype;
  int32_t rank;
  int64_t dims[AbiLayout::kMaxRank];
};
static_assert(offsetof(AbiTensor, data) == AbiLayout::kTensorData);
static_assert(offsetof(AbiTensor, sizeBytes) == AbiLayout::kTensorSizeBytes);
static_assert(offsetof(AbiTensor, dtype) == AbiLayout::kTensorDType);
static_assert(offsetof(AbiTensor, rank) == AbiLayout::kTensorRank);
static_assert(offsetof(AbiTensor, dims) == AbiLayout::kTensorDims);
static_assert(sizeof(AbiTensor) == AbiLayout::kTensorSize);

struct AbiStatus {
  int32_t code, guard, tensorKind, tensorIndex, dim, symbol;
  int64_t expectedMin, expectedMax, actual;
  int32_t variant, reserved;
};
static_assert(offsetof(AbiStatus, guard) == AbiLayout::kStatusGuard);
static_assert(offsetof(AbiStatus, tensorKind) == AbiLayout::kStatusTensorKind);
static_assert(offsetof(AbiStatus, tensorIndex) ==
              AbiLayout::kStatusTensorIndex);
static_assert(offsetof(AbiStatus, dim) == AbiLayout::kStatusDim);
static_assert(offsetof(AbiStatus, symbol) == AbiLayout::kStatusSymbol);
static_assert(offsetof(AbiStatus, expectedMin) ==
              AbiLayout::kStatusExpectedMin);
static_assert(offsetof(AbiStatus, expectedMax) ==
              AbiLayout::kStatusExpectedMax);
static_assert(offsetof(AbiStatus, actual) == AbiLayout::kStatusActual);
static_assert(offsetof(AbiStatus, variant) == AbiLayout::kStatusVariant);
static_assert(sizeof(AbiStatus) == AbiLayout::kStatusSize);

CallStatus toCallStatus(const AbiStatus &s) {
  CallStatus status;
  status.code = StatusCode(s.code);
  status.guard = s.guard;
  status.side = TensorSide(s.tensorKind);
  status.tensor = s.tensorIndex;
  status.dim = s.dim;
  status.symbol = s.symbol;
  status.expectedMin = s.expectedMin;
  status.expectedMax = s.expectedMax;
  status.actual = s.actual;
  status.variant = s.variant;
  return status;
}

/// A buffer with guard bytes on both sides, to catch compiled code that
/// writes outside the tensor it was given.
class GuardedBuffer {
public:
  static constexpr size_t kGuard = 64;
  static constexpr uint8_t kPattern = 0xA5;

  explicit GuardedBuffer(int64_t size)
      : bytes(size_t(size) + 2 * kGuard, kPattern), size(size_t(size)) {}

  uint8_t *data() { return bytes.data() + kGuard; }
  const uint8_t *data() const { return bytes.data() + kGuard; }
  bool guardsIntact() const {
    for (size_t i = 0; i < kGuard; ++i)
      if (bytes[i] != kPattern || bytes[kGuard + size + i] != kPattern)
        return false;
    return true;
  }

private:
  std::vector<uint8_t> bytes; ///< 16-byte aligned, so data() is too
  size_t size;
};

/// Functions the object may call (txc/Target/Imports.def), defined in the
/// process-symbols JITDylib so that they resolve even if the process would
/// not export them through dlsym (libm linked --as-needed, for instance).
/// Anything else falls back to a search of the process's libraries.
llvm::orc::SymbolMap libcAndLibmSymbols(llvm::orc::ExecutionSession &session,
                                        const llvm::DataLayout &layout) {
  llvm::orc::MangleAndInterner mangle(session, layout);
  llvm::orc::SymbolMap symbols;
  for (const TxcImportAddress *import = txcImportAddresses; import->name;
       ++import)
    symbols[mangle(import->name)] = {
        llvm::orc::ExecutorAddr::fromPtr(import->address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  return symbols;
}

} // namespace

llvm::Expected<std::unique_ptr<JitEngine>> JitEngine::create() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit)
    return jit.takeError();
  std::unique_ptr<JitEngine> engine(new JitEngine());
  engine->jit = std::move(*jit);
  llvm::orc::ExecutionSession &session = engine->jit->getExecutionSession();
  // Materialization errors (such as the names of unresolved symbols) are
  // reported here, not in the lookup's error: keep them for load's message.
  JitEngine *self = engine.get();
  session.setErrorReporter([self](llvm::Error err) {
    self->sideErrors += "; " + llvm::toString(std::move(err));
  });
  llvm::orc::JITDylibSP process = engine->jit->getProcessSymbolsJITDylib();
  if (!process)
    return llvm::createStringError("the JIT has no process-symbols library");
  if (llvm::Error err = process->define(llvm::orc::absoluteSymbols(
          libcAndLibmSymbols(session, engine->jit->getDataLayout()))))
    return err;
  return engine;
}

JitEngine::~JitEngine() = default;

llvm::Expected<std::unique_ptr<CompiledProgram>>
JitEngine::load(llvm::StringRef object, const Contract &contract,
                llvm::StringRef name) {
  auto dylib = jit->createJITDylib("txc-program-" + std::to_string(loaded++));
  if (!dylib)
    return dylib.takeError();
  std::unique_ptr<CompiledProgram> program(
      new CompiledProgram(*this, *dylib, contract));
  if (llvm::Error err = jit->addObjectFile(
          *dylib, llvm::MemoryBuffer::getMemBufferCopy(object, name)))
    return err;
  auto lookup = [&](const std::string &symbol) -> llvm::Expected<void *> {
    sideErrors.clear();
    auto address = jit->lookup(*dylib, symbol);
    if (!address)
      return llvm::createStringError(
          "cannot load '%s' in process: %s%s", name.str().c_str(),
          llvm::toString(address.takeError()).c_str(), sideErrors.c_str());
    return address->toPtr<void *>();
  };
  auto run = lookup(contract.runSymbol());
  if (!run)
    return run.takeError();
  auto shapes = lookup(contract.shapesSymbol());
  if (!shapes)
    return shapes.takeError();
  auto message = lookup(contract.messageSymbol());
  if (!message)
    return message.takeError();
  program->runFn = reinterpret_cast<CompiledProgram::EntryPoint>(*run);
  program->shapesFn = reinterpret_cast<CompiledProgram::EntryPoint>(*shapes);
  program->messageFn =
      reinterpret_cast<CompiledProgram::MessageFunction>(*message);
  return program;
}

CompiledProgram::~CompiledProgram() {
  llvm::consumeError(engine.jit->getExecutionSession().removeJITDylib(dylib));
}

std::string CompiledProgram::formatMessage(const void *status) const {
  int length = messageFn(status, nullptr, 0);
  if (length < 0)
    return "<error_message failed>";
  std::string text(size_t(length) + 1, '\0');
  messageFn(status, text.data(), text.size());
  text.resize(size_t(length));
  return text;
}

llvm::Expected<ExecutionResult>
CompiledProgram::run(llvm::ArrayRef<Tensor> inputs) const {
  std::vector<GuardedBuffer> inputBuffers;
  std::vector<AbiTensor> inputDescs(std::max<size_t>(1, inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor &input = inputs[i];
    inputBuffers.emplace_back(input.sizeBytes());
    std::memcpy(inputBuffers.back().data(), input.data(), input.sizeBytes());
    AbiTensor &desc = inputDescs[i];
    desc = AbiTensor{};
    desc.data = inputBuffers.back().data();
    desc.sizeBytes = input.sizeBytes();
    desc.dtype = int32_t(input.dtype());
    desc.rank = int32_t(input.rank());
    // Ranks above the ABI's limit cannot be described; the rank guard
    // reports the rank, the dims beyond the limit are never read.
    for (unsigned d = 0; d < input.rank() && d < AbiLayout::kMaxRank; ++d)
      desc.dims[d] = input.shape()[d];
  }
  size_t numOutputs = contract.outputs.size();
  std::vector<AbiTensor> outputDescs(std::max<size_t>(1, numOutputs));

  ExecutionResult result;
  AbiStatus status{};
  auto failed = [&](int32_t rc) {
    result.status = toCallStatus(status);
    result.status.code = StatusCode(rc);
    result.message = formatMessage(&status);
    return result;
  };
  int32_t rc = shapesFn(inputDescs.data(), int64_t(inputs.size()),
                        outputDescs.data(), int64_t(numOutputs), &status);
  if (rc != 0)
    return failed(rc);

  std::vector<Tensor> outputs;
  std::vector<GuardedBuffer> outputBuffers;
  for (size_t o = 0; o < numOutputs; ++o) {
    AbiTensor &desc = outputDescs[o];
    auto tensor = Tensor::create(
        DType(desc.dtype),
        llvm::ArrayRef<int64_t>(
            desc.dims, std::min<uint32_t>(desc.rank, AbiLayout::kMaxRank)));
    if (!tensor || desc.dtype != int32_t(contract.outputs[o].type.dtype))
      return llvm::createStringError(
          "the compiled <p>_output_shapes described output '%s' as dtype "
          "%d rank %d",
          contract.outputs[o].name.c_str(), desc.dtype, desc.rank);
    outputs.push_back(std::move(*tensor));
    outputBuffers.emplace_back(outputs.back().sizeBytes());
    desc.data = outputBuffers.back().data();
    desc.sizeBytes = outputs.back().sizeBytes();
  }
  status = AbiStatus{};
  rc = runFn(inputDescs.data(), int64_t(inputs.size()), outputDescs.data(),
             int64_t(numOutputs), &status);
  if (rc != 0)
    return failed(rc);

  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputBuffers[i].guardsIntact() ||
        std::memcmp(inputBuffers[i].data(), inputs[i].data(),
                    inputs[i].sizeBytes()) != 0)
      return llvm::createStringError(
          "the compiled code wrote into input '%s' or next to it",
          contract.inputs[i].name.c_str());
  for (size_t o = 0; o < numOutputs; ++o) {
    if (!outputBuffers[o].guardsIntact())
      return llvm::createStringError(
          "the compiled code wrote outside output '%s'",
          contract.outputs[o].name.c_str());
    if (outputDescs[o].rank != int32_t(outputs[o].rank()) ||
        !std::equal(outputs[o].shape().begin(), outputs[o].shape().end(),
                    outputDescs[o].dims))
      return llvm::createStringError(
          "<p>_run and <p>_output_shapes disagree on the shape of output "
          "'%s'",
          contract.outputs[o].name.c_str());
    std::memcpy(outputs[o].data(), outputBuffers[o].data(),
                outputs[o].sizeBytes());
  }
  result.outputs = std::move(outputs);
  // OK, and which code ran (status.variant).
  result.status = toCallStatus(status);
  return result;
}

CallStatus CompiledProgram::callWithDescriptors(
    llvm::ArrayRef<CallTensor> inputs, llvm::ArrayRef<CallTensor> outputs,
    bool shapesOnly, std::string &message,
    std::vector<std::vector<int64_t>> &outputShapes) const {
  auto describe = [](const CallTensor &tensor) {
    AbiTensor desc{};
    desc.data = reinterpret_cast<void *>(uintptr_t(tensor.data));
    desc.sizeBytes = tensor.sizeBytes;
    desc.dtype = tensor.dtype;
    desc.rank = int32_t(std::min<size_t>(tensor.dims.size(), INT32_MAX));
    for (size_t d = 0; d < tensor.dims.size() && d < AbiLayout::kMaxRank; ++d)
      desc.dims[d] = tensor.dims[d];
    return desc;
  };
  std::vector<AbiTensor> inputDescs(std::max<size_t>(1, inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i)
    inputDescs[i] = describe(inputs[i]);
  std::vector<AbiTensor> outputDescs(std::max<size_t>(1, outputs.size()));
  for (size_t o = 0; o < outputs.size(); ++o)
    outputDescs[o] = describe(outputs[o]);
  AbiStatus status{};
  EntryPoint entry = shapesOnly ? shapesFn : runFn;
  int32_t rc = entry(inputDescs.data(), int64_t(inputs.size()),
                     outputDescs.data(), int64_t(outputs.size()), &status);
  CallStatus result = toCallStatus(status);
  result.code = StatusCode(rc);
  message.clear();
  outputShapes.clear();
  if (rc != 0) {
    message = formatMessage(&status);
    return result;
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const AbiTensor &desc = outputDescs[o];
    outputShapes.emplace_back(
        desc.dims,
        desc.dims + std::clamp<int32_t>(desc.rank, 0, AbiLayout::kMaxRank));
  }
  return result;
}
