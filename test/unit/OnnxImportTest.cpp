//===- OnnxImportTest.cpp - txc import onnx on models built in memory -----===//
//
// Models are built with libonnx's protobuf classes and imported from their
// bytes (importOnnxModel): the name mapping, determinism, inline and stored
// initializers, and the errors that need no file.
//
//===----------------------------------------------------------------------===//
#include "txc/Import/OnnxImport.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace txc;

namespace {

/// A model reading `inputName` [batch, 4], adding a [4] initializer (4 or
/// 32 elements wide) and returning `outputName`.
onnx::ModelProto makeModel(const std::string &inputName,
                           const std::string &initializerName,
                           const std::string &outputName, int width = 4) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name("g");
  onnx::TensorProto *init = graph->add_initializer();
  init->set_name(initializerName);
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(width);
  for (int i = 0; i < width; ++i)
    init->add_float_data(0.5f * i);
  onnx::NodeProto *node = graph->add_node();
  node->set_op_type("Add");
  node->set_name("add.0");
  node->add_input(inputName);
  node->add_input(initializerName);
  node->add_output(outputName);
  auto addValue = [&](onnx::ValueInfoProto *info, const std::string &name) {
    info->set_name(name);
    auto *tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(onnx::TensorProto::FLOAT);
    tensor->mutable_shape()->add_dim()->set_dim_param("batch");
    tensor->mutable_shape()->add_dim()->set_dim_value(width);
  };
  addValue(graph->add_input(), inputName);
  addValue(graph->add_output(), outputName);
  return model;
}

std::optional<OnnxImportResult> import(const onnx::ModelProto &model,
                                       DiagnosticEngine &diags) {
  OnnxImportOptions options;
  options.dims = {"batch=1:8"};
  options.programName = "m";
  return importOnnxModel(model.SerializeAsString(), "m.onnx", options,
                         "m.safetensors", diags);
}

TEST(OnnxImport, KeepsIdentifiersAndMapsOtherNames) {
  DiagnosticEngine diags;
  std::optional<OnnxImportResult> result =
      import(makeModel("input.1", "9bias", "x_1"), diags);
  ASSERT_TRUE(result) << diags.diagnostics().front().message;
  const std::string &json = result->programJson;
  // Identifiers ("x_1") are kept; "input.1" and "9bias" are mapped.
  EXPECT_NE(json.find("{\"name\": \"input_1\", \"dtype\": \"f32\", "
                      "\"shape\": [\"batch\", 4], \"description\": \"ONNX "
                      "input 'input.1'\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\": \"v9bias\""), std::string::npos) << json;
  EXPECT_NE(json.find("{\"name\": \"x_1\", \"op\": \"add\", \"operands\": "
                      "[\"input_1\", \"v9bias\"], \"description\": \"ONNX "
                      "node 'add.0' (Add)\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\": \"x_1\", \"value\": \"x_1\"}"),
            std::string::npos)
      << json;
}

TEST(OnnxImport, ReservedIdentifiersWinOverMappedNames) {
  // "a.b" maps to "a_b", which the model uses itself for its output: the
  // input becomes a_b_2 and the output keeps its name.
  DiagnosticEngine diags;
  std::optional<OnnxImportResult> result =
      import(makeModel("a.b", "w", "a_b"), diags);
  ASSERT_TRUE(result);
  EXPECT_NE(result->programJson.find("{\"name\": \"a_b_2\", \"dtype\""),
            std::string::npos)
      << result->programJson;
  EXPECT_NE(result->programJson.find("{\"name\": \"a_b\", \"op\": \"add\""),
            std::string::npos);
}

TEST(OnnxImport, SmallInitializersInlineLargeOnesStored) {
  DiagnosticEngine diags;
  std::optional<OnnxImportResult> small = import(makeModel("x", "w", "y"), diags);
  ASSERT_TRUE(small);
  EXPECT_NE(small->programJson.find("\"data\": [0.0, 0.5, 1.0, 1.5]"),
            std::string::npos)
      << small->programJson;
  EXPECT_TRUE(small->weights.empty());

  std::optional<OnnxImportResult> large =
      import(makeModel("x", "w.0", "y", /*width=*/32), diags);
  ASSERT_TRUE(large);
  EXPECT_NE(large->programJson.find("\"file\": \"m.safetensors\", "
                                    "\"tensor\": \"w.0\""),
            std::string::npos)
      << large->programJson;
  // 8-byte length, a JSON header padded to 8 bytes, then 32 floats.
  ASSERT_GE(large->weights.size(), 8u + 128u);
  uint64_t headerSize = 0;
  for (int i = 0; i < 8; ++i)
    headerSize |= uint64_t(uint8_t(large->weights[i])) << (8 * i);
  EXPECT_EQ(headerSize % 8, 0u);
  EXPECT_EQ(large->weights.size(), 8 + headerSize + 128);
  EXPECT_NE(large->weights.find("\"w.0\":{\"dtype\":\"F32\",\"shape\":[32],"
                                "\"data_offsets\":[0,128]}"),
            std::string::npos);
}

TEST(OnnxImport, IsDeterministic) {
  onnx::ModelProto model = makeModel("input.1", "w", "out.0", 32);
  DiagnosticEngine diags;
  std::optional<OnnxImportResult> first = import(model, diags);
  std::optional<OnnxImportResult> second = import(model, diags);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->programJson, second->programJson);
  EXPECT_EQ(first->weights, second->weights);
}

TEST(OnnxImport, RejectsTruncatedBytes) {
  std::string bytes = makeModel("x", "w", "y", 32).SerializeAsString();
  DiagnosticEngine diags;
  OnnxImportOptions options;
  options.dims = {"batch=1:8"};
  EXPECT_FALSE(importOnnxModel(llvm::StringRef(bytes).drop_back(20), "m.onnx",
                               options, "m.safetensors", diags));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.exitCode(), ExitInvalidProgram);
  EXPECT_EQ(diags.diagnostics().front().id, "onnx-parse");
}

TEST(OnnxImport, ExternalDataNeedsTheModelsFile) {
  // Imported from bytes alone (no model path), a tensor's external data has
  // no directory to be found in: an error, and no file is opened.
  onnx::ModelProto model = makeModel("x", "w", "y");
  onnx::TensorProto *init = model.mutable_graph()->mutable_initializer(0);
  init->clear_float_data();
  init->set_data_location(onnx::TensorProto::EXTERNAL);
  auto *entry = init->add_external_data();
  entry->set_key("location");
  entry->set_value("w.bin");
  DiagnosticEngine diags;
  EXPECT_FALSE(import(model, diags));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.exitCode(), ExitInvalidProgram);
  EXPECT_EQ(diags.diagnostics().front().message,
            "initializer 'w' keeps its data in the external file 'w.bin', "
            "but the model was not read from a file");
}

/// The ops of the first column of docs/onnx.md's "Supported ops" table.
std::set<std::string> documentedOps() {
  std::ifstream file(TXC_SOURCE_DIR "/docs/onnx.md");
  std::stringstream text;
  text << file.rdbuf();
  std::string doc = text.str();
  size_t begin = doc.find("\n## Supported ops");
  size_t end = doc.find("\n## ", begin + 1);
  std::set<std::string> ops;
  std::istringstream lines(doc.substr(begin, end - begin));
  std::regex name("`([A-Za-z][A-Za-z0-9]*)`");
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0)
      continue;
    std::string cell = line.substr(1, line.find('|', 1) - 1);
    for (std::sregex_iterator it(cell.begin(), cell.end(), name), last;
         it != last; ++it)
      ops.insert((*it)[1]);
  }
  return ops;
}

TEST(OnnxImport, DocumentedOpsAreTheConverters) {
  // docs/onnx.md's table is what test/onnx/node_tests.py runs the ONNX node
  // tests of: it must name exactly the ops with a converter.
  std::vector<std::string> converters = supportedOnnxOps();
  EXPECT_EQ(documentedOps(),
            std::set<std::string>(converters.begin(), converters.end()));
}

} // namespace
