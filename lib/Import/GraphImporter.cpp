//===- GraphImporter.cpp - Inputs, initializers, nodes and outputs --------===//
#include "Importer.h"
#include "OnnxModel.h"

#include "txc/Import/OnnxImport.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace txc;
using namespace txc::onnximport;

GraphImporter::GraphImporter(std::shared_ptr<const onnx::ModelProto> model,
                             std::string file, std::string weightsFileName,
                             DiagnosticEngine &diags)
    : weightsFileName(std::move(weightsFileName)), model(std::move(model)),
      file(std::move(file)), diags(diags) {
  opset = *defaultDomainOpset(*this->model);
}

static Loc pointerLoc(const llvm::Twine &pointer) {
  Loc loc;
  loc.pointer = pointer.str();
  return loc;
}

void GraphImporter::report(DiagCategory category, llvm::StringRef id,
                           unsigned nodeIndex, const llvm::Twine &message,
                           const llvm::Twine &hint) {
  Diagnostic &diag = diags.error(category, id, file,
                                 pointerLoc("/graph/node/" +
                                            llvm::Twine(nodeIndex)),
                                 message);
  std::string hintText = hint.str();
  if (hintText.empty())
    return;
  Diagnostic note;
  note.severity = Severity::Note;
  note.category = category;
  note.id = id.str();
  note.message = "hint: " + hintText;
  diag.notes.push_back(std::move(note));
}

const ImportedValue *GraphImporter::lookup(llvm::StringRef onnxName) const {
  auto it = values.find(onnxName);
  return it == values.end() ? nullptr : &it->second;
}

void GraphImporter::define(const std::string &onnxName, ImportedValue value) {
  if (scope && !values.count(onnxName))
    scope->push_back(onnxName);
  values[onnxName] = std::move(value);
}

/// Every name the model spells as an identifier keeps its spelling: they
/// are reserved before any other name is mapped.
void GraphImporter::reserveNames() {
  const onnx::GraphProto &graph = model->graph();
  auto reserve = [&](const std::string &name) {
    if (isValidIdentifier(name))
      names.reserve(name);
  };
  for (const onnx::ValueInfoProto &input : graph.input())
    reserve(input.name());
  for (const onnx::TensorProto &initializer : graph.initializer())
    reserve(initializer.name());
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &output : node.output())
      reserve(output);
}

bool GraphImporter::run(const std::map<std::string, Symbol> &dimRanges,
                        const std::map<std::string, int64_t> &statics) {
  reserveNames();
  unsigned errorsBefore = diags.errorCount();
  // Initializers first: an input that is also an initializer is a constant.
  if (importInitializers())
    importInputs(dimRanges, statics);
  if (diags.errorCount() != errorsBefore)
    return false;
  importNodes();
  if (diags.errorCount() != errorsBefore)
    return false;
  return importOutputs();
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

std::optional<TensorType> GraphImporter::importValueType(
    const onnx::ValueInfoProto &info, llvm::StringRef pointer,
    const std::map<std::string, Symbol> &dimRanges,
    const std::map<std::string, int64_t> &statics) {
  std::string what = "input '" + info.name() + "'";
  auto fail = [&](DiagCategory category, llvm::StringRef id,
                  const llvm::Twine &message) {
    diags.error(category, id, file, pointerLoc(pointer), message);
    return std::nullopt;
  };
  // loadOnnxModel checked that the inputs are tensors.
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  std::optional<DType> dtype = dtypeOfOnnx(tensor.elem_type());
  if (!dtype)
    return fail(DiagCategory::NotRepresentable, "onnx-type",
                what + " has element type " +
                    onnxTypeName(tensor.elem_type()) +
                    ", which txc has no dtype for");
  if (!tensor.has_shape())
    return fail(DiagCategory::Invalid, "onnx-shape",
                what + " has no shape; export the model with its input "
                       "shapes");
  if (unsigned(tensor.shape().dim_size()) > ProgramLimits::kMaxRank)
    return fail(DiagCategory::NotRepresentable, "onnx-shape",
                what + " has rank " + llvm::Twine(tensor.shape().dim_size()) +
                    ", over txc's limit of 8");
  TensorType type{*dtype, {}};
  for (int d = 0; d < tensor.shape().dim_size(); ++d) {
    const onnx::TensorShapeProto::Dimension &dim = tensor.shape().dim(d);
    std::string dimWhat = "dimension " + std::to_string(d) + " of " + what;
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0 ||
          dim.dim_value() > ProgramLimits::kMaxTensorBytes)
        return fail(DiagCategory::Invalid, "onnx-shape",
                    dimWhat + " is " + llvm::Twine(dim.dim_value()) +
                        ", outside [0, 2^48]");
      type.shape.push_back(ShapeExpr::constant(dim.dim_value()));
      continue;
    }
    if (!dim.has_dim_param() || dim.dim_param().empty())
      return fail(DiagCategory::Invalid, "onnx-shape",
                  dimWhat + " has neither a size nor a name; export it "
                            "with a fixed size or a dynamic_axes name");
    const std::string &param = dim.dim_param();
    usedParams.insert(param);
    if (auto it = statics.find(param); it != statics.end()) {
      type.shape.push_back(ShapeExpr::constant(it->second));
      continue;
    }
    auto range = dimRanges.find(param);
    if (range == dimRanges.end())
      return fail(DiagCategory::Usage, "onnx-dim-param",
                  dimWhat + " is the symbolic dim '" + param +
                      "', which has no range: give one with --dim " + param +
                      "=MIN:MAX or pin it with --static " + param + "=VALUE");
    std::optional<uint32_t> id = program.findSymbol(range->second.name);
    if (!id) {
      id = program.symbols.size();
      program.symbols.push_back(range->second);
    }
    type.shape.push_back(ShapeExpr::symbol({*id, program.symbols[*id].multipleOf}));
  }
  return type;
}

bool GraphImporter::importInputs(const std::map<std::string, Symbol> &dimRanges,
                                 const std::map<std::string, int64_t> &statics) {
  const onnx::GraphProto &graph = model->graph();
  bool ok = true;
  for (int i = 0; i < graph.input_size(); ++i) {
    const onnx::ValueInfoProto &input = graph.input(i);
    if (lookup(input.name())) // an initializer: a constant (docs/onnx.md)
      continue;
    std::optional<TensorType> type =
        importValueType(input, "/graph/input/" + std::to_string(i), dimRanges,
                        statics);
    if (!type) {
      ok = false;
      continue;
    }
    ValueDecl decl;
    decl.name = names.map(input.name());
    decl.type = *type;
    if (decl.name != input.name())
      descriptions[decl.name] = "ONNX input '" + input.name() + "'";
    program.inputs.push_back(decl);
    define(input.name(), {*type, decl.name, nullptr, input.name()});
  }
  auto reportUnused = [&](const std::string &param, const char *flag) {
    if (usedParams.count(param))
      return;
    std::string known;
    for (const std::string &used : usedParams)
      known += (known.empty() ? "'" : ", '") + used + "'";
    diags.error(DiagCategory::Usage, "usage", "", Loc(),
                llvm::Twine(flag) + " names '" + param +
                    "', which is no symbolic dim of the model's inputs" +
                    (known.empty() ? llvm::Twine(" (they have none)")
                                   : " (they have " + known + ")"));
    ok = false;
  };
  for (const auto &[param, symbol] : dimRanges)
    reportUnused(param, "--dim");
  for (const auto &[param, value] : statics)
    reportUnused(param, "--static");
  return ok;
}

//===----------------------------------------------------------------------===//
// Initializers
//===----------------------------------------------------------------------===//

bool GraphImporter::importInitializers() {
  const onnx::GraphProto &graph = model->graph();
  bool ok = true;
  for (int i = 0; i < graph.initializer_size(); ++i) {
    const onnx::TensorProto &tensor = graph.initializer(i);
    std::string problem;
    std::shared_ptr<KnownTensor> known = readTensorProto(tensor, model, problem);
    if (!known) {
      diags.error(DiagCategory::Invalid, "onnx-initializer", file,
                  pointerLoc("/graph/initializer/" + llvm::Twine(i)),
                  "initializer '" + tensor.name() + "' " + problem);
      ok = false;
      continue;
    }
    if (known->dims.size() > ProgramLimits::kMaxRank) {
      diags.error(DiagCategory::NotRepresentable, "onnx-initializer", file,
                  pointerLoc("/graph/initializer/" + llvm::Twine(i)),
                  "initializer '" + tensor.name() + "' has rank " +
                      llvm::Twine(known->dims.size()) +
                      ", over txc's limit of 8");
      ok = false;
      continue;
    }
    TensorType type{known->dtype, {}};
    for (int64_t dim : known->dims)
      type.shape.push_back(ShapeExpr::constant(dim));
    define(tensor.name(), {type, "", known, tensor.name()});
  }
  return ok;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

std::optional<std::string>
GraphImporter::materialize(const ImportedValue &value,
                           std::optional<unsigned> readerIndex) {
  if (!value.ref.empty())
    return value.ref;
  const KnownTensor *known = value.known.get();
  if (!known)
    llvm::report_fatal_error("txc import: a value has neither a txc name "
                             "nor known elements");
  if (auto it = constantRefs.find(value.known); it != constantRefs.end())
    return it->second;
  if (!known->hasBytes()) {
    std::string reader =
        readerIndex ? "node " + nodeLabel(model->graph().node(*readerIndex),
                                          *readerIndex) +
                          " reads"
                    : std::string("the graph returns");
    Diagnostic &diag = diags.error(
        DiagCategory::NotRepresentable, "onnx-symbolic-tensor", file,
        pointerLoc(readerIndex ? "/graph/node/" + llvm::Twine(*readerIndex)
                               : llvm::Twine("/graph/output")),
        reader + " '" + value.onnxName +
            "' as a tensor, but its elements are computed from symbolic "
            "dims (" +
            shapeToString(*known->ints, program.symbolNames()) +
            "); txc cannot make a tensor of a symbol's value");
    Diagnostic note;
    note.severity = Severity::Note;
    note.category = diag.category;
    note.id = diag.id;
    note.message = "hint: export with that dim fixed (--static), or compute "
                   "the value in the model from tensors";
    diag.notes.push_back(std::move(note));
    return std::nullopt;
  }
  ConstantDecl constant;
  constant.name = value.onnxName.empty() ? names.fresh("constant")
                                         : names.map(value.onnxName);
  constant.type.dtype = known->dtype;
  for (int64_t dim : known->dims)
    constant.type.shape.push_back(ShapeExpr::constant(dim));
  constant.data = known->bytes;
  if (known->numElements() > kMaxInlineInitializerElements) {
    constant.file = weightsFileName;
    // The tensor keeps its ONNX name in the weights file.
    constant.tensor = value.onnxName.empty() ? constant.name : value.onnxName;
    if (!storedTensors.insert(constant.tensor).second)
      constant.tensor = constant.name;
    storedTensors.insert(constant.tensor);
  }
  if (!value.onnxName.empty() && constant.name != value.onnxName)
    descriptions[constant.name] = "ONNX initializer '" + value.onnxName + "'";
  program.constants.push_back(constant);
  constantRefs[value.known] = constant.name;
  return constant.name;
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

namespace {
struct KnownUnsupportedOp {
  const char *opType;
  const char *reason;
  const char *hint;
};
} // namespace

/// ONNX ops txc cannot express at all, with the reason (other ops without a
/// converter are reported as not imported yet).
static const KnownUnsupportedOp kUnsupportedOps[] = {
    {"NonZero", "its output shape depends on tensor values",
     "use a mask (Where) so that the shape does not depend on the data"},
    {"Unique", "its output shape depends on tensor values",
     "compute the unique values on the host"},
    {"Compress", "its output shape depends on tensor values",
     "use a mask (Where) so that the shape does not depend on the data"},
    {"NonMaxSuppression", "its output shape depends on tensor values",
     "run the suppression on the host after the call"},
    {"RandomNormal", "it draws random numbers, so its result is not a "
                     "function of the inputs",
     "draw the numbers on the host and pass them as an input"},
    {"RandomNormalLike", "it draws random numbers, so its result is not a "
                         "function of the inputs",
     "draw the numbers on the host and pass them as an input"},
    {"RandomUniform", "it draws random numbers, so its result is not a "
                      "function of the inputs",
     "draw the numbers on the host and pass them as an input"},
    {"RandomUniformLike", "it draws random numbers, so its result is not a "
                          "function of the inputs",
     "draw the numbers on the host and pass them as an input"},
    {"Bernoulli", "it draws random numbers, so its result is not a function "
                  "of the inputs",
     "draw the numbers on the host and pass them as an input"},
    {"Multinomial", "it draws random numbers, so its result is not a "
                    "function of the inputs",
     "draw the numbers on the host and pass them as an input"},
    {"StringNormalizer", "it works on string tensors, which txc has not",
     "tokenize on the host and pass the ids as an input"},
};

bool GraphImporter::hasPoisonedInput(const onnx::NodeProto &node) const {
  return llvm::any_of(node.input(), [&](const std::string &input) {
    return poisoned.count(input) != 0;
  });
}

void GraphImporter::reportMissingConverter(const onnx::NodeProto &node,
                                           unsigned index, int64_t since) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    report(DiagCategory::NotRepresentable, "onnx-unsupported-op", index,
           "node " + nodeLabel(node, index) + " (" + node.op_type() +
               ", domain " +
               node.domain() + ") cannot be imported: op '" +
               node.op_type() + "' of domain '" + node.domain() +
               "' is not an ONNX standard op",
           "export with standard ONNX ops only (no custom domains)");
    return;
  }
  std::string what = "node " + nodeLabel(node, index) + " (" +
                     node.op_type() + "-" +
                     std::to_string(since) + ", opset " +
                     std::to_string(opset) + ")";
  for (const KnownUnsupportedOp &op : kUnsupportedOps)
    if (node.op_type() == op.opType) {
      report(DiagCategory::NotRepresentable, "onnx-unsupported-op", index,
             what + " cannot be imported: " + op.reason, op.hint);
      return;
    }
  report(DiagCategory::NotRepresentable, "onnx-unsupported-op", index,
         what + " cannot be imported: txc has no converter for " +
             node.op_type() + "-" + llvm::Twine(since) + " yet",
         "docs/onnx.md lists the supported ops; replace the op when "
         "exporting or file an issue");
}

/// Every value a node reads, with those its subgraphs (If's branches) read
/// from enclosing graphs: they are its inputs too, for the folds that need
/// to know all of a value's readers.
static void collectReads(const onnx::NodeProto &node,
                         std::vector<std::string> &reads) {
  reads.insert(reads.end(), node.input().begin(), node.input().end());
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.has_g())
      for (const onnx::NodeProto &inner : attr.g().node())
        collectReads(inner, reads);
}

void GraphImporter::importNodes() {
  const onnx::GraphProto &graph = model->graph();
  for (int i = 0; i < graph.node_size(); ++i) {
    std::vector<std::string> reads;
    collectReads(graph.node(i), reads);
    llvm::sort(reads);
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    for (const std::string &input : reads)
      consumers[input].push_back(i);
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    graphOutputs.insert(output.name());
  for (int i = 0; i < graph.node_size(); ++i)
    importNode(graph.node(i), i);
}

void GraphImporter::importNode(const onnx::NodeProto &node, unsigned index) {
  auto poison = [&] {
    for (const std::string &output : node.output())
      poisoned.insert(output);
  };
  int64_t since = schemaSinceVersion(node, opset);
  bool standard = node.domain().empty() || node.domain() == "ai.onnx";
  const ConverterEntry *entry =
      standard ? findConverter(node.op_type(), opset) : nullptr;
  if (!entry) {
    reportMissingConverter(node, index, since);
    poison();
    return;
  }
  if (hasPoisonedInput(node)) {
    poison();
    return;
  }
  NodeImporter importer(*this, node, index, since);
  if (llvm::failed(entry->convert(importer))) {
    poison();
    return;
  }
  for (const std::string &output : node.output())
    if (!output.empty() && !lookup(output))
      llvm::report_fatal_error("txc import: the " +
                               llvm::Twine(node.op_type()) +
                               " converter did not set output '" + output +
                               "'");
}

std::optional<std::vector<ImportedValue>>
GraphImporter::importSubgraph(const onnx::GraphProto &subgraph,
                              unsigned parentIndex, Graph &target,
                              llvm::ArrayRef<ImportedValue> inputs) {
  Graph *enclosing = current;
  std::vector<std::string> *enclosingScope = scope;
  std::vector<std::string> defined;
  current = &target;
  scope = &defined;
  unsigned errorsBefore = diags.errorCount();
  // The caller checked that the counts agree.
  for (size_t i = 0; i < inputs.size(); ++i) {
    ImportedValue input = inputs[i];
    input.onnxName = subgraph.input(int(i)).name();
    define(subgraph.input(int(i)).name(), std::move(input));
  }
  for (const onnx::TensorProto &tensor : subgraph.initializer()) {
    std::string problem;
    std::shared_ptr<KnownTensor> known = readTensorProto(tensor, model, problem);
    if (!known) {
      report(DiagCategory::Invalid, "onnx-initializer", parentIndex,
             "initializer '" + tensor.name() + "' of a subgraph " + problem,
             "");
      break;
    }
    TensorType type{known->dtype, {}};
    for (int64_t dim : known->dims)
      type.shape.push_back(ShapeExpr::constant(dim));
    define(tensor.name(), {type, "", known, tensor.name()});
  }
  if (diags.errorCount() == errorsBefore)
    for (const onnx::NodeProto &node : subgraph.node())
      importNode(node, parentIndex);
  std::optional<std::vector<ImportedValue>> outputs;
  if (diags.errorCount() == errorsBefore) {
    outputs.emplace();
    for (const onnx::ValueInfoProto &output : subgraph.output()) {
      const ImportedValue *value = lookup(output.name());
      if (!value) {
        report(DiagCategory::Invalid, "onnx-invalid", parentIndex,
               "subgraph output '" + output.name() +
                   "' is not computed by any node",
               "");
        outputs.reset();
        break;
      }
      outputs->push_back(*value);
    }
  }
  for (const std::string &name : defined)
    values.erase(name);
  current = enclosing;
  scope = enclosingScope;
  return outputs;
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

bool GraphImporter::importOutputs() {
  const onnx::GraphProto &graph = model->graph();
  NameTable outputNames; // outputs are a namespace of their own
  for (const onnx::ValueInfoProto &output : graph.output())
    if (isValidIdentifier(output.name()))
      outputNames.reserve(output.name());
  bool ok = true;
  for (int i = 0; i < graph.output_size(); ++i) {
    const std::string &onnxName = graph.output(i).name();
    const ImportedValue *value = lookup(onnxName);
    if (!value) {
      diags.error(DiagCategory::Invalid, "onnx-invalid", file,
                  pointerLoc("/graph/output/" + llvm::Twine(i)),
                  "graph output '" + onnxName + "' is not computed by any "
                                                "node, input or initializer");
      ok = false;
      continue;
    }
    std::optional<std::string> ref =
        materialize(*value, std::nullopt);
    if (!ref) {
      ok = false;
      continue;
    }
    OutputDecl decl;
    decl.name = outputNames.map(onnxName);
    decl.value = *ref;
    if (decl.name != onnxName)
      outputDescriptions[decl.name] = "ONNX output '" + onnxName + "'";
    program.body.outputs.push_back(decl);
  }
  return ok;
}
