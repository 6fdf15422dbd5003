//===- HeaderEmitter.cpp - The generated C99 header -----------------------===//
#include "txc/Pipeline/Workspace.h"
#include "txc/Support/Diagnostics.h"
#include "txc/Support/Version.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Target/DispatchStats.h"
#include "txc/Target/CpuDispatch.h"
#include "txc/Target/ArtifactInfo.h"
#include "txc/Target/Weights.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace txc;

/// A file name in a comment: names are identifiers, but a file name is any
/// string and must neither put control characters into the header nor
/// close the comment.
static std::string commentText(llvm::StringRef fileName) {
  std::string text = escapeForTerminal(fileName);
  for (size_t at = text.find("*/"); at != std::string::npos;
       at = text.find("*/", at))
    text.insert(at + 1, " ");
  return text;
}

/// "#define TXC_E_DIM 5 /* meaning */".
static void emitStatusCodeMacro(llvm::raw_ostream &os,
                                const StatusCodeInfo &info) {
  os << "#define " << info.macro << ' ' << int(info.code) << " /* "
     << info.meaning << " */\n";
}

/// The macro of a code that only some objects return: defined outside the
/// shared block, by every header that needs it.
static void emitOptionalStatusCodeMacro(llvm::raw_ostream &os,
                                        StatusCode code) {
  const StatusCodeInfo &info = *findStatusCode(code);
  os << "#ifndef " << info.macro << '\n';
  emitStatusCodeMacro(os, info);
  os << "#endif\n";
}

/// The part shared by every txc header; guarded so that several generated
/// headers can be included in one translation unit.
static void emitCommonDefinitions(llvm::raw_ostream &os) {
  os << R"(#ifndef TXC_ABI_VERSION
#define TXC_ABI_VERSION )" << AbiLayout::kVersion << R"(

/* Largest rank a tensor descriptor holds. */
#define TXC_MAX_RANK 8

/* Element types: txc_tensor.dtype. */
)";
  for (DType type : kAllDTypes)
    os << "#define TXC_DTYPE_" << llvm::StringRef(dtypeName(type)).upper()
       << ' ' << int(type) << '\n';
  os << "\n/* Status codes returned by the entry points (docs/abi.md). */\n";
  for (const StatusCodeInfo &info : kStatusCodes)
    if (info.scope == StatusCodeScope::Guards)
      emitStatusCodeMacro(os, info);
  os << R"(
/* txc_status.tensor_kind */
#define TXC_TENSOR_NONE 0
#define TXC_TENSOR_INPUT 1
#define TXC_TENSOR_OUTPUT 2

/* A dense, row-major tensor. For inputs the caller fills every field. For
   outputs the caller fills data and size_bytes; a successful call writes
   dtype, rank and dims. */
typedef struct txc_tensor {
  void *data;          /* first element; never NULL */
  int64_t size_bytes;  /* bytes readable (inputs) or writable (outputs) */
  int32_t dtype;       /* TXC_DTYPE_* */
  int32_t rank;        /* number of valid entries in dims */
  int64_t dims[TXC_MAX_RANK];
} txc_tensor;

/* What a call reports; filled on every call when the pointer is not NULL. */
typedef struct txc_status {
  int32_t code;         /* TXC_OK or TXC_E_* */
  int32_t guard;        /* id of the failed guard (manifest "guards"), or -1 */
  int32_t tensor_kind;  /* TXC_TENSOR_* the guard is about */
  int32_t tensor_index; /* index among the inputs or the outputs, or -1 */
  int32_t dim;          /* dimension index, or -1 */
  int32_t symbol;       /* symbol index, or -1 */
  int64_t expected_min; /* expected value, or lower bound of a range */
  int64_t expected_max; /* upper bound of a range (== expected_min if none) */
  int64_t actual;       /* the value the call had */
  int32_t variant;      /* the code that ran: 0 the generic code, a variant's
                           id (<P>_VARIANT_*), -1 none (a guard failed) */
  int32_t reserved;     /* not written */
} txc_status;

/* Layout checks (C99 has no static_assert). */
typedef char txc_check_tensor_layout[(sizeof(txc_tensor) == )"
     << AbiLayout::kTensorSize << R"() ? 1 : -1];
typedef char txc_check_status_layout[(sizeof(txc_status) == )"
     << AbiLayout::kStatusSize << R"() ? 1 : -1];

#elif TXC_ABI_VERSION != )" << AbiLayout::kVersion << R"(
#error "headers of different txc ABI versions are included together"
#endif /* TXC_ABI_VERSION */

)";
}

/// txc_run_options and the parallel-for hook (docs/abi.md, Threads):
/// outside the block of TXC_ABI_VERSION, so that a header of an older txc
/// (of the same ABI version, without them) included first does not hide
/// them.
static void emitRunOptionsDefinitions(llvm::raw_ostream &os) {
  os << R"(#ifndef TXC_RUN_OPTIONS_DEFINED
#define TXC_RUN_OPTIONS_DEFINED
/* One iteration of a kernel's parallel loop: task(arg, i), 0 <= i < n. */
typedef void (*txc_task_fn)(void *arg, int64_t i);
/* The caller's parallel for: runs task(arg, i) once for every i in
   [0, n), on any threads, in any order, and returns when all have
   finished. The calling thread may run tasks too (txc_pthreads.h). */
typedef void (*txc_parallel_for_fn)(void *ctx, int64_t n, txc_task_fn task,
                                    void *arg);
/* The options of <p>_run_with_options. Zero-initialize it and set
   struct_size = sizeof(txc_run_options): a field that ends past
   struct_size reads as zero (NULL), so that the struct can grow. */
typedef struct txc_run_options {
  uint32_t struct_size;  /* sizeof(txc_run_options) */
  int32_t num_threads;   /* threads parallel_for uses; <= 1: serial */
  void *workspace;       /* NULL: allocated per call */
  size_t workspace_bytes;
  const void *weights;   /* external weights only: the blob */
  size_t weights_size;
  txc_parallel_for_fn parallel_for; /* NULL: serial */
  void *parallel_ctx;    /* passed to parallel_for */
  void *dispatch_stats;  /* NULL, or the program's <p>_dispatch_stats */
  int32_t cpu_level;     /* objects for several CPUs: 0 the most capable
                            this machine runs, k at most the k-th listed */
} txc_run_options;
typedef char txc_check_run_options_layout[
    (sizeof(txc_run_options) == )"
     << RunOptionsLayout::kSize << R"() ? 1 : -1];
#endif /* TXC_RUN_OPTIONS_DEFINED */

)";
}

std::string txc::emitRuntimeHeader() {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << R"(/* txc_runtime.h: the definitions every header txc generates shares
   (docs/abi.md): txc_tensor, txc_status, the dtype and status codes. For
   code that handles tensors of any compiled program; a program's own
   header defines the same (guarded by TXC_ABI_VERSION), so both can be
   included. Written by txc's HeaderEmitter (emitRuntimeHeader). */
#ifndef TXC_RUNTIME_H
#define TXC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

)";
  emitCommonDefinitions(os);
  emitRunOptionsDefinitions(os);
  os << "#endif /* TXC_RUNTIME_H */\n";
  return text;
}

/// <p>_run_with_options.
static void emitRunWithOptionsDeclaration(llvm::raw_ostream &os,
                                          const Contract &contract) {
  os << R"(
/* As the run entry points, with the workspace, the weights and the
   caller's parallel_for in *options (NULL: as )"
     << contract.runSymbol() << R"(). The result is
   bitwise identical for every thread count. */
int32_t )" << runWithOptionsSymbol(contract)
     << R"((const txc_tensor *inputs, int64_t num_inputs,
    txc_tensor *outputs, int64_t num_outputs, txc_status *status,
    const txc_run_options *options);
)";
}

/// The workspace macros and the run entry point that takes a workspace.
static void emitWorkspace(llvm::raw_ostream &os, const Contract &contract,
                          const ArtifactInfo &info, llvm::StringRef macro) {
  bool external =
      info.weights && info.weights->mode == WeightsMode::External;
  std::string run =
      external ? runWithWeightsSymbol(contract) : contract.runSymbol();
  os << R"(
/* Workspace (docs/abi.md): scratch memory for the large temporaries.
   )" << run << R"( allocates it on every call;
   )" << runWithWorkspaceSymbol(contract, external)
     << R"( takes the caller's: at least the bytes
   )" << workspaceSizeSymbol(contract)
     << R"( gives for the inputs' shapes (which
   are )" << macro << R"(_WORKSPACE_BYTES when )" << macro
     << R"(_WORKSPACE_DYNAMIC is 0), aligned to
   )" << macro << R"(_WORKSPACE_ALIGN, used by one call at a time
   and overlapping no tensor. When the program needs none (0 bytes), any
   pointer, NULL included, is accepted. */
)";
  emitOptionalStatusCodeMacro(os, StatusCode::Workspace);
  os << "#define " << macro << "_WORKSPACE_BYTES UINT64_C("
     << info.workspaceBytes << ") /* the static part */\n"
     << "#define " << macro << "_WORKSPACE_DYNAMIC "
     << (info.workspaceDynamic ? 1 : 0)
     << " /* 1: more bytes, depending on the shapes */\n"
     << "#define " << macro << "_WORKSPACE_ALIGN " << kWorkspaceAlignment
     << R"(

/* Evaluates the guards of )" << contract.shapesSymbol()
     << R"( and on success writes to *bytes
   (if not NULL) the workspace size these inputs need; fails like
   )" << contract.shapesSymbol() << R"(. */
int32_t )" << workspaceSizeSymbol(contract)
     << R"((const txc_tensor *inputs, int64_t num_inputs,
    size_t *bytes, txc_status *status);

/* As )" << run
     << R"(, in the given workspace: returns TXC_E_WORKSPACE if it is
   NULL or misaligned (before the guards) or smaller than the inputs need
   )" << (contract.variants.empty()
               ? "(before the guards when " + macro +
                     "_WORKSPACE_DYNAMIC is 0, else after them)"
               : std::string("(after the guards: the size is the variant's)"))
     << R"(. */
int32_t )"
     << runWithWorkspaceSymbol(contract, external) << "(";
  if (external)
    os << "const void *weights, size_t weights_size,\n    ";
  os << R"(const txc_tensor *inputs, int64_t num_inputs,
    txc_tensor *outputs, int64_t num_outputs, txc_status *status,
    void *workspace, size_t workspace_bytes);
)";
}

/// The CPUs of an object compiled for several (docs/cli.md, "Several CPUs
/// in one object") and `<p>_cpu_level`, which says which one runs.
static void emitCPULevels(llvm::raw_ostream &os, const Contract &contract,
                          llvm::StringRef macro,
                          llvm::ArrayRef<std::string> cpus) {
  os << "/* CPUs: the kernels are compiled for each, the first the baseline; "
        "a call\n   runs the most capable one this machine has, at most the "
        "k-th with\n   txc_run_options.cpu_level = k. */\n";
  for (auto [index, cpu] : llvm::enumerate(cpus)) {
    std::string name = llvm::StringRef(cpu).upper();
    std::replace(name.begin(), name.end(), '-', '_');
    os << "#define " << macro << "_CPU_" << name << ' ' << index + 1 << '\n';
  }
  os << "#define " << macro << "_NUM_CPUS " << cpus.size() << "\n"
     << "/* The CPU (1-based, as listed) a call with txc_run_options.cpu_level "
        "=\n   `requested` runs on this machine. */\n"
     << "int32_t " << cpuLevelSymbol(contract) << "(int32_t requested);\n\n";
}


std::string txc::emitCHeader(const Contract &contract,
                             const ArtifactInfo &info) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string prefix = contract.entryPrefix;
  std::string macro = llvm::StringRef(prefix).upper();
  std::string guard = "TXC_GENERATED_" + macro + "_H";
  std::vector<std::string> names = contract.symbolNames();

  os << "/* Generated by txc " << txcVersion() << " from "
     << commentText(info.programFile) << " (program '" << contract.programName
     << "'). Do not edit.\n"
     << "   Target: " << info.target.triple
     << (info.target.moreCPUs.empty() ? ", CPU " + info.target.cpu
                                      : ", CPUs " +
                                            llvm::join(info.target.cpus(), ","))
     << ". The contract is in the manifest; see docs/abi.md. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stddef.h>\n#include <stdint.h>\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  emitCommonDefinitions(os);
  emitRunOptionsDefinitions(os);

  os << "/* ---- program '" << contract.programName << "' ---- */\n\n";
  os << "#define " << macro << "_NUM_INPUTS " << contract.inputs.size() << '\n'
     << "#define " << macro << "_NUM_OUTPUTS " << contract.outputs.size()
     << '\n'
     << "#define " << macro << "_NUM_GUARDS " << contract.guards.size()
     << "\n\n";
  if (!contract.symbols.empty()) {
    os << "/* Symbols: the range each symbolic dimension may take. */\n";
    for (const ContractSymbol &symbol : contract.symbols) {
      std::string base = macro + "_SYMBOL_" + symbol.name;
      os << "#define " << base << "_MIN INT64_C(" << symbol.min << ")\n"
         << "#define " << base << "_MAX INT64_C(" << symbol.max << ")\n"
         << "#define " << base << "_MULTIPLE_OF INT64_C(" << symbol.multipleOf
         << ")\n";
    }
    os << '\n';
  }
  if (!contract.variants.empty()) {
    os << "/* Variants (docs/specialization.md): the code compiled for bound "
          "symbols;\n   0 is the generic code, -1 none (a guard failed). "
          "*/\n"
       << "#define " << macro << "_VARIANT_GENERIC 0\n";
    for (const ContractVariant &variant : contract.variants)
      os << "#define " << macro << "_VARIANT_" << variant.name(contract) << ' '
         << variant.id << " /* " << variant.text(contract) << " */\n";
    os << "#define " << macro << "_NUM_VARIANTS " << contract.variants.size()
       << "\n\n";
    emitDispatchStatsHeader(os, contract, macro);
  }
  if (!info.target.moreCPUs.empty())
    emitCPULevels(os, contract, macro, info.target.cpus());
  auto emitTensor = [&](llvm::StringRef side, size_t index,
                        const ContractTensor &tensor, int64_t maxBytes) {
    std::string base = macro + "_" + side.str() + "_" + tensor.name;
    os << "/* " << llvm::StringRef(side).lower() << " '" << tensor.name
       << "': " << dtypeName(tensor.type.dtype)
       << shapeToString(tensor.type.shape, names) << " */\n"
       << "#define " << base << " " << index << '\n'
       << "#define " << base << "_DTYPE TXC_DTYPE_"
       << llvm::StringRef(dtypeName(tensor.type.dtype)).upper() << '\n'
       << "#define " << base << "_RANK " << tensor.type.rank() << '\n';
    if (maxBytes >= 0)
      os << "#define " << base << "_MAX_BYTES INT64_C(" << maxBytes
         << ") /* at the symbols' maximum values */\n";
  };
  for (size_t i = 0; i < contract.inputs.size(); ++i)
    emitTensor("INPUT", i, contract.inputs[i], -1);
  for (size_t o = 0; o < contract.outputs.size(); ++o)
    emitTensor("OUTPUT", o, contract.outputs[o], contract.maxOutputBytes(o));

  const WeightsPlan *weights = info.weights;
  if (weights && weights->mode == WeightsMode::External) {
    std::string fingerprint;
    llvm::raw_string_ostream hex(fingerprint);
    hex << llvm::format_hex(weights->fingerprint, 18);
    os << R"(
/* External weights (docs/abi.md): the blob file )"
       << commentText(info.weightsFile) << R"( holds the weights; pass
   its bytes to )"
       << runWithWeightsSymbol(contract) << R"(. */
)";
    emitOptionalStatusCodeMacro(os, StatusCode::Weights);
    os << "#define " << macro << "_WEIGHTS_BYTES UINT64_C("
       << weights->blobFileBytes << ")\n"
       << "#define " << macro << "_WEIGHTS_ALIGNMENT "
       << WeightsBlobLayout::kAlignment << "\n"
       << "#define " << macro << "_WEIGHTS_FINGERPRINT UINT64_C(" << fingerprint
       << ")\n";
    os << R"(
/* Checks the weights blob (non-NULL, aligned to )"
       << macro << R"(_WEIGHTS_ALIGNMENT bytes,
   weights_size == )"
       << macro << R"(_WEIGHTS_BYTES, and its header: magic, version, size
   and fingerprint), then every guard, then computes the outputs into the
   caller's buffers. A blob that does not match returns TXC_E_WEIGHTS.
   Otherwise as the run function of embedded weights: TXC_OK, or the code
   of the first failed guard without touching any tensor memory. status may
   be NULL. The blob is only read. */
int32_t )"
       << runWithWeightsSymbol(contract)
       << R"((const void *weights, size_t weights_size,
    const txc_tensor *inputs, int64_t num_inputs,
    txc_tensor *outputs, int64_t num_outputs, txc_status *status);
)";
  } else {
    os << R"(
/* Checks every guard, then computes the outputs into the caller's buffers.
   Returns TXC_OK, or the code of the first failed guard without touching
   any tensor memory. Only TXC_E_INDEX_OUT_OF_RANGE (an index read by
   gather/embedding outside its dimension) is found while computing; the
   outputs are then unspecified, as on any non-zero status. status may be
   NULL. Reentrant; no allocation other than temporaries, no I/O. */
int32_t )" << contract.runSymbol()
     << R"((const txc_tensor *inputs, int64_t num_inputs,
    txc_tensor *outputs, int64_t num_outputs, txc_status *status);
)";
  }
  emitWorkspace(os, contract, info, macro);
  emitRunWithOptionsDeclaration(os, contract);
  os << R"(
/* Checks the input guards and writes each output's dtype, rank and dims
   (outputs[i].data and size_bytes are not used). */
int32_t )"
     << contract.shapesSymbol()
     << R"((const txc_tensor *inputs, int64_t num_inputs,
    txc_tensor *outputs, int64_t num_outputs, txc_status *status);

/* Writes a message naming the failed guard, the tensor, the dimension, the
   expected value or range and the actual value, like snprintf: returns the
   length of the full message. */
int32_t )"
     << contract.messageSymbol()
     << R"((const txc_status *status, char *buffer, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* )"
     << guard << " */\n";
  return text;
}
