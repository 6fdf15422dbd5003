//===- Calls.cpp - Shape-only calls of an artifact and their outcome ------===//
#include "txc/Tools/Calls.h"

#include "JsonReader.h"

#include "txc/Program/DType.h"
#include "txc/Program/Program.h"
#include "txc/Program/ProgramJson.h"
#include "txc/Support/InputFiles.h"
#include "txc/Tools/ManifestReader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>

#include <nlohmann/json.hpp>

using namespace txc;
using json = nlohmann::ordered_json;

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

/// Tensor k of a call (inputs first, then outputs) lives at (k + 1) << 49:
/// no tensor is larger than 2^48 bytes (the verifier's limit), so the
/// ranges never overlap, and 2048 tensors stay below 2^61.
static uint64_t fakeAddress(size_t k) { return uint64_t(k + 1) << 49; }

std::vector<CallTensor> txc::shapeOnlyInputs(const Contract &contract,
                                             const CallSpec &call) {
  std::vector<CallTensor> tensors;
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    CallTensor t;
    t.data = fakeAddress(i);
    t.sizeBytes = INT64_MAX;
    t.dtype = call.inputs[i].dtype;
    t.dims = call.inputs[i].dims;
    tensors.push_back(std::move(t));
  }
  return tensors;
}

std::vector<CallTensor> txc::shapeOnlyOutputs(const Contract &contract) {
  std::vector<CallTensor> tensors;
  for (size_t o = 0; o < contract.outputs.size(); ++o) {
    CallTensor t;
    t.data = fakeAddress(contract.inputs.size() + o);
    t.sizeBytes = INT64_MAX;
    tensors.push_back(std::move(t));
  }
  return tensors;
}

/// " (variant 2: B=8)" or " (generic)": the code the object runs for a
/// passing call; "" for an artifact without variants.
static std::string describeVariant(const Contract &contract, int32_t id) {
  if (contract.variants.empty())
    return "";
  if (id <= 0 || size_t(id) > contract.variants.size())
    return " (generic)";
  return " (variant " + std::to_string(id) + ": " +
         contract.variants[id - 1].text(contract) + ")";
}

CallOutcome txc::evaluateCall(const Contract &contract, const CallSpec &call) {
  std::vector<CallTensor> inputs = shapeOnlyInputs(contract, call);
  std::vector<CallTensor> outputs = shapeOnlyOutputs(contract);
  CallResult result = evaluateGuards(contract, &inputs, &outputs);
  CallOutcome outcome;
  outcome.status = result.status;
  if (outcome.pass())
    outcome.outputShapes = std::move(result.outputShapes);
  else
    outcome.message = formatStatusMessage(contract, outcome.status);
  return outcome;
}

bool txc::matchesExpectation(const ExpectedOutcome &expect,
                             const CallOutcome &outcome) {
  if (expect.pass || outcome.pass())
    return expect.pass == outcome.pass();
  return expect.code == outcome.status.code &&
         expect.guard == outcome.status.guard;
}

bool txc::expectedMessageDiffers(const ExpectedOutcome &expect,
                                 const CallOutcome &outcome) {
  return !expect.pass && !outcome.pass() && !expect.message.empty() &&
         expect.message != outcome.message;
}

ExpectedOutcome txc::expectationOf(const CallOutcome &outcome) {
  ExpectedOutcome expect;
  expect.pass = outcome.pass();
  if (!expect.pass) {
    expect.code = outcome.status.code;
    expect.guard = outcome.status.guard;
    expect.message = outcome.message;
  }
  return expect;
}

//===----------------------------------------------------------------------===//
// --shape NAME=[DTYPE:]DIMS
//===----------------------------------------------------------------------===//

/// A dtype name or an integer code.
static std::optional<int32_t> parseDTypeText(llvm::StringRef text) {
  if (auto dtype = parseDType(text))
    return int32_t(*dtype);
  int32_t code;
  if (!text.getAsInteger(10, code))
    return code;
  return std::nullopt;
}

static bool parseDims(llvm::StringRef text, std::vector<int64_t> &dims,
                      std::string &error) {
  dims.clear();
  text = text.trim();
  if (text.empty() || text == "[]")
    return true;
  llvm::SmallVector<llvm::StringRef, 8> parts;
  text.split(parts, 'x');
  for (llvm::StringRef part : parts) {
    int64_t dim;
    if (part.trim().getAsInteger(10, dim)) {
      error = "'" + part.str() +
              "' is not a dimension (an integer in the int64 range)";
      return false;
    }
    dims.push_back(dim);
  }
  if (dims.size() > 64) {
    error = "more than 64 dimensions";
    return false;
  }
  return true;
}

bool txc::parseShapeOption(llvm::StringRef text, std::string &name,
                           std::optional<int32_t> &dtype,
                           std::vector<int64_t> &dims, std::string &error) {
  auto [lhs, rhs] = text.split('=');
  if (lhs.size() == text.size() || lhs.empty()) {
    error = "'" + text.str() +
            "' is not of the form NAME=[DTYPE:]DIMS (e.g. X=8x4, X=f32:8x4)";
    return false;
  }
  name = lhs.str();
  dtype.reset();
  if (auto [type, rest] = rhs.split(':'); type.size() != rhs.size()) {
    dtype = parseDTypeText(type.trim());
    if (!dtype) {
      error = "'" + type.str() + "' is not a dtype (" + dtypeNameList() +
              ", or an integer code)";
      return false;
    }
    rhs = rest;
  }
  return parseDims(rhs, dims, error);
}

std::optional<CallSpec>
txc::callFromShapeOptions(const Contract &contract,
                          llvm::ArrayRef<std::string> specs,
                          DiagnosticEngine &diags) {
  CallSpec call;
  call.inputs.resize(contract.inputs.size());
  std::vector<bool> given(contract.inputs.size(), false);
  std::string names;
  for (size_t i = 0; i < contract.inputs.size(); ++i)
    names += (i ? ", " : "") + contract.inputs[i].name;
  bool ok = true;
  auto usage = [&](const llvm::Twine &message) {
    diags.error(DiagCategory::Usage, "usage", "", Loc(), message);
    ok = false;
  };
  for (const std::string &spec : specs) {
    std::string name, error;
    std::optional<int32_t> dtype;
    std::vector<int64_t> dims;
    if (!parseShapeOption(spec, name, dtype, dims, error)) {
      usage("--shape " + spec + ": " + error);
      continue;
    }
    size_t index = contract.inputs.size();
    for (size_t i = 0; i < contract.inputs.size(); ++i)
      if (contract.inputs[i].name == name)
        index = i;
    if (index == contract.inputs.size()) {
      usage("--shape " + spec + ": program '" + contract.programName +
            "' has no input '" + name + "' (its inputs: " +
            (names.empty() ? std::string("none") : names) + ")");
      continue;
    }
    if (given[index]) {
      usage("--shape: input '" + name + "' is given twice");
      continue;
    }
    given[index] = true;
    call.inputs[index].dtype =
        dtype ? *dtype : int32_t(contract.inputs[index].type.dtype);
    call.inputs[index].dims = std::move(dims);
  }
  for (size_t i = 0; i < given.size(); ++i)
    if (!given[i])
      usage("input '" + contract.inputs[i].name +
            "' has no shape; add --shape " + contract.inputs[i].name + "=DIMS");
  if (!ok)
    return std::nullopt;
  return call;
}

//===----------------------------------------------------------------------===//
// Calls files
//===----------------------------------------------------------------------===//

namespace {
class CallsFileParser {
public:
  CallsFileParser(const SourceFile &file, const Contract &contract,
                  DiagnosticEngine &diags)
      : r(file, diags, "invalid-calls", "calls file"), contract(contract) {}

  std::optional<std::vector<CallSpec>> parse(const JsonValue &root);

private:
  void parseCall(const JsonValue &value, const std::string &pointer);
  bool parseInput(const JsonValue &value, const std::string &pointer,
                  size_t index, CallInput &input);
  std::optional<ExpectedOutcome> parseExpect(const JsonValue &value,
                                             const std::string &pointer);

  JsonReader r;
  const Contract &contract;
  std::vector<CallSpec> calls;
};
} // namespace

bool CallsFileParser::parseInput(const JsonValue &value,
                                 const std::string &pointer, size_t index,
                                 CallInput &input) {
  input.dtype = int32_t(contract.inputs[index].type.dtype);
  if (value.isString()) {
    std::string name, error;
    std::optional<int32_t> dtype;
    if (!parseShapeOption(contract.inputs[index].name + "=" + value.getString(),
                          name, dtype, input.dims, error)) {
      r.error(value, pointer, error);
      return false;
    }
    if (dtype)
      input.dtype = *dtype;
    return true;
  }
  const JsonValue *shape = &value;
  std::string shapeAt = pointer;
  if (value.isObject()) {
    if (const JsonValue *dtype = value.find("dtype")) {
      std::string at = appendPointer(pointer, "dtype");
      std::optional<int32_t> code;
      if (dtype->isString())
        code = parseDTypeText(dtype->getString());
      else if (dtype->isInteger() && dtype->getInteger() >= INT32_MIN &&
               dtype->getInteger() <= INT32_MAX)
        code = int32_t(dtype->getInteger());
      if (!code) {
        r.error(*dtype, at,
                "expected a dtype name or an integer code, got " +
                    (dtype->isString() ? "'" + dtype->getString() + "'"
                                       : dtype->kindName().str()));
        return false;
      }
      input.dtype = *code;
    }
    shape = r.required(value, pointer, "shape");
    if (!shape)
      return false;
    shapeAt = appendPointer(pointer, "shape");
  }
  if (!shape->isArray()) {
    r.error(*shape, shapeAt,
            "expected a shape (an array of integers, or \"f32:8x4\"), got " +
                shape->kindName());
    return false;
  }
  if (shape->items().size() > 64) {
    r.error(*shape, shapeAt, "more than 64 dimensions");
    return false;
  }
  for (size_t d = 0; d < shape->items().size(); ++d) {
    auto dim = r.integer(shape->items()[d], appendPointer(shapeAt, d));
    if (!dim)
      return false;
    input.dims.push_back(*dim);
  }
  return true;
}

std::optional<ExpectedOutcome>
CallsFileParser::parseExpect(const JsonValue &value,
                             const std::string &pointer) {
  if (!r.isObject(value, pointer))
    return std::nullopt;
  auto result = r.stringAt(value, pointer, "result");
  if (!result)
    return std::nullopt;
  ExpectedOutcome expect;
  if (*result == "pass")
    return expect;
  if (*result != "fail") {
    r.error(*value.find("result"), appendPointer(pointer, "result"),
            "expected \"pass\" or \"fail\", got '" + *result + "'");
    return std::nullopt;
  }
  expect.pass = false;
  auto code = r.integerAt(value, pointer, "code");
  auto guard = r.integerAt(value, pointer, "guard");
  if (!code || !guard)
    return std::nullopt;
  if (*code < 1 || *code > 10) {
    r.error(*value.find("code"), appendPointer(pointer, "code"),
            "status code " + llvm::Twine(*code) + " is not a failure code");
    return std::nullopt;
  }
  expect.code = StatusCode(*code);
  expect.guard = int32_t(std::clamp<int64_t>(*guard, -1, INT32_MAX));
  if (const JsonValue *message = value.find("message"))
    if (auto text = r.string(*message, appendPointer(pointer, "message")))
      expect.message = *text;
  return expect;
}

void CallsFileParser::parseCall(const JsonValue &value,
                                const std::string &pointer) {
  CallSpec call;
  call.loc = r.locOf(value, pointer);
  if (!r.isObject(value, pointer))
    return;
  if (const JsonValue *name = value.find("name"))
    if (auto text = r.string(*name, appendPointer(pointer, "name")))
      call.name = *text;
  const JsonValue *inputs = r.required(value, pointer, "inputs");
  if (!inputs)
    return;
  std::string inputsAt = appendPointer(pointer, "inputs");
  if (!r.isObject(*inputs, inputsAt))
    return;
  call.inputs.resize(contract.inputs.size());
  std::vector<bool> given(contract.inputs.size(), false);
  bool ok = true;
  for (const JsonMember &member : inputs->members()) {
    std::string at = appendPointer(inputsAt, member.key);
    size_t index = contract.inputs.size();
    for (size_t i = 0; i < contract.inputs.size(); ++i)
      if (contract.inputs[i].name == member.key)
        index = i;
    if (index == contract.inputs.size()) {
      r.error(member.value, at,
              "program '" + contract.programName + "' has no input '" +
                  member.key + "'");
      ok = false;
      continue;
    }
    given[index] = true;
    ok &= parseInput(member.value, at, index, call.inputs[index]);
  }
  for (size_t i = 0; i < given.size(); ++i)
    if (!given[i]) {
      r.error(*inputs, inputsAt,
              "the call gives no shape for input '" + contract.inputs[i].name +
                  "'");
      ok = false;
    }
  if (const JsonValue *expect = value.find("expect")) {
    call.expect = parseExpect(*expect, appendPointer(pointer, "expect"));
    ok &= call.expect.has_value();
  }
  if (ok)
    calls.push_back(std::move(call));
}

std::optional<std::vector<CallSpec>>
CallsFileParser::parse(const JsonValue &root) {
  const JsonValue *list = &root;
  std::string pointer;
  if (root.isObject()) {
    if (auto format = r.stringAt(root, "", "format");
        format && *format != "txc.calls") {
      r.error(*root.find("format"), "/format",
              "not a calls file: format is '" + *format +
                  "', expected 'txc.calls'");
      return std::nullopt;
    }
    if (auto version = r.integerAt(root, "", "version");
        version && *version != 1) {
      r.error(*root.find("version"), "/version",
              "calls file version " + llvm::Twine(*version) +
                  " is not supported; this txc reads version 1");
      return std::nullopt;
    }
    list = r.required(root, "", "calls");
    pointer = "/calls";
    if (!list || r.failed())
      return std::nullopt;
  }
  if (!r.isArray(*list, pointer))
    return std::nullopt;
  for (size_t i = 0; i < list->items().size(); ++i)
    parseCall(list->items()[i], appendPointer(pointer, i));
  if (r.failed())
    return std::nullopt;
  return std::move(calls);
}

std::optional<std::vector<CallSpec>>
txc::readCallsFile(llvm::StringRef path, const Contract &contract,
                   DiagnosticEngine &diags) {
  std::optional<JsonDocument> document =
      readJsonDocument(path, "calls file", diags);
  if (!document)
    return std::nullopt;
  CallsFileParser parser(*document->file, contract, diags);
  return parser.parse(*document->root);
}

//===----------------------------------------------------------------------===//
// Writing calls and reports
//===----------------------------------------------------------------------===//

static json dtypeToJson(int32_t code) {
  for (DType dtype : kAllDTypes)
    if (int32_t(dtype) == code)
      return dtypeName(dtype).str();
  return code;
}

static json tensorToJson(int32_t dtype, llvm::ArrayRef<int64_t> dims) {
  json entry;
  entry["dtype"] = dtypeToJson(dtype);
  entry["shape"] = json::array();
  for (int64_t dim : dims)
    entry["shape"].push_back(dim);
  return entry;
}

static json callInputsToJson(const Contract &contract, const CallSpec &call) {
  json inputs = json::object();
  for (size_t i = 0; i < call.inputs.size(); ++i)
    inputs[contract.inputs[i].name] =
        tensorToJson(call.inputs[i].dtype, call.inputs[i].dims);
  return inputs;
}

static json expectationToJson(const ExpectedOutcome &expect) {
  json entry;
  entry["result"] = expect.pass ? "pass" : "fail";
  if (!expect.pass) {
    entry["code"] = int(expect.code);
    entry["code_name"] = statusCodeMacro(expect.code).str();
    entry["guard"] = expect.guard;
    if (!expect.message.empty())
      entry["message"] = expect.message;
  }
  return entry;
}

std::string txc::writeCallsFile(const Manifest &manifest,
                                const std::vector<CallSpec> &calls) {
  const Contract &contract = manifest.contract;
  json file;
  file["format"] = "txc.calls";
  file["version"] = 1;
  file["program"] = {{"name", contract.programName},
                     {"sha256", manifest.programSha256}};
  json list = json::array();
  for (const CallSpec &call : calls) {
    json entry;
    entry["name"] = call.name;
    entry["inputs"] = callInputsToJson(contract, call);
    if (call.expect)
      entry["expect"] = expectationToJson(*call.expect);
    list.push_back(std::move(entry));
  }
  file["calls"] = std::move(list);
  return file.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string txc::describeCallTensor(int32_t dtype,
                                    llvm::ArrayRef<int64_t> dims) {
  json type = dtypeToJson(dtype);
  std::string text = type.is_string() ? type.get<std::string>()
                                      : "dtype " + std::to_string(dtype);
  text += "[";
  for (size_t d = 0; d < dims.size(); ++d)
    text += (d ? "," : "") + std::to_string(dims[d]);
  return text + "]";
}

/// describeCall with `name` for the call's name.
static std::string describeCallNamed(const Contract &contract, size_t index,
                                     const CallSpec &call,
                                     llvm::StringRef name) {
  std::string text = "call " + std::to_string(index) + " (";
  if (!name.empty())
    return text + name.str() + ")";
  for (size_t i = 0; i < call.inputs.size(); ++i)
    text += (i ? ", " : "") + contract.inputs[i].name + "=" +
            describeCallTensor(call.inputs[i].dtype, call.inputs[i].dims);
  return text + ")";
}

std::string txc::describeCall(const Contract &contract, size_t index,
                              const CallSpec &call) {
  return describeCallNamed(contract, index, call, call.name);
}

std::string txc::callReportsToJson(const Manifest &manifest,
                                   const std::vector<CallReport> &reports) {
  const Contract &contract = manifest.contract;
  json root;
  root["program"] = contract.programName;
  json list = json::array();
  size_t passed = 0, unexpected = 0, checked = 0;
  for (size_t index = 0; index < reports.size(); ++index) {
    const CallReport &report = reports[index];
    const CallOutcome &outcome = report.outcome;
    json entry;
    entry["index"] = index;
    entry["name"] = report.call->name;
    entry["inputs"] = callInputsToJson(contract, *report.call);
    entry["result"] = outcome.pass() ? "pass" : "fail";
    if (outcome.pass()) {
      ++passed;
      json outputs = json::object();
      for (size_t o = 0; o < outcome.outputShapes.size(); ++o)
        outputs[contract.outputs[o].name] = tensorToJson(
            int32_t(contract.outputs[o].type.dtype), outcome.outputShapes[o]);
      entry["outputs"] = std::move(outputs);
      if (!contract.variants.empty())
        entry["variant"] = outcome.status.variant;
    } else {
      const CallStatus &s = outcome.status;
      entry["code"] = int(s.code);
      entry["code_name"] = statusCodeMacro(s.code).str();
      entry["guard"] = s.guard;
      if (s.guard >= 0 && size_t(s.guard) < contract.guards.size()) {
        const Guard &g = contract.guards[s.guard];
        entry["kind"] = guardKindName(g.kind).str();
        entry["expression"] = g.expression;
      }
      entry["message"] = outcome.message;
      entry["status"] = {{"tensor_kind", int(s.side)},
                         {"tensor_index", s.tensor},
                         {"dim", s.dim},
                         {"symbol", s.symbol},
                         {"expected_min", s.expectedMin},
                         {"expected_max", s.expectedMax},
                         {"actual", s.actual}};
      if (s.guard >= 0 && size_t(s.guard) < contract.guards.size())
        entry["location"] = locationToJson(manifest.programFile,
                                           contract.guards[s.guard].origin);
    }
    if (report.asExpected) {
      ++checked;
      entry["expected"] = expectationToJson(*report.call->expect);
      entry["as_expected"] = *report.asExpected;
      if (expectedMessageDiffers(*report.call->expect, outcome))
        entry["message_differs"] = true;
      unexpected += !*report.asExpected;
    }
    list.push_back(std::move(entry));
  }
  root["calls"] = std::move(list);
  json summary = {{"calls", reports.size()},
                  {"pass", passed},
                  {"fail", reports.size() - passed}};
  if (checked) {
    summary["checked"] = checked;
    summary["unexpected"] = unexpected;
  }
  root["summary"] = std::move(summary);
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string txc::callReportsToText(const Manifest &manifest,
                                   const std::vector<CallReport> &reports) {
  const Contract &contract = manifest.contract;
  std::string text;
  size_t passed = 0, unexpected = 0, checked = 0;
  for (size_t index = 0; index < reports.size(); ++index) {
    const CallReport &report = reports[index];
    const CallOutcome &outcome = report.outcome;
    // The call's name is any string of the calls file, and the messages
    // come from the manifest: shown as text diagnostics show them.
    std::string line =
        describeCallNamed(contract, index, *report.call,
                          printableValue(report.call->name)) +
        ": ";
    if (outcome.pass()) {
      ++passed;
      line += "pass:";
      for (size_t o = 0; o < outcome.outputShapes.size(); ++o)
        line += " " + contract.outputs[o].name + " " +
                describeCallTensor(int32_t(contract.outputs[o].type.dtype),
                                   outcome.outputShapes[o]);
      line += describeVariant(contract, outcome.status.variant);
    } else {
      line += "fail: " + statusCodeMacro(outcome.status.code).str() + ": " +
              outcome.message;
    }
    if (report.asExpected) {
      ++checked;
      if (*report.asExpected) {
        line += expectedMessageDiffers(*report.call->expect, outcome)
                    ? " (as expected, with another message)"
                    : " (as expected)";
      } else {
        ++unexpected;
        const ExpectedOutcome &e = *report.call->expect;
        line += e.pass ? " (UNEXPECTED: expected pass)"
                       : " (UNEXPECTED: expected " +
                             statusCodeMacro(e.code).str() + " at guard " +
                             std::to_string(e.guard) + ")";
      }
    }
    text += printableMessage(line) + "\n";
  }
  text += std::to_string(reports.size()) +
          (reports.size() == 1 ? " call: " : " calls: ") +
          std::to_string(passed) + " pass, " +
          std::to_string(reports.size() - passed) + " fail";
  if (checked)
    text += unexpected ? ", " + std::to_string(unexpected) + " not as expected"
                       : ", all as expected";
  return text + "\n";
}
