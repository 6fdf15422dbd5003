//===- Importer.h - The ONNX importer's internal interfaces -----*- C++ -*-===//
//
// The importer walks the (converted, checked, shape-inferred) ONNX graph in
// order. Each node goes to the converter registered for its op type and
// opset (Converters/*.cpp, one small function per op, as onnx-mlir's
// importer does), which either emits txc nodes through its NodeImporter or
// folds the node: values known at import time (initializers, Constant
// nodes, and the shape arithmetic that exporters write, evaluated on
// symbolic dims) are KnownTensors, and become txc constants only when a
// txc node reads them.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_IMPORT_IMPORTER_H
#define TXC_LIB_IMPORT_IMPORTER_H

#include "txc/Program/Program.h"
#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace txc::onnximport {

/// The elements of a tensor known at import time. Integer (and bool)
/// tensors of at most kMaxFoldedElements elements also have their elements
/// as polynomials over the symbols (`ints`): the result of Shape on a
/// symbolic dim is `batch`, and everything computed from it stays exact.
struct KnownTensor {
  static constexpr int64_t kMaxFoldedElements = 4096;

  DType dtype = DType::F32;
  std::vector<int64_t> dims;
  /// Little-endian elements; empty (data == nullptr) when an element is
  /// symbolic.
  Blob bytes;
  std::optional<std::vector<ShapeExpr>> ints;

  int64_t numElements() const;
  bool hasBytes() const { return bytes.data != nullptr || numElements() == 0; }
  /// The integer elements when every one is a constant.
  std::optional<std::vector<int64_t>> staticInts() const;
  /// The elements converted to double (any numeric dtype with bytes).
  std::optional<std::vector<double>> doubles() const;

  static std::shared_ptr<KnownTensor> fromInts(DType dtype,
                                               std::vector<int64_t> dims,
                                               std::vector<ShapeExpr> values);
  /// Fills `ints` from `bytes` for small integer tensors; fills `bytes`
  /// from `ints` when they are all constants.
  void complete();
};

/// What the importer knows about one ONNX value.
struct ImportedValue {
  TensorType type;
  /// The txc value reference ("name" or "name:1"); empty until a txc node,
  /// input or constant holds the value.
  std::string ref;
  /// The elements, when known at import time.
  std::shared_ptr<const KnownTensor> known;
  /// The ONNX name, for messages and for naming a constant made from it.
  std::string onnxName;
};

class GraphImporter;

/// The view a converter has of its node: inputs, attributes, and the ways
/// to produce its outputs or to say why it cannot.
class NodeImporter {
public:
  NodeImporter(GraphImporter &graph, const onnx::NodeProto &proto,
               unsigned index, int64_t sinceVersion);

  const onnx::NodeProto &proto() const { return node; }
  llvm::StringRef opType() const { return node.op_type(); }
  /// The version of the op's schema the node follows (Softmax-13, ...).
  int64_t sinceVersion() const { return since; }

  // Inputs. Optional inputs may be absent or have an empty name.
  unsigned numInputs() const { return node.input_size(); }
  bool hasInput(unsigned i) const;
  const ImportedValue &input(unsigned i) const;
  unsigned numOutputs() const { return node.output_size(); }
  const std::string &outputName(unsigned i) const { return node.output(i); }

  // Attributes (ONNX's types); a missing attribute gives the fallback.
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t intAttr(llvm::StringRef name, int64_t fallback) const;
  float floatAttr(llvm::StringRef name, float fallback) const;
  std::string stringAttr(llvm::StringRef name, llvm::StringRef fallback) const;
  std::optional<std::vector<int64_t>> intsAttr(llvm::StringRef name) const;

  /// Input i's elements, when they are known at import time.
  const KnownTensor *known(unsigned i) const;
  /// Input i's elements as integers that must be known constants (axes,
  /// pads, ...). Reports why not (naming `what`) and returns nullopt.
  std::optional<std::vector<int64_t>> requireStaticInts(unsigned i,
                                                        llvm::StringRef what);
  /// Input i's elements as numbers known at import time (Clip's bounds).
  std::optional<std::vector<double>> requireKnownDoubles(unsigned i,
                                                         llvm::StringRef what);

  /// Emits an intermediate txc node reading `operands` (named after the
  /// node's output 0) and returns its result. The type comes from txc's
  /// own shape rule; a rule that rejects the node reports it as not
  /// representable, with the rule's message, and returns nullopt.
  std::optional<ImportedValue> emit(llvm::StringRef op,
                                    llvm::ArrayRef<ImportedValue> operands,
                                    std::vector<NodeAttr> attrs = {});
  /// Emits the txc node that computes output `output` (named after it).
  llvm::LogicalResult emitOutput(unsigned output, llvm::StringRef op,
                                 llvm::ArrayRef<ImportedValue> operands,
                                 std::vector<NodeAttr> attrs = {});
  /// Emits a node whose results are the outputs 0, 1, ... (split).
  llvm::LogicalResult emitOutputs(llvm::StringRef op,
                                  llvm::ArrayRef<ImportedValue> operands,
                                  std::vector<NodeAttr> attrs);
  /// Emits a node with nested graphs (cond, while) and returns its
  /// results, of `resultTypes` (the caller checked its regions' types).
  std::optional<std::vector<ImportedValue>>
  emitRegionNode(llvm::StringRef op, llvm::ArrayRef<ImportedValue> operands,
                 std::vector<NodeAttr> attrs,
                 std::vector<std::pair<std::string, std::unique_ptr<Graph>>>
                     regions,
                 llvm::ArrayRef<TensorType> resultTypes);
  /// emitRegionNode's results as the outputs 0, 1, ...
  llvm::LogicalResult
  emitRegionOutputs(llvm::StringRef op, llvm::ArrayRef<ImportedValue> operands,
                    std::vector<std::pair<std::string, std::unique_ptr<Graph>>>
                        regions,
                    llvm::ArrayRef<TensorType> resultTypes);
  /// The importer's state, for converters of nested graphs.
  GraphImporter &importer() { return graph; }
  unsigned nodeIndex() const { return index; }

  /// Sets output i to a value (emitted, folded or an alias of an input).
  llvm::LogicalResult setOutput(unsigned i, ImportedValue value);
  /// Sets output i to a known tensor.
  llvm::LogicalResult setKnownOutput(unsigned i,
                                     std::shared_ptr<const KnownTensor> known);
  /// A scalar constant of `dtype` to feed a txc node (e.g. 1 for `sub`).
  ImportedValue scalar(DType dtype, double value, unsigned rank = 0);
  /// A known tensor as a value (a txc constant once a node reads it).
  ImportedValue constant(std::shared_ptr<const KnownTensor> known) const;
  /// Keeps the model's bytes alive for tensors that point into it.
  std::shared_ptr<const void> owner() const;

  /// The one node that reads output `output`, when exactly one node does
  /// and it is no graph output; with its index.
  std::optional<std::pair<const onnx::NodeProto *, unsigned>>
  soleConsumer(unsigned output) const;
  /// A value of the graph by its ONNX name, if it is defined yet.
  const ImportedValue *lookup(llvm::StringRef onnxName) const;
  /// Records that this node computed node `consumer` too (a batch norm
  /// folded into a convolution); the consumer then forwards its input.
  void foldInto(unsigned consumer);
  /// Whether a node before this one computed it already.
  bool isFolded() const;

  /// The node cannot be imported: exit 5, listed with every other one.
  llvm::LogicalResult unsupported(const llvm::Twine &reason,
                                  const llvm::Twine &hint);
  /// Only some values of an attribute are supported.
  llvm::LogicalResult unsupportedAttr(llvm::StringRef attribute,
                                      const llvm::Twine &reason,
                                      const llvm::Twine &hint);
  /// The model itself is wrong (exit 4).
  llvm::LogicalResult invalid(const llvm::Twine &message);

  std::string str(const Shape &shape) const;
  /// One dim, without brackets ("2*n").
  std::string dimStr(const ShapeExpr &dim) const;
  const Program &program() const;

private:
  std::optional<std::vector<ImportedValue>>
  emitNode(llvm::StringRef op, llvm::ArrayRef<ImportedValue> operands,
           std::vector<NodeAttr> attrs, std::string name);
  /// A node of `op` reading `operands` (constants made of known ones).
  std::optional<Node> startNode(llvm::StringRef op,
                                llvm::ArrayRef<ImportedValue> operands,
                                std::vector<NodeAttr> attrs, std::string name);
  /// Appends the node to the current graph; its results have `types`.
  std::vector<ImportedValue> appendNode(Node txcNode,
                                        llvm::ArrayRef<TensorType> types);
  /// Sets the node's outputs 0, 1, ... that are used to `results`.
  void setOutputs(llvm::ArrayRef<ImportedValue> results);
  /// A new name for an intermediate node, after the node's output 0.
  std::string freshName(llvm::StringRef op);

  GraphImporter &graph;
  const onnx::NodeProto &node;
  unsigned index;
  int64_t since;
};

/// A converter: one ONNX op type over a range of opsets.
using Converter = llvm::LogicalResult (*)(NodeImporter &);

struct ConverterEntry {
  const char *opType;
  int64_t sinceOpset; ///< the converter implements this opset's version
  int64_t untilOpset; ///< ... up to this opset
  Converter convert;
};

/// Each file of Converters/ registers its family.
void addElementwiseConverters(std::vector<ConverterEntry> &table);
void addLinearAlgebraConverters(std::vector<ConverterEntry> &table);
void addConvolutionConverters(std::vector<ConverterEntry> &table);
void addShapeConverters(std::vector<ConverterEntry> &table);
void addIndexingConverters(std::vector<ConverterEntry> &table);
void addNormalizationConverters(std::vector<ConverterEntry> &table);
void addQuantizationConverters(std::vector<ConverterEntry> &table);
void addResizeConverters(std::vector<ConverterEntry> &table);
void addControlFlowConverters(std::vector<ConverterEntry> &table);
void addRecurrentConverters(std::vector<ConverterEntry> &table);

/// The converter for `opType` (default domain) at `opset`, or null.
const ConverterEntry *findConverter(llvm::StringRef opType, int64_t opset);
/// Every registered entry, sorted by op type (docs/onnx.md's table).
const std::vector<ConverterEntry> &allConverters();

/// Maps ONNX names to txc identifiers: a name that already is an
/// identifier is kept; any other name has each run of other characters
/// replaced by '_' (and a leading digit prefixed by 'v'), then a suffix
/// _2, _3, ... makes it unique. Names the model already uses as
/// identifiers are reserved first, so that they are always kept.
class NameTable {
public:
  void reserve(llvm::StringRef identifier);
  /// The identifier of an ONNX name (the same on every call).
  std::string map(llvm::StringRef onnxName);
  /// A new identifier derived from `base`.
  std::string fresh(llvm::StringRef base);

private:
  std::set<std::string> taken;
  std::map<std::string, std::string> mapped;
};

/// The shared state of one import.
class GraphImporter {
public:
  GraphImporter(std::shared_ptr<const onnx::ModelProto> model,
                std::string file, std::string weightsFileName,
                DiagnosticEngine &diags);

  /// Imports initializers, inputs (their dim_params are the symbols of
  /// `dimRanges` or the static dims of `statics`), nodes and outputs into
  /// `program`. False if anything was reported.
  bool run(const std::map<std::string, Symbol> &dimRanges,
           const std::map<std::string, int64_t> &statics);

  Program program;
  /// Free text per txc value name: the ONNX name and node it comes from.
  std::map<std::string, std::string> descriptions;
  /// Free text per output name.
  std::map<std::string, std::string> outputDescriptions;
  /// The weights file the stored constants name.
  std::string weightsFileName;

  // For NodeImporter.
  const onnx::ModelProto &modelProto() const { return *model; }
  std::shared_ptr<const onnx::ModelProto> modelOwner() const { return model; }
  const ImportedValue *lookup(llvm::StringRef onnxName) const;
  /// The txc reference of a value, making a constant of a known one;
  /// reports (at node `readerIndex`, or at the graph's outputs) a value
  /// that cannot be a tensor.
  std::optional<std::string> materialize(const ImportedValue &value,
                                         std::optional<unsigned> readerIndex);
  void define(const std::string &onnxName, ImportedValue value);
  /// Imports the nodes of an ONNX subgraph (If's branches, a loop's body)
  /// into `target`, with its inputs bound to `inputs` (one per input: the
  /// loop's state), reading the enclosing values it names; its diagnostics
  /// point at node `parentIndex`. Its values go out of scope again; returns
  /// its outputs, or nullopt after a diagnostic.
  std::optional<std::vector<ImportedValue>>
  importSubgraph(const onnx::GraphProto &subgraph, unsigned parentIndex,
                 Graph &target, llvm::ArrayRef<ImportedValue> inputs = {});
  /// The graph nodes are emitted into: the program's body, or a region.
  Graph *current = &program.body;
  /// An error at node `nodeIndex` with a hint note.
  void report(DiagCategory category, llvm::StringRef id, unsigned nodeIndex,
              const llvm::Twine &message, const llvm::Twine &hint);
  NameTable names;
  int64_t opset = 0;
  /// The nodes reading each value (indices), and whether it is a graph
  /// output (an extra, pseudo reader).
  std::map<std::string, std::vector<unsigned>> consumers;
  std::set<std::string> graphOutputs;
  std::set<unsigned> foldedNodes;

private:
  bool importInputs(const std::map<std::string, Symbol> &dimRanges,
                    const std::map<std::string, int64_t> &statics);
  bool importInitializers();
  void importNodes();
  /// Imports one node; its diagnostics point at node `index`.
  void importNode(const onnx::NodeProto &node, unsigned index);
  bool importOutputs();
  void reserveNames();
  std::optional<TensorType>
  importValueType(const onnx::ValueInfoProto &info, llvm::StringRef pointer,
                  const std::map<std::string, Symbol> &dimRanges,
                  const std::map<std::string, int64_t> &statics);
  bool hasPoisonedInput(const onnx::NodeProto &node) const;
  void reportMissingConverter(const onnx::NodeProto &node, unsigned index,
                              int64_t since);

  std::shared_ptr<const onnx::ModelProto> model;
  std::string file;
  DiagnosticEngine &diags;
  llvm::StringMap<ImportedValue> values;
  /// The names a subgraph being imported defines (null at the top level).
  std::vector<std::string> *scope = nullptr;
  /// Values of nodes that failed; nodes reading them are skipped.
  std::set<std::string> poisoned;
  /// The dim_params the inputs use.
  std::set<std::string> usedParams;
  /// The constant made of each known tensor (one per tensor, however many
  /// values alias it). The key keeps the tensor alive, so that its address
  /// is never reused for another one.
  std::map<std::shared_ptr<const KnownTensor>, std::string> constantRefs;
  std::set<std::string> storedTensors;
};

/// "'/fc/Gemm'", or "#3" for a node without a name.
std::string nodeLabel(const onnx::NodeProto &node, unsigned index);

/// An initializer or Constant tensor's elements; reports a malformed one
/// (naming `what`) to `problem` and returns null.
std::shared_ptr<KnownTensor>
readTensorProto(const onnx::TensorProto &tensor,
                std::shared_ptr<const void> owner, std::string &problem);
/// A float tensor (f32, f64, f16 or bf16) of `values`, each rounded once
/// to nearest even.
std::shared_ptr<KnownTensor> knownFloats(DType dtype, std::vector<int64_t> dims,
                                         llvm::ArrayRef<double> values);
/// txc's dtype of an ONNX elem_type, if it has one.
std::optional<DType> dtypeOfOnnx(int32_t elemType);
const char *onnxTypeName(int32_t elemType);

/// Attribute values for emitted nodes.
NodeAttr intAttr(llvm::StringRef name, int64_t value);
NodeAttr floatAttr(llvm::StringRef name, double value);
NodeAttr boolAttr(llvm::StringRef name, bool value);
NodeAttr stringAttr(llvm::StringRef name, llvm::StringRef value);
NodeAttr intListAttr(llvm::StringRef name, llvm::ArrayRef<int64_t> values);
NodeAttr shapeAttr(llvm::StringRef name, const Shape &shape,
                   llvm::ArrayRef<std::string> symbolNames);

/// A value a converter made, or nullopt after a diagnostic: lets a formula
/// be written as nested calls and checked once, at the output.
using MaybeValue = std::optional<ImportedValue>;
/// Emits `op` of `operands` when every operand was made; nullopt otherwise.
MaybeValue emitIf(NodeImporter &node, llvm::StringRef op,
                  std::initializer_list<MaybeValue> operands,
                  std::vector<NodeAttr> attrs = {});
/// Sets output 0 to `value` when it was made.
llvm::LogicalResult outputIf(NodeImporter &node, MaybeValue value);
/// Sets each output i that the graph uses to values[i], which must have
/// been made (LSTM's Y, Y_h, Y_c; DynamicQuantizeLinear's three).
llvm::LogicalResult outputsIf(NodeImporter &node,
                              llvm::ArrayRef<MaybeValue> values);

/// The value of a dim expression at run time, as an i64 scalar: a constant,
/// or the sum of a tensor of ones of that length (a loop's trip count, a
/// range's symbolic start). The dim must not be negative for any value of
/// the symbols (the caller checks, with dimBounds).
MaybeValue dimValue(NodeImporter &node, const ShapeExpr &dim);
/// The bounds of `dim` over the declared ranges of the symbols.
Interval dimBounds(NodeImporter &node, const ShapeExpr &dim);

/// An ONNX axis attribute normalized for `rank` (negative counts from the
/// end); nullopt when out of range.
std::optional<int64_t> normalizeOnnxAxis(int64_t axis, int64_t rank);
/// The node's "axis" normalized for `data`'s rank; the node is reported
/// invalid when it is out of range.
std::optional<int64_t> readAxisAttr(NodeImporter &node,
                                    const ImportedValue &data);

} // namespace txc::onnximport

#endif
