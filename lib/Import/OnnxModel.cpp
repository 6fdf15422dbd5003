//===- OnnxModel.cpp - Parse, check, convert and infer an ONNX model ------===//
//
// The only place of the importer that calls libonnx's checker, version
// converter and shape inference, and so the only place where their
// exceptions (onnx::checker::ValidationError, onnx::InferenceError,
// std::exception) are caught: each becomes one diagnostic.
//
//===----------------------------------------------------------------------===//
#include "Importer.h"
#include "OnnxModel.h"

#include "txc/Import/OnnxImport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <map>
#include <mutex>
#include <set>

using namespace txc;
using namespace txc::onnximport;

/// The first lines of a libonnx message: its exceptions append long
/// "==> Context:" dumps of the node.
static std::string shortMessage(const char *what) {
  llvm::SmallVector<llvm::StringRef, 4> lines;
  llvm::StringRef(what).split(lines, '\n', 3, /*KeepEmpty=*/false);
  std::string message;
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (line.empty())
      continue;
    if (line.consume_front("==> Context:"))
      line = line.trim();
    message += (message.empty() ? "" : "; ") + line.str();
  }
  return message;
}

std::optional<int64_t>
txc::onnximport::defaultDomainOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      return opset.version();
  return std::nullopt;
}

static void makePrintable(std::string &text) {
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.data());
  bool printable =
      llvm::all_of(text, [](char c) { return uint8_t(c) >= 0x20; }) &&
      llvm::isLegalUTF8String(&begin, begin + text.size());
  if (printable)
    return;
  std::string escaped;
  for (char c : text) {
    uint8_t byte = uint8_t(c);
    if (byte >= 0x20 && byte < 0x7F)
      escaped += c;
    else
      escaped += "\\x" + llvm::utohexstr(byte, /*LowerCase=*/true, 2);
  }
  text = std::move(escaped);
}

std::string txc::onnximport::printable(llvm::StringRef text) {
  std::string result = text.str();
  makePrintable(result);
  return result;
}

static void makePrintable(onnx::ValueInfoProto &info) {
  makePrintable(*info.mutable_name());
  // mutable_shape() would give a value of unknown shape an empty one, which
  // says rank 0 (libonnx's LayerNormalization inference then indexed dim
  // -1 and crashed: found by txc-import-fuzzer).
  if (info.type().has_tensor_type() && info.type().tensor_type().has_shape())
    for (auto &dim :
         *info.mutable_type()->mutable_tensor_type()->mutable_shape()
              ->mutable_dim())
      if (dim.has_dim_param())
        makePrintable(*dim.mutable_dim_param());
}

/// The model's strings that reach names, messages and the program, made
/// printable: protobuf does not check that ONNX's strings are UTF-8, and
/// txc's JSON (the program, the diagnostics) must be. A name with bad
/// bytes becomes the same escaped text everywhere it is used.
static void makeStringsPrintable(onnx::ModelProto &model) {
  makePrintable(*model.mutable_producer_name());
  makePrintable(*model.mutable_producer_version());
  for (auto &opset : *model.mutable_opset_import())
    makePrintable(*opset.mutable_domain());
  onnx::GraphProto &graph = *model.mutable_graph();
  for (auto &info : *graph.mutable_input())
    makePrintable(info);
  for (auto &info : *graph.mutable_output())
    makePrintable(info);
  for (auto &info : *graph.mutable_value_info())
    makePrintable(info);
  for (auto &tensor : *graph.mutable_initializer())
    makePrintable(*tensor.mutable_name());
  for (auto &node : *graph.mutable_node()) {
    makePrintable(*node.mutable_name());
    makePrintable(*node.mutable_op_type());
    makePrintable(*node.mutable_domain());
    for (std::string &input : *node.mutable_input())
      makePrintable(input);
    for (std::string &output : *node.mutable_output())
      makePrintable(output);
    for (auto &attr : *node.mutable_attribute()) {
      makePrintable(*attr.mutable_name());
      if (attr.has_s()) // setting s would make a field the type lacks
        makePrintable(*attr.mutable_s());
    }
  }
}

/// Parses the bytes; protobuf reports no reason, so the message names the
/// usual ones.
static std::shared_ptr<onnx::ModelProto>
parseModel(llvm::StringRef bytes, llvm::StringRef displayName,
           DiagnosticEngine &diags) {
  auto model = std::make_shared<onnx::ModelProto>();
  if (bytes.size() > uint64_t(INT32_MAX) ||
      !model->ParseFromArray(bytes.data(), int(bytes.size()))) {
    diags.error(DiagCategory::Syntax, "onnx-parse", displayName, Loc(),
                "the file is not a valid ONNX model: its protobuf cannot be "
                "parsed (truncated, corrupted or not an .onnx file)");
    return nullptr;
  }
  if (!model->has_graph()) {
    diags.error(DiagCategory::Invalid, "onnx-invalid", displayName, Loc(),
                "the ONNX model has no graph");
    return nullptr;
  }
  makeStringsPrintable(*model);
  return model;
}

/// Runs `step`, turning a libonnx exception into a diagnostic of
/// `category`.
template <typename Step>
static bool guarded(DiagCategory category, llvm::StringRef displayName,
                    llvm::StringRef id, const llvm::Twine &what,
                    DiagnosticEngine &diags, Step step) {
  try {
    step();
    return true;
  } catch (const std::exception &e) {
    std::string message = shortMessage(e.what());
    makePrintable(message);
    diags.error(category, id, displayName, Loc(), what + ": " + message);
  }
  return false;
}

/// A model that imports only other domains' opsets (ai.onnx.preview.training,
/// ai.onnx.ml, a vendor's) is valid ONNX that txc cannot express; without any
/// opset it is not valid.
static void reportNoDefaultOpset(const onnx::ModelProto &model,
                                 llvm::StringRef displayName,
                                 DiagnosticEngine &diags) {
  if (model.opset_import_size() == 0) {
    diags.error(DiagCategory::Invalid, "onnx-invalid", displayName, Loc(),
                "the ONNX model imports no opset");
    return;
  }
  std::string domains;
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    domains += (domains.empty() ? "'" : ", '") + printable(opset.domain()) + "'";
  diags.error(DiagCategory::NotRepresentable, "onnx-unsupported-op",
              displayName, Loc(),
              "the model imports no opset of the default domain (ai.onnx), "
              "only of " +
                  domains + ": txc imports ONNX standard ops only");
}

/// The graph's inputs and outputs must be tensors (not sequences, maps or
/// optionals); checked before shape inference, which libonnx 1.12 cannot
/// always do on the others.
static bool checkTensorTypes(const onnx::ModelProto &model,
                             llvm::StringRef displayName,
                             DiagnosticEngine &diags) {
  bool ok = true;
  auto check = [&](const onnx::ValueInfoProto &info, const char *kind,
                   int index) {
    if (info.type().has_tensor_type())
      return;
    Loc loc;
    loc.pointer = "/graph/" + std::string(kind) + "/" + std::to_string(index);
    diags.error(DiagCategory::NotRepresentable, "onnx-type", displayName, loc,
                std::string(kind) + " '" + info.name() +
                    "' is not a tensor (sequences, maps and optionals are "
                    "not supported)");
    ok = false;
  };
  for (int i = 0; i < model.graph().input_size(); ++i)
    check(model.graph().input(i), "input", i);
  for (int i = 0; i < model.graph().output_size(); ++i)
    check(model.graph().output(i), "output", i);
  return ok;
}

/// Reports each output of `graph` (and of its subgraphs) that is not a
/// value of the graph or of an enclosing one. libonnx 1.12's checker lets
/// such a model through, and its version converter then dereferences the
/// missing value (a SIGSEGV, found by txc-import-fuzzer).
static bool checkOutputsDefined(const onnx::GraphProto &graph,
                                std::set<std::string> visible,
                                const std::string &pointer,
                                llvm::StringRef displayName,
                                DiagnosticEngine &diags) {
  for (const onnx::ValueInfoProto &input : graph.input())
    visible.insert(input.name());
  for (const onnx::TensorProto &initializer : graph.initializer())
    visible.insert(initializer.name());
  for (const onnx::NodeProto &node : graph.node())
    visible.insert(node.output().begin(), node.output().end());
  bool ok = true;
  for (int i = 0; i < graph.output_size(); ++i) {
    if (visible.count(graph.output(i).name()))
      continue;
    Loc loc;
    loc.pointer = pointer + "/output/" + std::to_string(i);
    diags.error(DiagCategory::Invalid, "onnx-invalid", displayName, loc,
                "graph output '" + printable(graph.output(i).name()) +
                    "' is not an input, an initializer or a node's output");
    ok = false;
  }
  for (int n = 0; n < graph.node_size(); ++n) {
    const onnx::NodeProto &node = graph.node(n);
    for (int a = 0; a < node.attribute_size(); ++a) {
      const onnx::AttributeProto &attr = node.attribute(a);
      std::string at = pointer + "/node/" + std::to_string(n) + "/attribute/" +
                       std::to_string(a);
      if (attr.has_g())
        ok &= checkOutputsDefined(attr.g(), visible, at + "/g", displayName,
                                  diags);
      for (int g = 0; g < attr.graphs_size(); ++g)
        ok &= checkOutputsDefined(attr.graphs(g), visible,
                                  at + "/graphs/" + std::to_string(g),
                                  displayName, diags);
    }
  }
  return ok;
}

/// libonnx 1.12's shape inference of the convolutions indexes X's and W's
/// dims without checking that both have the rank the spec requires (equal,
/// at least 3): ConvTranspose with a W of rank 2 or 0 or an X of rank 2,
/// and convPoolShapeInference (Conv, ConvInteger, QLinearConv) with a W of
/// another rank than X, read out of bounds and crashed the importer (found
/// by txc-import-fuzzer). The check runs first and fails inference like
/// any other shape error.
template <int XIndex, int WIndex>
static void checkConvolutionRanks(onnx::InferenceContext &ctx) {
  if (!onnx::hasInputShape(ctx, XIndex) || !onnx::hasInputShape(ctx, WIndex))
    return;
  int x = ctx.getInputType(XIndex)->tensor_type().shape().dim_size();
  int w = ctx.getInputType(WIndex)->tensor_type().shape().dim_size();
  if (x < 3 || w != x)
    fail_shape_inference("X has rank ", x, " and W rank ", w,
                         "; both need one rank of at least 3");
}

/// Replaces the inference function of `schema` (a registry entry: they are
/// handed out const, but are ordinary objects that live as long as the
/// process).
static void setInference(const onnx::OpSchema &schema,
                         onnx::InferenceFunction function) {
  const_cast<onnx::OpSchema &>(schema).TypeAndShapeInferenceFunction(
      std::move(function));
}

/// Makes libonnx's shape inference safe to run on any model, once per
/// process, before anything reads one (the version converter infers shapes
/// too). libonnx 1.12 crashes on some inputs it should reject (the import
/// fuzzer found ConvTranspose, Conv, ConvInteger and MaxUnpool, each an
/// unchecked index into a dim list):
///  * the ops txc imports (or that the version converter turns into one:
///    Upsample) keep their inference, with a check first where it crashed;
///  * every other op infers nothing. Its node cannot be imported anyway
///    (the importer lists it), and nodes that read its outputs are not
///    imported either, so no shape of theirs is needed.
static void guardLibonnxShapeInference() {
  static std::once_flag once;
  std::call_once(once, [] {
    static const std::map<std::string, void (*)(onnx::InferenceContext &)>
        checks = {
            {"ConvTranspose", checkConvolutionRanks<0, 1>},
            {"Conv", checkConvolutionRanks<0, 1>},
            {"ConvInteger", checkConvolutionRanks<0, 1>},
            {"QLinearConv", checkConvolutionRanks<0, 3>},
        };
    std::vector<std::string> supported = supportedOnnxOps();
    std::set<std::string> inferred(supported.begin(), supported.end());
    inferred.insert("Upsample");
    for (const onnx::OpSchema &entry :
         onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
      const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
          entry.Name(), entry.SinceVersion(), entry.domain());
      if (!schema)
        continue;
      bool standard = entry.domain().empty() || entry.domain() == "ai.onnx";
      if (!standard || !inferred.count(entry.Name())) {
        setInference(*schema, [](onnx::InferenceContext &) {});
        continue;
      }
      auto check = checks.find(entry.Name());
      if (check == checks.end())
        continue;
      setInference(*schema, [original =
                                 schema->GetTypeAndShapeInferenceFunction(),
                             check = check->second](
                                onnx::InferenceContext &ctx) {
        check(ctx);
        original(ctx);
      });
    }
  });
}

/// Ops whose conversion to opset 17 by libonnx changes the model rather than
/// the op: Scan-8 (a batch axis and sequence_lens) becomes Scan-9 by its
/// adapter dropping the batch axis from the graph's inputs and outputs, so
/// the converted model would expect other shapes than the exported one.
static bool checkConvertibleOps(const onnx::ModelProto &model, int64_t opset,
                                llvm::StringRef displayName,
                                DiagnosticEngine &diags) {
  if (opset >= 9)
    return true;
  bool ok = true;
  for (int i = 0; i < model.graph().node_size(); ++i) {
    const onnx::NodeProto &node = model.graph().node(i);
    if (node.op_type() != "Scan" ||
        !(node.domain().empty() || node.domain() == "ai.onnx"))
      continue;
    Loc loc;
    loc.pointer = "/graph/node/" + std::to_string(i);
    Diagnostic &diag = diags.error(
        DiagCategory::NotRepresentable, "onnx-unsupported-node", displayName,
        loc,
        "node " + nodeLabel(node, unsigned(i)) + " (Scan-8, opset " +
            std::to_string(opset) +
            ") cannot be imported: ONNX's version converter makes Scan-8 a "
            "Scan-9 by removing the batch axis from the graph's inputs and "
            "outputs, which changes the shapes the model is called with");
    Diagnostic note;
    note.severity = Severity::Note;
    note.category = diag.category;
    note.id = diag.id;
    note.message = "hint: export the model at opset 9 or later";
    diag.notes.push_back(std::move(note));
    ok = false;
  }
  return ok;
}

std::shared_ptr<const onnx::ModelProto>
txc::onnximport::loadOnnxModel(llvm::StringRef bytes,
                               llvm::StringRef displayName,
                               const OnnxImportOptions &options,
                               DiagnosticEngine &diags) {
  guardLibonnxShapeInference();
  std::shared_ptr<onnx::ModelProto> model =
      parseModel(bytes, displayName, diags);
  if (!model || !inlineExternalData(*model, options, displayName, diags))
    return nullptr;
  std::optional<int64_t> opset = defaultDomainOpset(*model);
  if (!opset) {
    reportNoDefaultOpset(*model, displayName, diags);
    return nullptr;
  }
  if (*opset > kOnnxTargetOpset || *opset < kOnnxMinOpset) {
    diags.error(DiagCategory::NotRepresentable, "onnx-opset", displayName,
                Loc(),
                "the model uses opset " + llvm::Twine(*opset) +
                    "; txc imports opsets " + llvm::Twine(kOnnxMinOpset) +
                    " to " + llvm::Twine(kOnnxTargetOpset) +
                    " (export with opset_version=" +
                    llvm::Twine(kOnnxTargetOpset) + ")");
    return nullptr;
  }
  if (!guarded(DiagCategory::Invalid, displayName, "onnx-checker",
               "the ONNX checker rejects the model", diags,
               [&] { onnx::checker::check_model(*model); }) ||
      !checkOutputsDefined(model->graph(), {}, "/graph", displayName, diags) ||
      !checkTensorTypes(*model, displayName, diags) ||
      !checkConvertibleOps(*model, *opset, displayName, diags))
    return nullptr;
  if (*opset != kOnnxTargetOpset) {
    auto converted = std::make_shared<onnx::ModelProto>();
    // The model passed the checker: a conversion libonnx cannot do (an op
    // change it has no adapter for) is txc's limit, not the model's fault.
    if (!guarded(DiagCategory::NotRepresentable, displayName,
                 "onnx-version-converter",
                 "the ONNX version converter cannot convert the model from "
                 "opset " +
                     llvm::Twine(*opset) + " to " +
                     llvm::Twine(kOnnxTargetOpset),
                 diags, [&] {
                   *converted = onnx::version_conversion::ConvertVersion(
                       *model, int(kOnnxTargetOpset));
                 }))
      return nullptr;
    model = std::move(converted);
  }
  // Strict: a node whose types or shapes contradict its op's schema is an
  // error that names the node. Data propagation lets ONNX follow shape
  // computations too (its results are only cross-checked).
  onnx::ShapeInferenceOptions inference(/*check_type=*/true, /*error_mode=*/1,
                                      /*enable_data_propagation=*/true);
  if (!guarded(DiagCategory::Invalid, displayName, "onnx-shape-inference",
               "ONNX shape inference rejects the model", diags, [&] {
                 onnx::shape_inference::InferShapes(
                     *model, onnx::OpSchemaRegistry::Instance(), inference);
               }))
    return nullptr;
  return model;
}

int64_t txc::onnximport::schemaSinceVersion(const onnx::NodeProto &node,
                                            int64_t opset) {
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
      node.op_type(), int(opset), node.domain());
  return schema ? schema->since_version() : 0;
}
