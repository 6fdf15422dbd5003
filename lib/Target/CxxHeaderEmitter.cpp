//===- CxxHeaderEmitter.cpp - The generated C++17 header ------------------===//
//
// `txc compile --header-cxx`: a C++17 header that wraps the C entry points
// of one program (docs/abi.md, "C++ API"). It holds the C header itself,
// then the C++ definitions every such header shares (namespace txc:
// Shape, TensorView, Status, Result, Workspace; guarded by
// TXC_CXX_API_VERSION, and installed alone as txc_runtime.hpp), then the
// program's namespace: Inputs, Outputs, OutputShapes and Program, whose
// object owns the workspace. No exceptions unless TXC_CXX_EXCEPTIONS is
// defined (then Result::value_or_throw and txc::Error).
//
//===----------------------------------------------------------------------===//
#include "txc/Pipeline/Workspace.h"
#include "txc/Support/Version.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Target/ArtifactInfo.h"
#include "txc/Target/Weights.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace txc;

/// The C++ part every generated header shares.
static const char kCxxRuntime[] = R"(#ifndef TXC_CXX_API_VERSION
#define TXC_CXX_API_VERSION 1

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#ifdef TXC_CXX_EXCEPTIONS
#include <stdexcept>
#endif

namespace txc {

/* The 16-bit float types, as their bits. */
struct f16 { std::uint16_t bits; };
struct bf16 { std::uint16_t bits; };

/* The dtype code of an element type. */
template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr std::int32_t value = TXC_DTYPE_F32; };
template <> struct dtype_of<double> { static constexpr std::int32_t value = TXC_DTYPE_F64; };
template <> struct dtype_of<f16> { static constexpr std::int32_t value = TXC_DTYPE_F16; };
template <> struct dtype_of<bf16> { static constexpr std::int32_t value = TXC_DTYPE_BF16; };
template <> struct dtype_of<std::int8_t> { static constexpr std::int32_t value = TXC_DTYPE_I8; };
template <> struct dtype_of<std::int16_t> { static constexpr std::int32_t value = TXC_DTYPE_I16; };
template <> struct dtype_of<std::int32_t> { static constexpr std::int32_t value = TXC_DTYPE_I32; };
template <> struct dtype_of<std::int64_t> { static constexpr std::int32_t value = TXC_DTYPE_I64; };
template <> struct dtype_of<std::uint8_t> { static constexpr std::int32_t value = TXC_DTYPE_U8; };
template <> struct dtype_of<std::uint16_t> { static constexpr std::int32_t value = TXC_DTYPE_U16; };
template <> struct dtype_of<std::uint32_t> { static constexpr std::int32_t value = TXC_DTYPE_U32; };
template <> struct dtype_of<std::uint64_t> { static constexpr std::int32_t value = TXC_DTYPE_U64; };
template <> struct dtype_of<bool> { static constexpr std::int32_t value = TXC_DTYPE_BOOL; };
static_assert(sizeof(bool) == 1, "txc's bool elements are one byte");

/* A tensor's dimensions, outermost first. */
class Shape {
public:
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims) {
    for (std::int64_t dim : dims)
      if (rank_ < TXC_MAX_RANK)
        dims_[rank_++] = dim;
  }
  Shape(const std::int64_t *dims, std::int32_t rank) {
    for (std::int32_t d = 0; d < rank && d < TXC_MAX_RANK; ++d)
      dims_[rank_++] = dims[d];
  }
  std::int32_t rank() const { return rank_; }
  std::int64_t operator[](std::int32_t d) const { return dims_[d]; }
  const std::int64_t *begin() const { return dims_; }
  const std::int64_t *end() const { return dims_ + rank_; }
  /* The number of elements (1 for rank 0). */
  std::int64_t elements() const {
    std::int64_t n = 1;
    for (std::int64_t dim : *this)
      n *= dim;
    return n;
  }
  friend bool operator==(const Shape &a, const Shape &b) {
    if (a.rank_ != b.rank_)
      return false;
    for (std::int32_t d = 0; d < a.rank_; ++d)
      if (a.dims_[d] != b.dims_[d])
        return false;
    return true;
  }
  friend bool operator!=(const Shape &a, const Shape &b) { return !(a == b); }

private:
  std::int32_t rank_ = 0;
  std::int64_t dims_[TXC_MAX_RANK] = {};
};

/* A typed view of a caller's buffer: `size` elements at `data`, and the
   tensor's shape (an output's is written by the call). T is const for
   inputs. The buffer must outlive the calls that use the view. */
template <class T> class TensorView {
public:
  using element_type = T;
  using value_type = typename std::remove_cv<T>::type;

  TensorView() = default;
  TensorView(T *data, std::size_t size, Shape shape = Shape())
      : data_(data), size_(size), shape_(shape) {}
  /* A contiguous container: std::vector, std::array, ... */
  template <class Container,
            class = decltype(std::declval<Container &>().data()),
            class = typename std::enable_if<!std::is_same<
                typename std::decay<Container>::type, TensorView>::value>::type>
  TensorView(Container &container, Shape shape = Shape())
      : data_(container.data()), size_(container.size()), shape_(shape) {}

  T *data() const { return data_; }
  std::size_t size() const { return size_; }
  const Shape &shape() const { return shape_; }
  void set_shape(const Shape &shape) { shape_ = shape; }
  T &operator[](std::size_t i) const { return data_[i]; }
  T *begin() const { return data_; }
  /* The end of the tensor's elements (of its shape, not of the buffer). */
  T *end() const { return data_ + shape_.elements(); }

  /* The C descriptor of the view. */
  txc_tensor descriptor() const {
    txc_tensor t = {};
    t.data = const_cast<value_type *>(data_);
    t.size_bytes = static_cast<std::int64_t>(size_ * sizeof(T));
    t.dtype = dtype_of<value_type>::value;
    t.rank = shape_.rank();
    for (std::int32_t d = 0; d < shape_.rank(); ++d)
      t.dims[d] = shape_[d];
    return t;
  }

private:
  T *data_ = nullptr;
  std::size_t size_ = 0;
  Shape shape_;
};

/* What a call reports: TXC_OK, or the failed guard's status and message. */
class Status {
public:
  Status() { status_.code = TXC_OK; status_.guard = -1; status_.variant = 0; }
  Status(const txc_status &status, std::string message)
      : status_(status), message_(std::move(message)) {}

  bool ok() const { return status_.code == TXC_OK; }
  explicit operator bool() const { return ok(); }
  std::int32_t code() const { return status_.code; }
  /* The failed guard's id (the manifest's "guards"), or -1. */
  std::int32_t guard() const { return status_.guard; }
  /* The code that ran: 0 the generic code, a variant's id
     (<P>_VARIANT_*), -1 none (docs/specialization.md). */
  std::int32_t variant() const { return status_.variant; }
  /* The message of <p>_error_message: "" when ok. */
  const std::string &message() const { return message_; }
  const txc_status &raw() const { return status_; }

private:
  txc_status status_ = {};
  std::string message_;
};

#ifdef TXC_CXX_EXCEPTIONS
/* Thrown by Result::value_or_throw and throw_if_error. */
class Error : public std::runtime_error {
public:
  explicit Error(Status status)
      : std::runtime_error(status.message()), status_(std::move(status)) {}
  const Status &status() const { return status_; }

private:
  Status status_;
};
inline void throw_if_error(const Status &status) {
  if (!status.ok())
    throw Error(status);
}
#endif

/* A value, or the Status of the call that could not make it. */
template <class T> class Result {
public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status status) : status_(std::move(status)) {}

  bool ok() const { return status_.ok(); }
  explicit operator bool() const { return ok(); }
  const Status &status() const { return status_; }
  /* Only when ok(). */
  const T &value() const { return value_; }
  T &value() { return value_; }
  const T &operator*() const { return value_; }
  const T *operator->() const { return &value_; }
#ifdef TXC_CXX_EXCEPTIONS
  const T &value_or_throw() const {
    throw_if_error(status_);
    return value_;
  }
#endif

private:
  Status status_;
  T value_{};
};

/* Scratch memory of `bytes` bytes aligned to 64 (<P>_WORKSPACE_ALIGN),
   owned; a Program's calls compute in it. Null when bytes is 0 or the allocation
   failed (the call then returns TXC_E_WORKSPACE). */
class Workspace {
public:
  static constexpr std::size_t alignment = 64;

  explicit Workspace(std::size_t bytes = 0) : bytes_(bytes) {
    if (bytes)
      data_ = ::operator new(bytes, std::align_val_t(alignment),
                             std::nothrow);
  }
  Workspace(Workspace &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        bytes_(std::exchange(other.bytes_, 0)) {}
  Workspace &operator=(Workspace &&other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;
  ~Workspace() {
    if (data_)
      ::operator delete(data_, std::align_val_t(alignment));
  }
  void *data() const { return data_; }
  std::size_t size() const { return data_ ? bytes_ : 0; }

private:
  void *data_ = nullptr;
  std::size_t bytes_ = 0;
};

/* The message <p>_error_message writes for `status`. */
template <class MessageFunction>
std::string error_message(MessageFunction message, const txc_status &status) {
  std::int32_t length = message(&status, nullptr, 0);
  if (length <= 0)
    return std::string();
  std::string text(static_cast<std::size_t>(length) + 1, '\0');
  message(&status, &text[0], text.size());
  text.resize(static_cast<std::size_t>(length));
  return text;
}

} // namespace txc

#endif /* TXC_CXX_API_VERSION */
)";

/// C++ keywords and the names a namespace must not take: what the program
/// calls a tensor or itself gets a '_' appended to become a C++ name.
static bool isReservedCxxName(llvm::StringRef name) {
  static const llvm::StringSet<> reserved = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand",
      "bitor", "bool", "break", "case", "catch", "char", "char8_t",
      "char16_t", "char32_t", "class", "compl", "concept", "const",
      "consteval", "constexpr", "constinit", "const_cast", "continue",
      "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export",
      "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "noexcept", "not",
      "not_eq", "nullptr", "operator", "or", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "requires",
      "return", "short", "signed", "sizeof", "static", "static_assert",
      "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union",
      "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
      "while", "xor", "xor_eq", "std", "txc"};
  return reserved.contains(name);
}

/// C++ names for `names` (tensor names of one struct, or the program's):
/// a reserved name gets '_' appended, and again while that is taken.
static std::vector<std::string>
cxxNames(const std::vector<std::string> &names) {
  llvm::StringSet<> taken;
  for (const std::string &name : names)
    taken.insert(name);
  std::vector<std::string> result;
  for (const std::string &name : names) {
    std::string cxx = name;
    if (isReservedCxxName(cxx))
      do
        cxx += '_';
      while (taken.contains(cxx));
    taken.insert(cxx);
    result.push_back(cxx);
  }
  return result;
}

static std::vector<std::string>
tensorNames(const std::vector<ContractTensor> &tensors) {
  std::vector<std::string> names;
  for (const ContractTensor &tensor : tensors)
    names.push_back(tensor.name);
  return cxxNames(names);
}

/// The element type of a dtype in the C++ API.
static const char *cxxElementType(DType dtype) {
  switch (dtype) {
  case DType::F32: return "float";
  case DType::F64: return "double";
  case DType::F16: return "txc::f16";
  case DType::BF16: return "txc::bf16";
  case DType::I8: return "std::int8_t";
  case DType::I16: return "std::int16_t";
  case DType::I32: return "std::int32_t";
  case DType::I64: return "std::int64_t";
  case DType::U8: return "std::uint8_t";
  case DType::U16: return "std::uint16_t";
  case DType::U32: return "std::uint32_t";
  case DType::U64: return "std::uint64_t";
  case DType::Bool: return "bool";
  }
  return "void";
}

/// `struct Inputs { txc::TensorView<const float> X; ... };` and Outputs.
static void emitViews(llvm::raw_ostream &os, llvm::StringRef structName,
                      const std::vector<ContractTensor> &tensors,
                      llvm::StringRef constness, llvm::StringRef what) {
  std::vector<std::string> names = tensorNames(tensors);
  os << "/* " << what << ", in the order of the program. */\n"
     << "struct " << structName << " {\n";
  for (size_t i = 0; i < tensors.size(); ++i)
    os << "  txc::TensorView<" << constness
       << cxxElementType(tensors[i].type.dtype) << "> " << names[i] << ";\n";
  os << "};\n\n";
}

/// OutputShapes and the largest size of each output.
static void emitOutputShapes(llvm::raw_ostream &os, const Contract &contract,
                             llvm::StringRef macro) {
  std::vector<std::string> names = tensorNames(contract.outputs);
  os << "/* The outputs' shapes for some inputs (Program::output_shapes). */\n"
     << "struct OutputShapes {\n";
  for (const std::string &name : names)
    os << "  txc::Shape " << name << ";\n";
  os << "};\n\n/* Each output's largest size in elements, at the symbols' "
        "maximum values:\n   a buffer this large always fits. */\n"
     << "namespace max_elements {\n";
  for (size_t o = 0; o < names.size(); ++o)
    os << "constexpr std::size_t " << names[o] << " = " << macro
       << "_OUTPUT_" << contract.outputs[o].name << "_MAX_BYTES / sizeof("
       << cxxElementType(contract.outputs[o].type.dtype) << ");\n";
  os << "} // namespace max_elements\n\n";
}

/// `txc_tensor name[] = {views.X.descriptor(), ...};` (one element at least).
static void emitDescriptors(llvm::raw_ostream &os, llvm::StringRef array,
                            llvm::StringRef views,
                            const std::vector<ContractTensor> &tensors) {
  std::vector<std::string> names = tensorNames(tensors);
  os << "    txc_tensor " << array << "[" << std::max<size_t>(1, names.size())
     << "] = {";
  for (size_t i = 0; i < names.size(); ++i)
    os << (i ? ", " : "") << views << "." << names[i] << ".descriptor()";
  os << "};\n";
}

/// Program::run: the run entry point that takes the owned workspace. When
/// its size depends on the shapes (`dynamicWorkspace`), run asks
/// <p>_workspace_size first and grows the workspace when these inputs need
/// more: a few compares per call, an allocation only when shapes grow.
static void emitRun(llvm::raw_ostream &os, const Contract &contract,
                    bool external, bool dynamicWorkspace) {
  std::vector<std::string> names = tensorNames(contract.outputs);
  os << R"(  /* Checks every guard, then computes the outputs into their views'
     buffers and sets their shapes. One call at a time per Program. */
  txc::Status run(const Inputs &inputs, Outputs &outputs) {
)";
  emitDescriptors(os, "in", "inputs", contract.inputs);
  emitDescriptors(os, "out", "outputs", contract.outputs);
  os << "    txc_status status = {};\n";
  if (dynamicWorkspace)
    os << "    std::size_t bytes = 0;\n    if ("
       << workspaceSizeSymbol(contract)
       << "(in, num_inputs, &bytes, &status) != TXC_OK)\n"
       << "      return failure(status);\n"
       << "    if (bytes > workspace_.size())\n"
       << "      workspace_ = txc::Workspace(bytes);\n";
  os << "    std::int32_t rc = "
     << runWithWorkspaceSymbol(contract, external) << "(";
  if (external)
    os << "weights_, weights_size_, ";
  os << "in, num_inputs, out, num_outputs, &status, workspace_.data(), "
        "workspace_.size());\n"
     << "    if (rc != TXC_OK)\n      return failure(status);\n";
  for (size_t o = 0; o < names.size(); ++o)
    os << "    outputs." << names[o] << ".set_shape(txc::Shape(out[" << o
       << "].dims, out[" << o << "].rank));\n";
  os << "    return txc::Status();\n  }\n\n";
}

/// Program::output_shapes.
static void emitShapes(llvm::raw_ostream &os, const Contract &contract) {
  std::vector<std::string> names = tensorNames(contract.outputs);
  os << R"(  /* The outputs' shapes for these inputs (their buffers are not used),
     or the status of a failed input guard. */
  txc::Result<OutputShapes> output_shapes(const Inputs &inputs) const {
)";
  emitDescriptors(os, "in", "inputs", contract.inputs);
  os << "    txc_tensor out[" << std::max<size_t>(1, names.size())
     << "] = {};\n    txc_status status = {};\n    std::int32_t rc = "
     << contract.shapesSymbol()
     << "(in, num_inputs, out, num_outputs, &status);\n"
     << "    if (rc != TXC_OK)\n      return failure(status);\n"
     << "    OutputShapes shapes;\n";
  for (size_t o = 0; o < names.size(); ++o)
    os << "    shapes." << names[o] << " = txc::Shape(out[" << o
       << "].dims, out[" << o << "].rank);\n";
  os << "    return shapes;\n  }\n\n";
}

/// The class: constructor (the workspace; the weights blob), run,
/// output_shapes.
static void emitProgramClass(llvm::raw_ostream &os, const Contract &contract,
                             llvm::StringRef macro, bool external,
                             bool dynamicWorkspace) {
  os << R"(/* The compiled program. It owns its workspace ()" << macro
     << R"(_WORKSPACE_BYTES, allocated
   once by the constructor)"
     << (dynamicWorkspace ? ", grown by run when the inputs' shapes need more"
                          : "")
     << R"(); use one Program per thread. */
class Program {
public:
  static constexpr std::int64_t num_inputs = )"
     << macro << "_NUM_INPUTS;\n  static constexpr std::int64_t num_outputs = "
     << macro << "_NUM_OUTPUTS;\n\n";
  if (external)
    os << "  /* The weights blob (" << macro << "_WEIGHTS_BYTES bytes aligned "
       << "to " << macro << "_WEIGHTS_ALIGNMENT),\n     read by every call; "
       << "it must outlive the Program. */\n"
       << "  Program(const void *weights, std::size_t weights_size)\n"
       << "      : weights_(weights), weights_size_(weights_size),\n"
       << "        workspace_(" << macro << "_WORKSPACE_BYTES) {}\n\n";
  else
    os << "  Program() : workspace_(" << macro << "_WORKSPACE_BYTES) {}\n\n";
  emitRun(os, contract, external, dynamicWorkspace);
  emitShapes(os, contract);
  os << "private:\n  static txc::Status failure(const txc_status &status) {\n"
     << "    return txc::Status(status, txc::error_message("
     << contract.messageSymbol() << ", status));\n  }\n\n";
  if (external)
    os << "  const void *weights_;\n  std::size_t weights_size_;\n";
  os << "  txc::Workspace workspace_;\n};\n";
}

std::string txc::emitCxxRuntimeHeader() {
  // txc::Workspace's alignment is written as text below.
  static_assert(kWorkspaceAlignment == 64, "update txc::Workspace::alignment");
  return std::string(R"(/* txc_runtime.hpp: the C++ definitions every C++ header txc generates
   shares (docs/abi.md, "C++ API"): txc::Shape, txc::TensorView,
   txc::Status, txc::Result, txc::Workspace. A program's own header defines
   the same (guarded by TXC_CXX_API_VERSION), so both can be included.
   Written by txc's CxxHeaderEmitter (emitCxxRuntimeHeader). */
#ifndef TXC_RUNTIME_HPP
#define TXC_RUNTIME_HPP

#include "txc_runtime.h"

)") + kCxxRuntime + "\n#endif /* TXC_RUNTIME_HPP */\n";
}

std::string txc::emitCxxHeader(const Contract &contract,
                               const ArtifactInfo &info,
                               llvm::StringRef cHeader) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string macro = llvm::StringRef(contract.entryPrefix).upper();
  std::string guard = "TXC_GENERATED_" + macro + "_HPP";
  bool external = info.weights && info.weights->mode == WeightsMode::External;
  std::string ns = cxxNames({contract.entryPrefix}).front();
  os << "/* Generated by txc " << txcVersion() << ": the C++17 API of program '"
     << contract.programName << "' (docs/abi.md, \"C++ API\"), then its C "
     << "header. Do not edit. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << cHeader << "\n"
     << kCxxRuntime << "\n"
     << "/* ---- program '" << contract.programName << "' ---- */\n\n"
     << "namespace " << ns << " {\n\n";
  emitViews(os, "Inputs", contract.inputs, "const ",
            "The inputs' views (shapes set by the caller)");
  emitViews(os, "Outputs", contract.outputs, "",
            "The outputs' views (shapes set by the call)");
  emitOutputShapes(os, contract, macro);
  emitProgramClass(os, contract, macro, external, info.workspaceDynamic);
  os << "\n} // namespace " << ns << "\n\n#endif /* " << guard << " */\n";
  return text;
}
