//===- ToolsTest.cpp ------------------------------------------------------===//
//
// The contract tools: a manifest read back gives the contract it was written
// from (byte-identical manifest, identical guards); the reader refuses
// manifests whose guards disagree with their tensors; shape-only calls;
// the boundary and random calls of txc testgen.
//
//===----------------------------------------------------------------------===//
#include "txc/Target/ArtifactInfo.h"
#include "txc/Tools/Calls.h"
#include "txc/Tools/ManifestReader.h"

#include "TestUtil.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace txc;
using namespace txc::test;
using json = nlohmann::ordered_json;

namespace {

/// Every guard kind: a*S+b, S+T, multiple_of, a dim bound in a later pass,
/// two outputs.
const char *kAllGuards = R"({
  "format": "txc.program", "version": 1, "name": "all_guards",
  "symbols": [
    {"name": "S", "min": 0, "max": 100},
    {"name": "T", "min": 2, "max": 64, "multiple_of": 2}
  ],
  "inputs": [
    {"name": "X", "dtype": "f32", "shape": ["S + T"]},
    {"name": "Y", "dtype": "f32", "shape": ["T"]},
    {"name": "Z", "dtype": "i32", "shape": ["2*S+1", 3]}
  ],
  "constants": [{"name": "c", "dtype": "f32", "shape": [3], "data": [1, 2, 3]}],
  "nodes": [{"name": "r", "op": "relu", "operands": ["X"]}],
  "outputs": [{"name": "R", "value": "r"}, "c"]
})";

/// Products of symbols, a negative rest, a rank-0 input, bool and i64.
const char *kMulti = R"({
  "format": "txc.program", "version": 1, "name": "multi",
  "symbols": [
    {"name": "B", "min": 1, "max": 64},
    {"name": "S", "min": 0, "max": 40, "multiple_of": 4},
    {"name": "N", "min": 1, "max": 30},
    {"name": "K", "min": 2, "max": 9}
  ],
  "inputs": [
    {"name": "A", "dtype": "f32", "shape": ["B", "S + K"]},
    {"name": "P", "dtype": "i64", "shape": ["B*K"]},
    {"name": "Q", "dtype": "f32", "shape": ["3*N-2", 2]},
    {"name": "M", "dtype": "f32", "shape": ["S", "K"]},
    {"name": "s", "dtype": "f32", "shape": []},
    {"name": "F", "dtype": "bool", "shape": ["2*K+4"]}
  ],
  "nodes": [
    {"name": "r", "op": "relu", "operands": ["A"]},
    {"name": "q", "op": "add", "operands": ["Q", "s"]}
  ],
  "outputs": [{"name": "R", "value": "r"}, {"name": "Qs", "value": "q"}]
})";

/// No inputs at all.
const char *kNoInputs = R"({
  "format": "txc.program", "version": 1, "name": "noinputs", "inputs": [],
  "constants": [{"name": "c", "dtype": "f32", "shape": [2], "data": [1, 2]}],
  "nodes": [], "outputs": ["c"]
})";

ArtifactInfo infoFor(const Program &program) {
  ArtifactInfo info;
  info.programFile = "prog.json";
  info.programSha256 = program.sha256;
  info.target.triple = "x86_64-pc-linux-gnu";
  info.target.cpu = "znver4";
  info.target.features = "+avx2,+fma";
  info.target.optLevel = 2;
  return info;
}

std::unique_ptr<Manifest> readText(const std::string &text,
                                   DiagnosticEngine &diags) {
  return readManifest(std::make_shared<SourceFile>("m.json", text), diags);
}

struct Artifact {
  std::unique_ptr<Loaded> loaded;
  std::string manifestText;
  std::unique_ptr<Manifest> manifest;
  DiagnosticEngine diags;
};

std::unique_ptr<Artifact> artifactOf(const std::string &programText) {
  auto artifact = std::make_unique<Artifact>();
  artifact->loaded = contract(programText, "prog.json");
  if (!artifact->loaded->contract)
    return artifact;
  artifact->manifestText = emitManifest(*artifact->loaded->contract,
                                        infoFor(*artifact->loaded->program));
  artifact->manifest = readText(artifact->manifestText, artifact->diags);
  return artifact;
}

class RoundTrip : public ::testing::TestWithParam<const char *> {};

} // namespace

TEST_P(RoundTrip, ManifestGivesBackItsContract) {
  auto artifact = artifactOf(GetParam());
  ASSERT_TRUE(artifact->loaded->contract) << dump(artifact->loaded->diags);
  ASSERT_TRUE(artifact->manifest) << dump(artifact->diags);
  const Contract &original = *artifact->loaded->contract;
  const Manifest &m = *artifact->manifest;
  const Contract &read = m.contract;

  // Written again, it is the same manifest byte for byte.
  ArtifactInfo info;
  info.programFile = m.programFile;
  info.programSha256 = m.programSha256;
  info.target.triple = m.target.triple;
  info.target.cpu = m.target.cpu;
  info.target.hostCPU = m.target.cpuFromHost;
  info.target.features = m.target.features;
  info.target.optLevel = unsigned(m.target.optLevel);
  EXPECT_EQ(emitManifest(read, info), artifact->manifestText);

  // And every field evaluateGuards and the messages use is the same.
  EXPECT_EQ(read.entryPrefix, original.entryPrefix);
  ASSERT_EQ(read.guards.size(), original.guards.size());
  for (size_t i = 0; i < original.guards.size(); ++i) {
    const Guard &a = original.guards[i], &b = read.guards[i];
    SCOPED_TRACE("guard " + std::to_string(i) + ": " + a.expression);
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.code, b.code);
    EXPECT_EQ(a.side, b.side);
    EXPECT_EQ(a.tensor, b.tensor);
    EXPECT_EQ(a.dim, b.dim);
    EXPECT_EQ(a.symbol, b.symbol);
    EXPECT_EQ(a.value, b.value);
    EXPECT_TRUE(a.expr == b.expr);
    EXPECT_EQ(a.expression, b.expression);
    EXPECT_EQ(a.message, b.message);
    EXPECT_EQ(a.origin.pointer, b.origin.pointer);
    EXPECT_EQ(a.origin.line, b.origin.line);
    EXPECT_EQ(a.origin.column, b.origin.column);
  }
  ASSERT_EQ(read.inputs.size(), original.inputs.size());
  for (size_t i = 0; i < original.inputs.size(); ++i)
    EXPECT_TRUE(read.inputs[i].type == original.inputs[i].type);
  ASSERT_EQ(read.outputs.size(), original.outputs.size());
  for (size_t o = 0; o < original.outputs.size(); ++o)
    EXPECT_TRUE(read.outputs[o].type == original.outputs[o].type);

  // Both contracts give the same outcome for every boundary and random
  // call, including the status fields and the message.
  std::vector<CallSpec> calls = boundaryCalls(original);
  std::vector<CallSpec> random = randomCalls(original, 200, 7);
  calls.insert(calls.end(), random.begin(), random.end());
  for (const CallSpec &call : calls) {
    SCOPED_TRACE(call.name);
    CallOutcome a = evaluateCall(original, call), b = evaluateCall(read, call);
    EXPECT_EQ(a.status.code, b.status.code);
    EXPECT_EQ(a.status.guard, b.status.guard);
    EXPECT_EQ(a.status.actual, b.status.actual);
    EXPECT_EQ(a.status.expectedMin, b.status.expectedMin);
    EXPECT_EQ(a.message, b.message);
    EXPECT_EQ(a.outputShapes, b.outputShapes);
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, RoundTrip,
                         ::testing::Values(kAllGuards, kMulti, kNoInputs));

TEST(RoundTrip, LinearSample) {
  auto sample = linearSample();
  ASSERT_TRUE(sample);
  auto artifact = artifactOf(sample->contents().str());
  ASSERT_TRUE(artifact->manifest) << dump(artifact->diags);
  EXPECT_EQ(artifact->manifest->contract.guards.size(), 24u);
  EXPECT_EQ(artifact->manifest->determinedBy[0], "X.shape[0]");
}

//===----------------------------------------------------------------------===//
// The reader refuses manifests whose guards could mislead the evaluation
//===----------------------------------------------------------------------===//

namespace {
/// The manifest of all-guards with one edit, and the diagnostics of
/// reading it back.
std::string readEdited(const std::function<void(json &)> &edit) {
  auto artifact = artifactOf(kAllGuards);
  if (!artifact->manifest)
    return "the unedited manifest is not readable";
  json m = json::parse(artifact->manifestText);
  edit(m);
  DiagnosticEngine diags;
  auto manifest = readText(m.dump(2), diags);
  if (manifest)
    return "accepted";
  return dump(diags);
}

json &guardOf(json &m, const std::string &kind) {
  for (json &g : m["guards"])
    if (g["kind"] == kind)
      return g;
  static json none;
  return none;
}
} // namespace

TEST(ManifestReader, RejectsInconsistentGuards) {
  EXPECT_EQ(readEdited([](json &) {}), "accepted");
  EXPECT_NE(readEdited([](json &m) {
              guardOf(m, "symbol_range")["operands"]["coefficient"] = 3;
            }).find("operands disagree with the input's shape"),
            std::string::npos);
  EXPECT_NE(readEdited([](json &m) {
              guardOf(m, "symbol_form")["operands"]["coefficient"] = 0;
            }).find("a coefficient of 0 determines no symbol"),
            std::string::npos);
  EXPECT_NE(readEdited([](json &m) {
              guardOf(m, "static_dim")["dim"] = 5;
            }).find("has no dimension 5"),
            std::string::npos);
  EXPECT_NE(readEdited([](json &m) {
              // Z's symbol_form guard (15) before Z's rank guard (14).
              auto &guards = m["guards"];
              std::swap(guards[14], guards[15]);
              guards[14]["id"] = 14;
              guards[15]["id"] = 15;
            }).find("dimension 0 of 'Z' is checked before its rank"),
            std::string::npos);
  EXPECT_NE(readEdited([](json &m) {
              guardOf(m, "dtype")["tensor"]["index"] = 9;
            }).find("there is no input 9"),
            std::string::npos);
  EXPECT_NE(readEdited([](json &m) {
              guardOf(m, "symbol_multiple")["symbol"] = "Q";
            }).find("unknown symbol 'Q'"),
            std::string::npos);
  EXPECT_NE(readEdited([](json &m) {
              m["guards"][3]["id"] = 7;
            }).find("guard ids are their positions"),
            std::string::npos);
  EXPECT_NE(readEdited([](json &m) {
              m["version"] = 2;
            }).find("manifest version 2 is not supported"),
            std::string::npos);
  EXPECT_NE(readEdited([](json &m) {
              m["abi"]["version"] = 3;
            }).find("ABI version 3 is not supported"),
            std::string::npos);
  // An ABI 1 manifest (48-byte txc_status) still reads: `txc diff` compares
  // it with a newer one and reports the ABI change as breaking.
  EXPECT_EQ(readEdited([](json &m) { m["abi"]["version"] = 1; }), "accepted");
  EXPECT_NE(readEdited([](json &m) {
              m["inputs"][0]["shape"][0] = "S + U";
            }).find("not a dimension expression"),
            std::string::npos);
  // Unknown keys are ignored (newer manifests with more sections).
  EXPECT_EQ(readEdited([](json &m) { m["constants"] = json::array(); }),
            "accepted");
}

TEST(ManifestReader, ReportsLocations) {
  DiagnosticEngine diags;
  EXPECT_FALSE(readText("{\"format\": \"txc.manifest\", \"version\": 1,\n"
                        " \"program\": 3}",
                        diags));
  const Diagnostic *d = find(diags, "invalid-manifest");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->loc.pointer, "/program");
  EXPECT_EQ(d->loc.line, 2u);
  EXPECT_EQ(d->loc.column, 13u);
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

TEST(Calls, ShapeOption) {
  std::string name, error;
  std::optional<int32_t> dtype;
  std::vector<int64_t> dims;
  ASSERT_TRUE(parseShapeOption("X=8x4", name, dtype, dims, error));
  EXPECT_EQ(name, "X");
  EXPECT_FALSE(dtype);
  EXPECT_EQ(dims, (std::vector<int64_t>{8, 4}));
  ASSERT_TRUE(parseShapeOption("X=f32:8x4", name, dtype, dims, error));
  EXPECT_EQ(dtype, int32_t(DType::F32));
  ASSERT_TRUE(parseShapeOption("s=[]", name, dtype, dims, error));
  EXPECT_TRUE(dims.empty());
  ASSERT_TRUE(parseShapeOption("s=", name, dtype, dims, error));
  EXPECT_TRUE(dims.empty());
  ASSERT_TRUE(parseShapeOption("X=99:-1x9223372036854775807", name, dtype, dims,
                               error));
  EXPECT_EQ(dtype, 99);
  EXPECT_EQ(dims, (std::vector<int64_t>{-1, INT64_MAX}));
  EXPECT_FALSE(parseShapeOption("X8x4", name, dtype, dims, error));
  EXPECT_FALSE(parseShapeOption("X=f31:8", name, dtype, dims, error));
  EXPECT_NE(error.find("'f31' is not a dtype"), std::string::npos);
  EXPECT_FALSE(parseShapeOption("X=8x", name, dtype, dims, error));
  EXPECT_FALSE(
      parseShapeOption("X=9223372036854775808", name, dtype, dims, error));
}

TEST(Calls, ShapeOnlyCallsPassPointerSizeAndAliasGuards) {
  auto loaded = contractOfLinear();
  ASSERT_TRUE(loaded && loaded->contract);
  const Contract &c = *loaded->contract;
  CallSpec call;
  call.inputs = {{1, {5, 4}}, {1, {4, 3}}, {1, {3}}};
  CallOutcome outcome = evaluateCall(c, call);
  EXPECT_TRUE(outcome.pass()) << outcome.message;
  EXPECT_EQ(outcome.outputShapes, (std::vector<std::vector<int64_t>>{{5, 3}}));
  // The descriptors: distinct addresses 2^49 apart, sizes no guard rejects.
  std::vector<CallTensor> in = shapeOnlyInputs(c, call);
  std::vector<CallTensor> out = shapeOnlyOutputs(c);
  EXPECT_EQ(in[1].data - in[0].data, uint64_t(1) << 49);
  EXPECT_EQ(out[0].data, uint64_t(4) << 49);
  EXPECT_EQ(in[0].sizeBytes, INT64_MAX);

  call.inputs[0].dims = {5, 7};
  outcome = evaluateCall(c, call);
  EXPECT_EQ(outcome.status.code, StatusCode::Dim);
  EXPECT_EQ(outcome.status.guard, 8);
  EXPECT_EQ(outcome.message, "input 'X' dimension 1 must be 4, got 7 "
                             "[guard 8: X.shape[1] == 4]");
  EXPECT_TRUE(outcome.outputShapes.empty());

  ExpectedOutcome expect = expectationOf(outcome);
  EXPECT_TRUE(matchesExpectation(expect, outcome));
  expect.guard = 7;
  EXPECT_FALSE(matchesExpectation(expect, outcome));
  expect.guard = 8;
  EXPECT_FALSE(expectedMessageDiffers(expect, outcome));
  // The code and the guard decide; another message is only reported.
  expect.message = "something else";
  EXPECT_TRUE(matchesExpectation(expect, outcome));
  EXPECT_TRUE(expectedMessageDiffers(expect, outcome));
  expect.message.clear();
  EXPECT_TRUE(matchesExpectation(expect, outcome));
  EXPECT_FALSE(expectedMessageDiffers(expect, outcome));
  EXPECT_FALSE(matchesExpectation(ExpectedOutcome(), outcome));
}

//===----------------------------------------------------------------------===//
// txc testgen
//===----------------------------------------------------------------------===//

namespace {
const CallSpec *named(const std::vector<CallSpec> &calls,
                      const std::string &name) {
  for (const CallSpec &call : calls)
    if (call.name == name)
      return &call;
  return nullptr;
}
} // namespace

TEST(TestGen, BoundaryCallsOfEveryGuardKind) {
  auto loaded = contract(kAllGuards);
  ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  std::vector<CallSpec> calls = boundaryCalls(*loaded->contract);
  struct Expected {
    const char *name;
    StatusCode code;
    const char *kind; ///< of the failing guard
  } expected[] = {
      {"S=min (0)", StatusCode::OK, ""},
      {"S=max (100)", StatusCode::OK, ""},
      {"S=min-1 (-1)", StatusCode::SymbolRange, "symbol_range"},
      {"S=max+1 (101)", StatusCode::SymbolRange, "symbol_range"},
      {"Z.shape[0]=2, not of the form 2*S+1", StatusCode::Dim, "symbol_form"},
      {"X.shape[0] with S=1, the other dims with S=0 (inconsistent)",
       StatusCode::SymbolMismatch, "dim_equals"},
      {"T=max (64)", StatusCode::OK, ""},
      {"T=min-1 (1)", StatusCode::SymbolRange, "symbol_range"},
      {"T=max+1 (65)", StatusCode::SymbolRange, "symbol_range"},
      {"T=not a multiple of 2 (3)", StatusCode::SymbolDivisibility,
       "symbol_multiple"},
      {"X.shape[0] with T=4, the other dims with T=2 (inconsistent)",
       StatusCode::SymbolMismatch, "dim_equals"},
      {"Z dtype f32", StatusCode::DType, "dtype"},
      {"Y rank 2", StatusCode::Rank, "rank"},
      {"Y rank 0", StatusCode::Rank, "rank"},
      {"Z.shape[1]=4 (declared 3)", StatusCode::Dim, "static_dim"},
  };
  for (const Expected &e : expected) {
    SCOPED_TRACE(e.name);
    const CallSpec *call = named(calls, e.name);
    ASSERT_TRUE(call);
    ASSERT_TRUE(call->expect);
    EXPECT_EQ(call->expect->code, e.code);
    CallOutcome outcome = evaluateCall(*loaded->contract, *call);
    EXPECT_TRUE(matchesExpectation(*call->expect, outcome));
    if (e.code != StatusCode::OK) {
      EXPECT_EQ(
          guardKindName(loaded->contract->guards[outcome.status.guard].kind),
          e.kind);
    }
  }
  // T=min (2) is the base call: listed once.
  EXPECT_TRUE(named(calls, "S=min (0)"));
  EXPECT_FALSE(named(calls, "T=min (2)"));
  EXPECT_FALSE(named(calls, "every symbol at its smallest valid value"));
}

TEST(TestGen, LargestMultipleAndNoInputs) {
  auto loaded = contract(program(
      R"({"name": "B", "min": 3, "max": 30, "multiple_of": 8})",
      R"({"name": "X", "dtype": "f32", "shape": ["B"]})", "", R"("X")"));
  ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  std::vector<CallSpec> calls = boundaryCalls(*loaded->contract);
  const CallSpec *largest = named(calls, "B=largest multiple of 8 (24)");
  ASSERT_TRUE(largest);
  EXPECT_TRUE(largest->expect->pass);
  const CallSpec *min = named(calls, "B=min (3)");
  ASSERT_TRUE(min);
  EXPECT_EQ(min->expect->code, StatusCode::SymbolDivisibility);
  const CallSpec *nonMultiple = named(calls, "B=not a multiple of 8 (9)");
  ASSERT_TRUE(nonMultiple);
  EXPECT_EQ(nonMultiple->expect->code, StatusCode::SymbolDivisibility);

  auto none = contract(kNoInputs);
  ASSERT_TRUE(none->contract) << dump(none->diags);
  std::vector<CallSpec> only = boundaryCalls(*none->contract);
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].name, "the declared shapes");
  EXPECT_TRUE(only[0].expect->pass);
}

TEST(TestGen, RandomCallsAreReproducible) {
  auto loaded = contract(kMulti);
  ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  auto a = randomCalls(*loaded->contract, 100, 42);
  auto b = randomCalls(*loaded->contract, 100, 42);
  auto c = randomCalls(*loaded->contract, 100, 43);
  ASSERT_EQ(a.size(), 100u);
  size_t passed = 0, differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t k = 0; k < a[i].inputs.size(); ++k) {
      EXPECT_EQ(a[i].inputs[k].dims, b[i].inputs[k].dims);
      EXPECT_EQ(a[i].inputs[k].dtype, b[i].inputs[k].dtype);
      differ += a[i].inputs[k].dims != c[i].inputs[k].dims;
    }
    passed += a[i].expect->pass;
  }
  EXPECT_GT(differ, 50u);
  // Both outcomes are common.
  EXPECT_GT(passed, 20u);
  EXPECT_LT(passed, 80u);
}

//===----------------------------------------------------------------------===//
// Symbols that declare their values
//===----------------------------------------------------------------------===//

namespace {
const std::string kDeclaredValues = program(
    R"({"name": "S", "min": 1, "max": 1024, "values": [512, 128, 256]})",
    R"({"name": "X", "dtype": "f32", "shape": ["S", 4]})", "", R"("X")");

const Guard *guardOfKind(const Contract &contract, GuardKind kind) {
  for (const Guard &g : contract.guards)
    if (g.kind == kind)
      return &g;
  return nullptr;
}
} // namespace

TEST(RoundTrip, DeclaredValues) {
  auto artifact = artifactOf(kDeclaredValues);
  ASSERT_TRUE(artifact->manifest) << dump(artifact->diags);
  const Contract &read = artifact->manifest->contract;
  EXPECT_EQ(read.symbols[0].values, std::vector<int64_t>({128, 256, 512}));
  const Guard *values = guardOfKind(read, GuardKind::SymbolValues);
  ASSERT_TRUE(values);
  EXPECT_EQ(values->values, std::vector<int64_t>({128, 256, 512}));
  EXPECT_EQ(values->code, StatusCode::SymbolRange);
  // After the range guard, which reports values outside the range.
  const Guard *range = guardOfKind(read, GuardKind::SymbolRange);
  ASSERT_TRUE(range);
  EXPECT_LT(range->id, values->id);
}

TEST(ManifestReader, RejectsValuesThatDisagree) {
  auto artifact = artifactOf(kDeclaredValues);
  ASSERT_TRUE(artifact->manifest) << dump(artifact->diags);
  auto readWith = [&](const std::function<void(json &)> &edit) {
    json m = json::parse(artifact->manifestText);
    edit(m);
    DiagnosticEngine diags;
    return readText(m.dump(2), diags) ? std::string("accepted") : dump(diags);
  };
  EXPECT_NE(readWith([](json &m) {
              for (json &g : m["guards"])
                if (g["kind"] == "symbol_values")
                  g["operands"]["values"] = {128, 256};
            }).find("disagree with the symbol's values"),
            std::string::npos);
  EXPECT_NE(readWith([](json &m) { m["symbols"][0]["values"] = {256, 128}; })
                .find("distinct, sorted"),
            std::string::npos);
  EXPECT_NE(readWith([](json &m) { m["symbols"][0]["values"] = {2000}; })
                .find("outside its range"),
            std::string::npos);
}

TEST(TestGen, DeclaredValuesAndTheirNeighbours) {
  auto loaded = contract(kDeclaredValues);
  ASSERT_TRUE(loaded->contract) << dump(loaded->diags);
  std::vector<CallSpec> calls = boundaryCalls(*loaded->contract);
  for (const char *name : {"S=declared (128)", "S=declared (256)",
                           "S=declared (512)"}) {
    const CallSpec *call = named(calls, name);
    ASSERT_TRUE(call) << name;
    EXPECT_TRUE(call->expect->pass) << name;
  }
  int32_t valuesGuard =
      int32_t(guardOfKind(*loaded->contract, GuardKind::SymbolValues)->id);
  for (const char *name : {"S=not declared (127)", "S=not declared (129)",
                           "S=not declared (511)", "S=not declared (513)",
                           "S=min (1)", "S=max (1024)"}) {
    const CallSpec *call = named(calls, name);
    ASSERT_TRUE(call) << name;
    EXPECT_EQ(call->expect->code, StatusCode::SymbolRange) << name;
    EXPECT_EQ(call->expect->guard, valuesGuard) << name;
  }
  // Random calls take their valid values from the set.
  for (const CallSpec &call : randomCalls(*loaded->contract, 40, 3))
    if (call.expect->pass)
      EXPECT_TRUE(llvm::is_contained(
          std::vector<int64_t>{128, 256, 512}, call.inputs[0].dims[0]));
}
