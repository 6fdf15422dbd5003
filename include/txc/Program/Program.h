//===- Program.h - The in-memory tensor program (no MLIR) -------*- C++ -*-===//
//
// The program model that every stage works on: the JSON reader produces it,
// the verifier checks and annotates it, MLIRGen lowers it and the reference
// interpreter runs it. It knows nothing of MLIR or JSON, so tests and tools
// can also build programs directly.
//
// Values are referred to by name. A node's results are named `node` (result
// 0) and `node:1`, `node:2`, ... . Names are unique in the whole program,
// including nested graphs; a nested graph may use values defined before its
// node in enclosing graphs.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_PROGRAM_PROGRAM_H
#define TXC_PROGRAM_PROGRAM_H

#include "txc/Program/DType.h"
#include "txc/Program/OpRegistry.h"
#include "txc/Program/ShapeExpr.h"
#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace txc {

/// Limits enforced on every program (docs/program-format.md, "Limits").
struct ProgramLimits {
  static constexpr uint64_t kMaxFileBytes = 64ull << 20;
  static constexpr unsigned kMaxJsonDepth = 64;
  static constexpr unsigned kMaxRank = 8;
  static constexpr unsigned kMaxNodes = 100000;
  static constexpr unsigned kMaxSymbols = 64;
  /// Values a symbol may declare (`"values"`): the guard compares a call's
  /// value with each.
  static constexpr unsigned kMaxSymbolValues = 64;
  static constexpr unsigned kMaxInputs = 1024;
  static constexpr unsigned kMaxOutputs = 1024;
  static constexpr unsigned kMaxNameLength = 128;
  /// Inline `data` elements in the whole program; larger constants belong in
  /// external weight files.
  static constexpr uint64_t kMaxInlineElements = 1ull << 20;
  /// Inline constants of at least this many bytes are stored like weights
  /// (a global in the weights section, or the external blob) rather than
  /// compiled into the code as dense attributes.
  static constexpr uint64_t kMinStoredInlineBytes = 64ull << 10;
  /// Upper bound on the bytes of any tensor at the symbols' maximum values;
  /// keeps every size computation far from int64 overflow.
  static constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;
};

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;

  unsigned rank() const { return shape.size(); }
  bool operator==(const TensorType &o) const {
    return dtype == o.dtype && shape == o.shape;
  }
  bool operator!=(const TensorType &o) const { return !(*this == o); }
};

struct Symbol {
  std::string name;
  int64_t min = 0;
  int64_t max = 0;
  int64_t multipleOf = 1;
  Loc loc;
  /// The declared `values` (sorted; empty: every value of the range that
  /// is a multiple of multipleOf). Part of the contract: a call whose value
  /// is not one of them fails a guard.
  std::vector<int64_t> values;
};

/// An input of the program or of a nested graph.
struct ValueDecl {
  std::string name;
  TensorType type;
  Loc loc;
  Loc dtypeLoc;
  Loc shapeLoc;
  std::vector<Loc> dimLocs;
};

/// Bytes shared with their owner (a file mapping or a vector), so large
/// weights are never copied.
struct Blob {
  std::shared_ptr<const void> owner;
  const uint8_t *data = nullptr;
  size_t size = 0;

  llvm::ArrayRef<uint8_t> bytes() const { return {data, size}; }
  static Blob fromVector(std::vector<uint8_t> bytes);
};

struct ConstantDecl {
  std::string name;
  TensorType type; ///< static shape
  Blob data;       ///< little-endian elements, row-major
  Loc loc;
  Loc dataLoc;
  /// A constant read from a weights file: the path as written in the
  /// program (relative to the program's directory) and, for .safetensors,
  /// the tensor's name. Both empty for inline `data`.
  std::string file;
  std::string tensor;
  Loc fileLoc;
  Loc tensorLoc;

  bool isFromFile() const { return !file.empty(); }
  /// Stored constants are weights: never a dense attribute in MLIR but a
  /// read-only kernel argument whose bytes live in the object's weights
  /// section (or in the external blob). Constants from files and large
  /// inline ones are stored.
  bool isStored() const {
    return isFromFile() || data.size >= ProgramLimits::kMinStoredInlineBytes;
  }
};

/// An attribute value as written in the program; the verifier interprets it
/// according to the op's attribute specification.
struct AttrValue {
  enum class Kind { Null, Bool, Int, Float, String, List };
  Kind kind = Kind::Null;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string string;
  std::vector<AttrValue> list;
  Loc loc;
};

struct NodeAttr {
  std::string name;
  AttrValue value;
  Loc loc; ///< location of the key
};

struct Graph;

struct Node {
  std::string name;
  std::string opName;
  std::vector<std::string> operands;
  std::vector<NodeAttr> attributes;
  /// Nested graphs (the branches of `cond`, the body of `while`), by name.
  std::vector<std::pair<std::string, std::unique_ptr<Graph>>> regions;
  Loc loc;
  Loc opLoc;
  std::vector<Loc> operandLocs;

  // Filled in by the verifier.
  OpKind kind = OpKind::Unknown;
  std::vector<TensorType> resultTypes;

  const NodeAttr *findAttribute(llvm::StringRef attrName) const;
  const Graph *findRegion(llvm::StringRef regionName) const;
};

struct OutputDecl {
  std::string name;  ///< the name callers see
  std::string value; ///< the value it returns
  Loc loc;
  Loc valueLoc;
  TensorType type; ///< filled in by the verifier
};

struct Graph {
  std::vector<ValueDecl> inputs; ///< empty for the program's body
  std::vector<Node> nodes;
  std::vector<OutputDecl> outputs;
};

struct Program {
  int version = 1;
  std::string name;
  std::string file;   ///< the path as given on the command line
  std::string sha256; ///< hex SHA-256 of the file's bytes ("" if built)
  /// The weights files the program's constants read, as opened (resolved
  /// against the program's directory), each once, in the order of first
  /// use: with the program file, every file a compile reads (--depfile).
  std::vector<std::string> weightsFiles;
  std::vector<Symbol> symbols;
  std::vector<ValueDecl> inputs;
  std::vector<ConstantDecl> constants;
  Graph body; ///< nodes and outputs of the program
  Loc nameLoc;

  std::vector<std::string> symbolNames() const;
  std::optional<uint32_t> findSymbol(llvm::StringRef symbolName) const;
  /// The symbol as dimension expressions refer to it (ShapeExpr::parse).
  std::optional<SymbolRef> findSymbolRef(llvm::StringRef symbolName) const;
  /// Symbol ranges as intervals, indexed by symbol id.
  std::vector<Interval> symbolRanges() const;
};

/// Splits "node:2" into ("node", 2); a plain name is result 0. Returns false
/// if the suffix is not a decimal number.
bool splitValueName(llvm::StringRef ref, llvm::StringRef &base,
                    unsigned &result);

/// True for names txc accepts: [A-Za-z_][A-Za-z0-9_]* up to the length limit.
bool isValidIdentifier(llvm::StringRef name);

} // namespace txc

#endif
