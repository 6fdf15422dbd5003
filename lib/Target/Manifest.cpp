//===- Manifest.cpp - The constraint manifest -----------------------------===//
//
// The manifest is the artifact's contract as JSON, for review and CI. Keys
// are written in a fixed order and nothing depends on time, paths or the
// environment, so compiling twice gives identical bytes.
//
//===----------------------------------------------------------------------===//
#include "txc/Pipeline/Workspace.h"
#include "txc/Program/ProgramJson.h"
#include "txc/Support/Version.h"
#include "txc/Target/AbiEmitter.h"
#include "txc/Target/ArtifactInfo.h"
#include "txc/Target/Weights.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

using namespace txc;
using json = nlohmann::ordered_json;

static json tensorsToJson(const std::vector<ContractTensor> &tensors,
                          const std::vector<std::string> &names,
                          const std::string &file, bool outputs,
                          const Contract &contract) {
  json list = json::array();
  for (size_t i = 0; i < tensors.size(); ++i) {
    const ContractTensor &tensor = tensors[i];
    json entry;
    entry["name"] = tensor.name;
    entry["index"] = i;
    entry["dtype"] = dtypeName(tensor.type.dtype).str();
    entry["dtype_code"] = int(tensor.type.dtype);
    entry["shape"] = shapeToJson(tensor.type.shape, names);
    if (outputs) {
      entry["value"] = tensor.value;
      entry["max_bytes"] = contract.maxOutputBytes(i);
    }
    entry["location"] = locationToJson(file, tensor.loc);
    list.push_back(std::move(entry));
  }
  return list;
}

static std::string hexWord(uint64_t value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format_hex(value, 18);
  return text;
}

/// "weights" and "constants": where every constant lives.
static void addConstants(json &manifest, const Program &program,
                         const WeightsPlan &weights, const ArtifactInfo &info) {
  bool external = weights.mode == WeightsMode::External;
  json summary;
  summary["mode"] = external ? "external" : "embedded";
  summary["alignment"] = WeightsBlobLayout::kAlignment;
  summary["stored_bytes"] = weights.storedBytes();
  if (external) {
    summary["file"] = info.weightsFile;
    summary["file_bytes"] = weights.blobFileBytes;
    summary["sha256"] = Sha256::toHex(weights.blobFileSha256);
    summary["fingerprint"] = hexWord(weights.fingerprint);
  } else {
    summary["section"] = kWeightsSection.str();
  }
  manifest["weights"] = std::move(summary);

  json list = json::array();
  for (size_t i = 0; i < program.constants.size(); ++i) {
    const ConstantDecl &constant = program.constants[i];
    const ConstantPlacement &placement = weights.constants[i];
    json entry;
    entry["name"] = constant.name;
    entry["dtype"] = dtypeName(constant.type.dtype).str();
    entry["shape"] = shapeToJson(constant.type.shape, {});
    entry["bytes"] = constant.data.size;
    entry["sha256"] = Sha256::toHex(placement.sha256);
    if (constant.isFromFile()) {
      json source;
      source["file"] = constant.file;
      if (!constant.tensor.empty())
        source["tensor"] = constant.tensor;
      entry["source"] = std::move(source);
    } else {
      entry["source"] = "inline";
    }
    switch (placement.storage) {
    case ConstantStorage::Code:
      entry["storage"] = "code";
      break;
    case ConstantStorage::Embedded:
      entry["storage"] = "embedded";
      entry["symbol"] = weights.blobs[placement.blob].symbol;
      break;
    case ConstantStorage::External:
      entry["storage"] = "external";
      entry["offset"] = weights.blobs[placement.blob].offset;
      break;
    }
    entry["location"] = locationToJson(info.programFile, constant.loc);
    list.push_back(std::move(entry));
  }
  manifest["constants"] = std::move(list);
}

/// The values a guard compares, by kind (docs/manifest.md, "operands"):
/// with them and the symbols, inputs and outputs, a manifest describes the
/// guards completely, so that `txc verify` can evaluate them.
static json guardOperandsToJson(const Guard &g,
                                const std::vector<std::string> &names) {
  json operands = json::object();
  switch (g.kind) {
  case GuardKind::InputCount:
  case GuardKind::OutputCount:
    operands["count"] = g.value;
    break;
  case GuardKind::DType:
    operands["dtype_code"] = g.value;
    break;
  case GuardKind::Rank:
    operands["rank"] = g.value;
    break;
  case GuardKind::StaticDim:
    operands["value"] = g.value;
    break;
  case GuardKind::SymbolForm:
  case GuardKind::SymbolRange:
    operands["coefficient"] = g.value;
    operands["rest"] = g.expr.toString(names);
    break;
  case GuardKind::SymbolMultiple:
    operands["multiple_of"] = g.value;
    break;
  case GuardKind::SymbolValues:
    operands["values"] = g.values;
    break;
  case GuardKind::DimEquals:
    operands["expected"] = g.expr.toString(names);
    break;
  case GuardKind::BufferSize:
    operands["bytes"] = g.expr.toString(names);
    break;
  case GuardKind::IndexInRange:
    operands["bound"] = g.expr.toString(names); // indices must be below it
    if (g.wrapsNegative) // and at least -bound
      operands["wraps_negative"] = true;
    if (g.column >= 0) // only the indices[..., column]
      operands["column"] = g.column;
    break;
  case GuardKind::InputsArray:
  case GuardKind::OutputsArray:
  case GuardKind::DataPointer:
  case GuardKind::NoAlias:
    break;
  }
  return operands;
}

/// The variants (docs/specialization.md), by id. A variant's guards are the
/// generic ones with each bound symbol's range narrowed to its value: the
/// list names those symbol_range guards and the value they then require.
static json variantsToJson(const Contract &contract) {
  json list = json::array();
  for (const ContractVariant &variant : contract.variants) {
    json bindings = json::object();
    json guards = json::array();
    for (const SymbolBinding &binding : variant.bindings) {
      const ContractSymbol &symbol = contract.symbols[binding.symbol];
      bindings[symbol.name] = binding.value;
      for (const Guard &g : contract.guards)
        if (g.kind == GuardKind::SymbolRange &&
            g.symbol == int32_t(binding.symbol))
          guards.push_back({{"guard", g.id},
                            {"expression", symbol.name + " == " +
                                               std::to_string(binding.value)}});
    }
    list.push_back({{"id", variant.id},
                    {"name", variant.name(contract)},
                    {"bindings", std::move(bindings)},
                    {"guards", std::move(guards)}});
  }
  return list;
}

std::string txc::emitManifest(const Contract &contract,
                              const ArtifactInfo &info) {
  std::vector<std::string> names = contract.symbolNames();
  json manifest;
  manifest["format"] = kManifestFormat;
  manifest["version"] = kManifestVersion;
  manifest["program"] = {{"name", contract.programName},
                         {"file", info.programFile},
                         {"sha256", info.programSha256}};
  manifest["compiler"] = {{"txc", txcVersion()}, {"llvm", llvmVersion()}};
  json target;
  target["triple"] = info.target.triple;
  target["cpu"] = info.target.cpu;
  target["cpu_from_host"] = info.target.hostCPU;
  // Only for an object compiled for several CPUs: the listed ones, the
  // baseline (`cpu`) first.
  if (!info.target.moreCPUs.empty())
    target["cpus"] = info.target.cpus();
  target["features"] = info.target.features;
  target["opt_level"] = info.target.optLevel;
  manifest["target"] = std::move(target);
  bool external = info.weights && info.weights->mode == WeightsMode::External;
  json entryPoints;
  if (external)
    entryPoints["run_with_weights"] = runWithWeightsSymbol(contract);
  else
    entryPoints["run"] = contract.runSymbol();
  entryPoints["run_with_workspace"] =
      runWithWorkspaceSymbol(contract, external);
  entryPoints["run_with_options"] = runWithOptionsSymbol(contract);
  entryPoints["output_shapes"] = contract.shapesSymbol();
  entryPoints["workspace_size"] = workspaceSizeSymbol(contract);
  entryPoints["error_message"] = contract.messageSymbol();
  manifest["entry_points"] = std::move(entryPoints);
  manifest["abi"] = {{"version", AbiLayout::kVersion},
                     {"max_rank", AbiLayout::kMaxRank},
                     {"tensor_descriptor_bytes", AbiLayout::kTensorSize},
                     {"status_bytes", AbiLayout::kStatusSize},
                     {"layout", "dense row-major, no strides"},
                     {"workspace_bytes", info.workspaceBytes},
                     {"workspace_alignment", kWorkspaceAlignment},
                     {"workspace_dynamic", info.workspaceDynamic}};
  if (info.imports)
    manifest["imports"] = *info.imports;

  // Where each symbol's value comes from: the guard that defines it.
  json symbols = json::array();
  for (size_t s = 0; s < contract.symbols.size(); ++s) {
    const ContractSymbol &symbol = contract.symbols[s];
    json entry;
    entry["name"] = symbol.name;
    entry["min"] = symbol.min;
    entry["max"] = symbol.max;
    entry["multiple_of"] = symbol.multipleOf;
    if (!symbol.values.empty())
      entry["values"] = symbol.values;
    for (const Guard &g : contract.guards)
      if (g.kind == GuardKind::SymbolRange && g.symbol == int32_t(s)) {
        entry["determined_by"] =
            contract.inputs[g.tensor].name + ".shape[" +
            std::to_string(g.dim) + "]";
        break;
      }
    entry["location"] = locationToJson(info.programFile, symbol.loc);
    symbols.push_back(std::move(entry));
  }
  manifest["symbols"] = std::move(symbols);
  manifest["inputs"] = tensorsToJson(contract.inputs, names, info.programFile,
                                     false, contract);
  manifest["outputs"] = tensorsToJson(contract.outputs, names,
                                      info.programFile, true, contract);
  if (info.program && info.weights)
    addConstants(manifest, *info.program, *info.weights, info);

  json guards = json::array();
  for (const Guard &g : contract.guards) {
    json entry;
    entry["id"] = g.id;
    entry["kind"] = guardKindName(g.kind).str();
    entry["code"] = int(g.code);
    entry["code_name"] = statusCodeMacro(g.code).str();
    entry["expression"] = g.expression;
    entry["message"] = g.message;
    if (g.side != TensorSide::None) {
      const auto &tensors =
          g.side == TensorSide::Input ? contract.inputs : contract.outputs;
      entry["tensor"] = {
          {"side", g.side == TensorSide::Input ? "input" : "output"},
          {"index", g.tensor},
          {"name", tensors[g.tensor].name}};
    }
    if (g.dim >= 0)
      entry["dim"] = g.dim;
    if (g.symbol >= 0)
      entry["symbol"] = contract.symbols[g.symbol].name;
    entry["operands"] = guardOperandsToJson(g, names);
    if (isDataDependent(g.kind)) {
      // Checked by the kernel on the tensors' values, not by output_shapes
      // or `txc verify`.
      entry["data_dependent"] = true;
      entry["node"] = g.node;
      auto bound = [&](const ShapeExpr &e) {
        return e.getConstant() ? json(*e.getConstant())
                               : json(e.toString(names));
      };
      entry["valid_range"] = {{"min", bound(lowestValidIndex(g))},
                              {"max", bound(highestValidIndex(g))}};
    }
    entry["location"] = locationToJson(info.programFile, g.origin);
    guards.push_back(std::move(entry));
  }
  manifest["guards"] = std::move(guards);
  if (!contract.variants.empty())
    manifest["variants"] = variantsToJson(contract);

  // The codes this object can return.
  json codes = json::array();
  for (const StatusCodeInfo &code : kStatusCodes) {
    if (canReturn(code, external, info.needsWorkspace()))
      codes.push_back({{"code", int(code.code)},
                       {"name", code.macro.str()},
                       {"meaning", code.meaning.str()}});
  }
  manifest["status_codes"] = std::move(codes);

  manifest["numerics"] = {
      {"ieee754", true},
      {"fast_math", false},
      {"fp_contraction", "off: separate multiplies and adds are never fused; "
                         "contractions (matmul) may use fused multiply-add"},
      {"denormals", "preserved"},
      {"f16_bf16", "each op computes in f32 and rounds to the result type"},
      {"integer_overflow", "wraps (two's complement)"},
      {"integer_division", "truncates toward zero; x/0 = 0; INT_MIN/-1 = "
                           "INT_MIN"},
      {"reduction_order", "unspecified; results may differ from a "
                          "sequential sum by rounding"},
      {"math_functions", "C library calls, except at -O2 and -O3: f32 exp "
                         "on vectors is an inline polynomial within 1 ulp of "
                         "the correctly rounded result, subnormals kept; f32 "
                         "erf is a rational approximation within 5 ulp of "
                         "glibc's erff"}};
  return manifest.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}
