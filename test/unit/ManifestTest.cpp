//===- ManifestTest.cpp ---------------------------------------------------===//
//
// The constraint manifest and the C header: deterministic bytes, key order,
// every guard with its location, and the header's macros.
//
//===----------------------------------------------------------------------===//
#include "txc/Support/Version.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Target/ArtifactInfo.h"

#include "TestUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>
#include <set>

using namespace txc;
using namespace txc::test;
using json = nlohmann::ordered_json;

namespace {

ArtifactInfo artifactInfo(const Loaded &loaded) {
  ArtifactInfo info;
  info.programFile = "linear.json";
  info.programSha256 = loaded.program ? loaded.program->sha256 : "";
  info.target.triple = "x86_64-pc-linux-gnu";
  info.target.cpu = "znver4";
  info.target.features = "+avx2,+fma";
  info.target.hostCPU = false;
  info.target.optLevel = 3;
  return info;
}

std::vector<std::string> keysOf(const json &object) {
  std::vector<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it)
    keys.push_back(it.key());
  return keys;
}

class LinearArtifact : public ::testing::Test {
protected:
  void SetUp() override {
    loaded = contractOfLinear();
    ASSERT_TRUE(loaded);
    ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
    info = artifactInfo(*loaded);
    manifestText = emitManifest(*loaded->contract, info);
    manifest = json::parse(manifestText);
    header = emitCHeader(*loaded->contract, info);
  }
  const Contract &c() const { return *loaded->contract; }

  std::unique_ptr<Loaded> loaded;
  ArtifactInfo info;
  std::string manifestText;
  json manifest;
  std::string header;
};

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

TEST_F(LinearArtifact, ManifestIsDeterministic) {
  EXPECT_EQ(emitManifest(c(), info), manifestText);
  // From a second, independent read of the same file.
  auto again = contractOfLinear();
  ASSERT_TRUE(again && again->contract);
  EXPECT_EQ(emitManifest(*again->contract, artifactInfo(*again)), manifestText);
  EXPECT_EQ(emitCHeader(*again->contract, artifactInfo(*again)), header);
  ASSERT_FALSE(manifestText.empty());
  EXPECT_EQ(manifestText.back(), '\n');
  // Two-space indentation, no trailing spaces.
  EXPECT_EQ(manifestText.rfind("{\n  \"format\": \"txc.manifest\",\n", 0), 0u);
  EXPECT_EQ(manifestText.find(" \n"), std::string::npos);
}

TEST_F(LinearArtifact, ManifestKeyOrder) {
  EXPECT_EQ(keysOf(manifest),
            std::vector<std::string>({"format", "version", "program",
                                      "compiler", "target", "entry_points",
                                      "abi", "symbols", "inputs", "outputs",
                                      "guards", "status_codes", "numerics"}));
  EXPECT_EQ(keysOf(manifest["program"]),
            std::vector<std::string>({"name", "file", "sha256"}));
  EXPECT_EQ(keysOf(manifest["compiler"]),
            std::vector<std::string>({"txc", "llvm"}));
  EXPECT_EQ(keysOf(manifest["target"]),
            std::vector<std::string>(
                {"triple", "cpu", "cpu_from_host", "features", "opt_level"}));
  EXPECT_EQ(
      keysOf(manifest["entry_points"]),
      std::vector<std::string>(
          {"run", "run_with_workspace", "run_with_options", "output_shapes",
           "workspace_size", "error_message"}));
  EXPECT_EQ(keysOf(manifest["abi"]),
            std::vector<std::string>(
                {"version", "max_rank", "tensor_descriptor_bytes",
                 "status_bytes", "layout", "workspace_bytes",
                 "workspace_alignment", "workspace_dynamic"}));
  EXPECT_EQ(keysOf(manifest["symbols"][0]),
            std::vector<std::string>({"name", "min", "max", "multiple_of",
                                      "determined_by", "location"}));
  EXPECT_EQ(keysOf(manifest["inputs"][0]),
            std::vector<std::string>(
                {"name", "index", "dtype", "dtype_code", "shape", "location"}));
  EXPECT_EQ(
      keysOf(manifest["outputs"][0]),
      std::vector<std::string>({"name", "index", "dtype", "dtype_code", "shape",
                                "value", "max_bytes", "location"}));
  EXPECT_EQ(keysOf(manifest["guards"][0]),
            std::vector<std::string>({"id", "kind", "code", "code_name",
                                      "expression", "message", "operands",
                                      "location"}));
  EXPECT_EQ(keysOf(manifest["guards"][7]),
            std::vector<std::string>({"id", "kind", "code", "code_name",
                                      "expression", "message", "tensor", "dim",
                                      "symbol", "operands", "location"}));
  EXPECT_EQ(keysOf(manifest["guards"][7]["tensor"]),
            std::vector<std::string>({"side", "index", "name"}));
  EXPECT_EQ(keysOf(manifest["guards"][7]["location"]),
            std::vector<std::string>({"file", "line", "column", "pointer"}));
}

TEST_F(LinearArtifact, ManifestContents) {
  EXPECT_EQ(manifest["format"], "txc.manifest");
  EXPECT_EQ(manifest["version"], 1);
  EXPECT_EQ(manifest["program"]["name"], "linear");
  EXPECT_EQ(manifest["program"]["file"], "linear.json");
  EXPECT_EQ(manifest["program"]["sha256"], loaded->program->sha256);
  EXPECT_EQ(manifest["program"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(manifest["compiler"]["txc"], txcVersion());
  EXPECT_EQ(manifest["compiler"]["llvm"], llvmVersion());
  EXPECT_EQ(manifest["target"]["triple"], "x86_64-pc-linux-gnu");
  EXPECT_EQ(manifest["target"]["cpu"], "znver4");
  EXPECT_EQ(manifest["target"]["cpu_from_host"], false);
  EXPECT_EQ(manifest["target"]["features"], "+avx2,+fma");
  EXPECT_EQ(manifest["target"]["opt_level"], 3);
  EXPECT_EQ(manifest["entry_points"]["run"], "linear_run");
  EXPECT_EQ(manifest["entry_points"]["output_shapes"], "linear_output_shapes");
  EXPECT_EQ(manifest["entry_points"]["error_message"], "linear_error_message");
  EXPECT_EQ(manifest["abi"]["max_rank"], AbiLayout::kMaxRank);
  EXPECT_EQ(manifest["abi"]["tensor_descriptor_bytes"], 88);
  EXPECT_EQ(manifest["abi"]["status_bytes"], 56);

  const json &symbol = manifest["symbols"][0];
  EXPECT_EQ(symbol["name"], "B");
  EXPECT_EQ(symbol["min"], 1);
  EXPECT_EQ(symbol["max"], 4096);
  EXPECT_EQ(symbol["multiple_of"], 1);
  EXPECT_EQ(symbol["determined_by"], "X.shape[0]");
  EXPECT_EQ(symbol["location"], json({{"file", "linear.json"},
                                      {"line", 7},
                                      {"column", 5},
                                      {"pointer", "/symbols/0"}}));

  ASSERT_EQ(manifest["inputs"].size(), 3u);
  EXPECT_EQ(manifest["inputs"][0]["name"], "X");
  EXPECT_EQ(manifest["inputs"][0]["index"], 0);
  EXPECT_EQ(manifest["inputs"][0]["dtype"], "f32");
  EXPECT_EQ(manifest["inputs"][0]["dtype_code"], 1);
  EXPECT_EQ(manifest["inputs"][0]["shape"], json::parse("[\"B\", 4]"));
  EXPECT_EQ(manifest["inputs"][2]["name"], "b");
  EXPECT_EQ(manifest["inputs"][2]["shape"], json::parse("[3]"));
  EXPECT_EQ(manifest["inputs"][1]["location"]["line"], 11);
  ASSERT_EQ(manifest["outputs"].size(), 1u);
  EXPECT_EQ(manifest["outputs"][0]["name"], "Y");
  EXPECT_EQ(manifest["outputs"][0]["value"], "y");
  EXPECT_EQ(manifest["outputs"][0]["shape"], json::parse("[\"B\", 3]"));
  EXPECT_EQ(manifest["outputs"][0]["max_bytes"], 4096 * 3 * 4);
  EXPECT_EQ(manifest["outputs"][0]["location"]["line"], 19);

  // The codes of the guards; not TXC_E_WEIGHTS (embedded weights) nor
  // TXC_E_WORKSPACE (no workspace).
  ASSERT_EQ(manifest["status_codes"].size(), 12u);
  EXPECT_EQ(manifest["status_codes"][11]["name"], "TXC_E_INDEX_OUT_OF_RANGE");
  EXPECT_EQ(
      manifest["status_codes"][9],
      json({{"code", 9},
            {"name", "TXC_E_BUFFER_TOO_SMALL"},
            {"meaning", "a buffer is smaller than the tensor it holds"}}));
  EXPECT_EQ(manifest["numerics"]["fast_math"], false);
}

TEST_F(LinearArtifact, EveryGuardAppearsWithItsLocation) {
  const json &guards = manifest["guards"];
  ASSERT_EQ(guards.size(), c().guards.size());
  ASSERT_EQ(guards.size(), 24u);
  for (size_t i = 0; i < c().guards.size(); ++i) {
    const Guard &g = c().guards[i];
    const json &entry = guards[i];
    SCOPED_TRACE("guard " + std::to_string(i));
    EXPECT_EQ(entry["id"], i);
    EXPECT_EQ(entry["kind"], guardKindName(g.kind).str());
    EXPECT_EQ(entry["code"], int(g.code));
    EXPECT_EQ(entry["code_name"], statusCodeMacro(g.code).str());
    EXPECT_EQ(entry["expression"], g.expression);
    EXPECT_EQ(entry["message"], g.message);
    ASSERT_TRUE(entry.contains("location"));
    ASSERT_TRUE(g.origin.isKnown());
    EXPECT_EQ(entry["location"], json({{"file", "linear.json"},
                                       {"line", g.origin.line},
                                       {"column", g.origin.column},
                                       {"pointer", g.origin.pointer}}));
    EXPECT_EQ(entry.contains("tensor"), g.side != TensorSide::None);
    EXPECT_EQ(entry.contains("dim"), g.dim >= 0);
    EXPECT_EQ(entry.contains("symbol"), g.symbol >= 0);
  }
  EXPECT_EQ(guards[7]["tensor"],
            json({{"side", "input"}, {"index", 0}, {"name", "X"}}));
  EXPECT_EQ(guards[7]["dim"], 0);
  EXPECT_EQ(guards[7]["symbol"], "B");
  EXPECT_EQ(guards[7]["location"]["line"], 10);
  EXPECT_EQ(guards[7]["location"]["column"], 45);
  EXPECT_EQ(guards[7]["location"]["pointer"], "/inputs/0/shape/0");
  EXPECT_EQ(guards[7]["code_name"], "TXC_E_SYMBOL_RANGE");
  EXPECT_EQ(guards[23]["tensor"],
            json({{"side", "output"}, {"index", 0}, {"name", "Y"}}));
  EXPECT_EQ(guards[0]["location"]["pointer"], "/name");
}

TEST(Manifest, UnknownLocationsHaveNoLineOrColumn) {
  auto loaded = contractOfLinear();
  ASSERT_TRUE(loaded && loaded->contract);
  Contract c = *loaded->contract;
  c.guards[0].origin = Loc();
  json manifest = json::parse(emitManifest(c, artifactInfo(*loaded)));
  EXPECT_EQ(manifest["guards"][0]["location"],
            json({{"file", "linear.json"}, {"pointer", ""}}));
}

TEST(Manifest, SymbolWithoutADefiningGuard) {
  auto loaded = contract(program(
      "{\"name\": \"S\", \"min\": 1, \"max\": 8, \"multiple_of\": 2}, "
      "{\"name\": \"U\", \"min\": 0, \"max\": 3}",
      "{\"name\": \"x\", \"dtype\": \"i8\", \"shape\": [\"2*S\", 3]}",
      "{\"name\": \"y\", \"op\": \"relu\", \"operands\": [\"x\"]}", "\"y\""));
  ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  json manifest =
      json::parse(emitManifest(*loaded->contract, artifactInfo(*loaded)));
  EXPECT_EQ(manifest["symbols"][0]["determined_by"], "x.shape[0]");
  EXPECT_EQ(manifest["symbols"][0]["multiple_of"], 2);
  EXPECT_FALSE(manifest["symbols"][1].contains("determined_by"));
  EXPECT_EQ(manifest["inputs"][0]["shape"], json::parse("[\"2*S\", 3]"));
  EXPECT_EQ(manifest["outputs"][0]["max_bytes"], 48);
}

//===----------------------------------------------------------------------===//
// C header
//===----------------------------------------------------------------------===//

/// The value of `#define name value` in the header, or "<undefined>".
std::string macro(const std::string &header, const std::string &name) {
  std::string prefix = "#define " + name + " ";
  size_t pos = header.find("\n" + prefix);
  if (pos == std::string::npos)
    return "<undefined>";
  size_t start = pos + 1 + prefix.size();
  return header.substr(start, header.find('\n', start) - start);
}

TEST_F(LinearArtifact, HeaderMacros) {
  EXPECT_EQ(macro(header, "LINEAR_NUM_INPUTS"), "3");
  EXPECT_EQ(macro(header, "LINEAR_NUM_OUTPUTS"), "1");
  EXPECT_EQ(macro(header, "LINEAR_NUM_GUARDS"), "24");
  EXPECT_EQ(macro(header, "LINEAR_SYMBOL_B_MIN"), "INT64_C(1)");
  EXPECT_EQ(macro(header, "LINEAR_SYMBOL_B_MAX"), "INT64_C(4096)");
  EXPECT_EQ(macro(header, "LINEAR_SYMBOL_B_MULTIPLE_OF"), "INT64_C(1)");
  EXPECT_EQ(macro(header, "LINEAR_INPUT_X"), "0");
  EXPECT_EQ(macro(header, "LINEAR_INPUT_X_DTYPE"), "TXC_DTYPE_F32");
  EXPECT_EQ(macro(header, "LINEAR_INPUT_X_RANK"), "2");
  EXPECT_EQ(macro(header, "LINEAR_INPUT_W"), "1");
  // Tensor names keep their case.
  EXPECT_EQ(macro(header, "LINEAR_INPUT_b"), "2");
  EXPECT_EQ(macro(header, "LINEAR_INPUT_b_RANK"), "1");
  EXPECT_EQ(macro(header, "LINEAR_INPUT_X_MAX_BYTES"), "<undefined>");
  EXPECT_EQ(macro(header, "LINEAR_OUTPUT_Y"), "0");
  EXPECT_EQ(macro(header, "LINEAR_OUTPUT_Y_DTYPE"), "TXC_DTYPE_F32");
  EXPECT_EQ(macro(header, "LINEAR_OUTPUT_Y_RANK"), "2");
  EXPECT_EQ(macro(header, "LINEAR_OUTPUT_Y_MAX_BYTES"),
            "INT64_C(49152) /* at the symbols' maximum values */");
  // The ABI constants shared by every header.
  EXPECT_EQ(macro(header, "TXC_ABI_VERSION"), "2");
  EXPECT_EQ(macro(header, "TXC_MAX_RANK"), "8");
  EXPECT_EQ(macro(header, "TXC_DTYPE_F32"), "1");
  EXPECT_EQ(macro(header, "TXC_DTYPE_BF16"), "4");
  EXPECT_EQ(macro(header, "TXC_DTYPE_BOOL"), "10");
  EXPECT_EQ(macro(header, "TXC_OK"), "0 /* success */");
  EXPECT_EQ(macro(header, "TXC_E_ALIAS"),
            "10 /* an output overlaps an input or another output */");
  EXPECT_EQ(macro(header, "TXC_TENSOR_OUTPUT"), "2");
  EXPECT_EQ(macro(header, "TXC_GENERATED_LINEAR_H"), "<undefined>");
  EXPECT_NE(header.find("#ifndef TXC_GENERATED_LINEAR_H\n#define "
                        "TXC_GENERATED_LINEAR_H\n"),
            std::string::npos);
  EXPECT_NE(header.find("#endif /* TXC_GENERATED_LINEAR_H */\n"),
            std::string::npos);
}

TEST_F(LinearArtifact, HeaderDeclaresTheEntryPoints) {
  EXPECT_NE(header.find("int32_t linear_run(const txc_tensor *inputs, int64_t "
                        "num_inputs,\n    txc_tensor *outputs, int64_t "
                        "num_outputs, txc_status *status);"),
            std::string::npos);
  EXPECT_NE(header.find("int32_t linear_output_shapes(const txc_tensor "
                        "*inputs, int64_t num_inputs,"),
            std::string::npos);
  EXPECT_NE(header.find("int32_t linear_error_message(const txc_status "
                        "*status, char *buffer, size_t size);"),
            std::string::npos);
  EXPECT_NE(header.find("extern \"C\" {"), std::string::npos);
  EXPECT_NE(header.find("/* input 'X': f32[B,4] */"), std::string::npos);
  EXPECT_NE(header.find("/* output 'Y': f32[B,3] */"), std::string::npos);
  EXPECT_NE(header.find("from linear.json (program 'linear')"),
            std::string::npos);
  EXPECT_NE(header.find("Target: x86_64-pc-linux-gnu, CPU znver4."),
            std::string::npos);
  EXPECT_NE(header.find("(sizeof(txc_tensor) == 88)"), std::string::npos);
  EXPECT_NE(header.find("(sizeof(txc_status) == 56)"), std::string::npos);
}

TEST_F(LinearArtifact, HeaderMacrosAreDefinedOnce) {
  std::regex define("#define ([A-Za-z_][A-Za-z0-9_]*)");
  std::set<std::string> seen;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), define);
       it != std::sregex_iterator(); ++it)
    EXPECT_TRUE(seen.insert((*it)[1].str()).second)
        << "defined twice: " << (*it)[1].str();
  EXPECT_GT(seen.size(), 40u);
}

TEST(Header, EntryPrefixNamesTheMacros) {
  auto sample = linearSample();
  ASSERT_TRUE(sample);
  auto loaded = verify(sample->contents().str());
  ASSERT_TRUE(loaded->verified);
  auto c = buildContract(*loaded->program, "net_v2", loaded->diags);
  ASSERT_TRUE(c);
  std::string header = emitCHeader(*c, artifactInfo(*loaded));
  EXPECT_EQ(macro(header, "NET_V2_NUM_INPUTS"), "3");
  EXPECT_EQ(macro(header, "NET_V2_INPUT_X"), "0");
  EXPECT_NE(header.find("int32_t net_v2_run("), std::string::npos);
  EXPECT_NE(header.find("#ifndef TXC_GENERATED_NET_V2_H"), std::string::npos);
  EXPECT_EQ(header.find("LINEAR_"), std::string::npos);
}

TEST(Header, ProgramWithoutSymbols) {
  auto loaded = contract(program(
      "", "{\"name\": \"x\", \"dtype\": \"u8\", \"shape\": [2, 3]}",
      "{\"name\": \"y\", \"op\": \"relu\", \"operands\": [\"x\"]}", "\"y\""));
  ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  std::string header = emitCHeader(*loaded->contract, artifactInfo(*loaded));
  EXPECT_EQ(header.find("P_SYMBOL_"), std::string::npos);
  EXPECT_EQ(header.find("/* Symbols:"), std::string::npos);
  EXPECT_EQ(macro(header, "P_INPUT_x_DTYPE"), "TXC_DTYPE_U8");
  EXPECT_EQ(macro(header, "P_OUTPUT_y_MAX_BYTES"),
            "INT64_C(6) /* at the symbols' maximum values */");
}

TEST(Header, UnsignedDTypeCodes) {
  auto loaded = contract(
      program("", "{\"name\": \"x\", \"dtype\": \"u64\", \"shape\": [2, 3]}",
              "{\"name\": \"y\", \"op\": \"shift_right\", "
              "\"operands\": [\"x\", \"x\"]}",
              "\"y\""));
  ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  std::string header = emitCHeader(*loaded->contract, artifactInfo(*loaded));
  EXPECT_EQ(macro(header, "P_INPUT_x_DTYPE"), "TXC_DTYPE_U64");
  EXPECT_EQ(macro(header, "P_OUTPUT_y_MAX_BYTES"),
            "INT64_C(48) /* at the symbols' maximum values */");
  // The appended codes; the runtime header is checked against these.
  std::string runtime = emitRuntimeHeader();
  EXPECT_EQ(macro(runtime, "TXC_DTYPE_BOOL"), "10");
  EXPECT_EQ(macro(runtime, "TXC_DTYPE_U16"), "11");
  EXPECT_EQ(macro(runtime, "TXC_DTYPE_U32"), "12");
  EXPECT_EQ(macro(runtime, "TXC_DTYPE_U64"), "13");
}

} // namespace
