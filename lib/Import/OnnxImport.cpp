//===- OnnxImport.cpp - The `txc import onnx` job -------------------------===//
#include "txc/Import/OnnxImport.h"
#include "txc/Support/InputFiles.h"

#include "Importer.h"
#include "OnnxModel.h"
#include "ProgramWriter.h"

#include "txc/Analysis/Verifier.h"
#include "txc/Support/OutputFiles.h"
#include "txc/Support/SourceFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace txc;
using namespace txc::onnximport;

namespace {

void usageError(DiagnosticEngine &diags, const llvm::Twine &message) {
  diags.error(DiagCategory::Usage, "usage", "", Loc(), message);
}

std::optional<int64_t> parseInteger(llvm::StringRef text) {
  int64_t value;
  if (text.trim().getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// --dim NAME=MIN:MAX[:MULTIPLE]; the symbol is NAME made an identifier.
bool parseDims(const OnnxImportOptions &options, NameTable &symbolNames,
               std::map<std::string, Symbol> &ranges,
               std::map<std::string, int64_t> &statics,
               DiagnosticEngine &diags) {
  bool ok = true;
  for (const std::string &flag : options.dims) {
    auto [param, range] = llvm::StringRef(flag).rsplit('=');
    llvm::SmallVector<llvm::StringRef, 3> parts;
    range.split(parts, ':');
    std::optional<int64_t> min = parts.size() >= 2 ? parseInteger(parts[0])
                                                   : std::nullopt;
    std::optional<int64_t> max = parts.size() >= 2 ? parseInteger(parts[1])
                                                   : std::nullopt;
    std::optional<int64_t> multiple =
        parts.size() == 3 ? parseInteger(parts[2]) : std::optional<int64_t>(1);
    if (param.empty() || parts.size() > 3 || !min || !max || !multiple) {
      usageError(diags, "--dim '" + flag +
                            "' is not NAME=MIN:MAX or NAME=MIN:MAX:MULTIPLE");
      ok = false;
      continue;
    }
    if (*min < 0 || *min > *max || *max > ProgramLimits::kMaxTensorBytes ||
        *multiple < 1 || *multiple > (int64_t(1) << 32) ||
        (*max / *multiple) * *multiple < *min) {
      usageError(diags, "--dim '" + flag +
                            "' is not a range: it needs 0 <= MIN <= MAX <= "
                            "2^48, 1 <= MULTIPLE <= 2^32 and a multiple of "
                            "MULTIPLE in [MIN, MAX]");
      ok = false;
      continue;
    }
    if (ranges.count(param.str())) {
      usageError(diags, "--dim names '" + param + "' twice");
      ok = false;
      continue;
    }
    Symbol symbol;
    symbol.name = symbolNames.fresh(param);
    symbol.min = *min;
    symbol.max = *max;
    symbol.multipleOf = *multiple;
    ranges[param.str()] = symbol;
  }
  for (const std::string &flag : options.statics) {
    auto [param, valueText] = llvm::StringRef(flag).rsplit('=');
    std::optional<int64_t> value = parseInteger(valueText);
    if (param.empty() || !value || *value < 0 ||
        *value > ProgramLimits::kMaxTensorBytes) {
      usageError(diags, "--static '" + flag +
                            "' is not NAME=VALUE with 0 <= VALUE <= 2^48");
      ok = false;
    } else if (ranges.count(param.str()) || statics.count(param.str())) {
      usageError(diags, "'" + param + "' is given by --dim or --static twice");
      ok = false;
    } else {
      statics[param.str()] = *value;
    }
  }
  return ok;
}

/// The program's description: where it comes from and how names map.
std::string describeImport(const onnx::ModelProto &model,
                           llvm::StringRef displayName,
                           const std::map<std::string, Symbol> &ranges,
                           const std::map<std::string, int64_t> &statics) {
  std::string text = "Imported by txc import onnx from " +
                     llvm::sys::path::filename(displayName).str();
  if (!model.producer_name().empty())
    text += " (" + model.producer_name() + " " + model.producer_version() + ")";
  text += " at ONNX opset " + std::to_string(kOnnxTargetOpset) + ".";
  for (const auto &[param, symbol] : ranges)
    text += " Symbol " + symbol.name + " is the ONNX dim '" + param + "'.";
  for (const auto &[param, value] : statics)
    text += " The ONNX dim '" + param + "' is " + std::to_string(value) + ".";
  text += " Values, inputs and outputs whose ONNX name is not an identifier "
          "have it in their description.";
  return text;
}

std::string defaultProgramName(llvm::StringRef modelPath) {
  NameTable names;
  return names.fresh(llvm::sys::path::stem(modelPath));
}

/// A final check of what the importer built, with txc's own verifier: a
/// problem here is a bug of the importer.
bool verifyImported(Program &program, llvm::StringRef displayName,
                    DiagnosticEngine &diags) {
  DiagnosticEngine verifierDiags;
  if (verifyProgram(program, verifierDiags) && !verifierDiags.hasErrors())
    return true;
  std::string first = verifierDiags.diagnostics().empty()
                          ? "no message"
                          : verifierDiags.diagnostics().front().message;
  diags.error(DiagCategory::Internal, "internal", displayName, Loc(),
              "txc import produced a program that txc rejects (a bug of the "
              "importer): " +
                  first);
  return false;
}

} // namespace

std::optional<OnnxImportResult>
txc::importOnnxModel(llvm::StringRef modelBytes, llvm::StringRef displayName,
                     const OnnxImportOptions &options,
                     llvm::StringRef weightsFileName, DiagnosticEngine &diags) {
  NameTable symbolNames;
  std::map<std::string, Symbol> ranges;
  std::map<std::string, int64_t> statics;
  if (!parseDims(options, symbolNames, ranges, statics, diags))
    return std::nullopt;
  std::shared_ptr<const onnx::ModelProto> model =
      loadOnnxModel(modelBytes, displayName, options, diags);
  if (!model)
    return std::nullopt;
  GraphImporter importer(model, displayName.str(), weightsFileName.str(),
                         diags);
  importer.program.name = options.programName.empty()
                              ? defaultProgramName(displayName)
                              : options.programName;
  if (!importer.run(ranges, statics))
    return std::nullopt;
  for (const auto &[param, symbol] : ranges)
    if (symbol.name != param)
      importer.descriptions[symbol.name] = "ONNX dim '" + param + "'";
  if (!verifyImported(importer.program, displayName, diags))
    return std::nullopt;
  OnnxImportResult result;
  result.programJson = writeProgramJson(
      {importer.program, describeImport(*model, displayName, ranges, statics),
       importer.descriptions, importer.outputDescriptions});
  result.weights = writeSafetensors(importer.program.constants);
  result.weightsFileName = weightsFileName.str();
  return result;
}

std::vector<std::string> txc::supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const ConverterEntry &entry : allConverters())
    if (ops.empty() || ops.back() != entry.opType)
      ops.push_back(entry.opType);
  return ops;
}

/// The model's bytes, mapped by txc's one rule for input files (a regular
/// file, the size known and limited before reading), or a diagnostic.
static std::unique_ptr<llvm::MemoryBuffer>
readModelFile(llvm::StringRef path, DiagnosticEngine &diags) {
  InputPolicy policy;
  policy.maxBytes = kMaxOnnxModelBytes;
  auto file = mapInputFile(path, policy);
  if (file)
    return std::move(*file);
  InputError error = takeInputError(file.takeError());
  if (error.code == std::errc::file_too_large)
    diags.error(DiagCategory::Syntax, "limit", path, Loc(),
                "model file '" + path.str() +
                    "' is larger than protobuf's limit of 2 GiB; keep large "
                    "initializers in external data");
  else
    diags.error(DiagCategory::IO, "io-read", path, Loc(),
                "cannot read model file '" + path.str() + "': " +
                    error.reason);
  return nullptr;
}

/// The weights file as the program names it: relative to the program's
/// directory, which must contain it (txc's rule for weights files).
static std::optional<std::string>
weightsReference(llvm::StringRef programPath, llvm::StringRef weightsPath,
                 DiagnosticEngine &diags) {
  llvm::SmallString<256> programDir(llvm::sys::path::parent_path(programPath));
  llvm::SmallString<256> weightsDir(llvm::sys::path::parent_path(weightsPath));
  llvm::sys::path::remove_dots(programDir, true);
  llvm::sys::path::remove_dots(weightsDir, true);
  // The weights' directory below the program's: "" or "w/sub".
  llvm::StringRef below = weightsDir;
  bool inside = programDir.empty() || below == programDir ||
                below.consume_front((programDir + "/").str());
  if (below == programDir)
    below = "";
  if (inside && !llvm::sys::path::is_absolute(below) &&
      !below.starts_with("..")) {
    llvm::SmallString<256> relative(below);
    llvm::sys::path::append(relative, llvm::sys::path::filename(weightsPath));
    return relative.str().str();
  }
  usageError(diags, "--weights '" + weightsPath +
                        "' is not in the directory of the program '" +
                        programPath +
                        "' or below it, where txc looks for weights files");
  return std::nullopt;
}

int txc::runOnnxImport(const OnnxImportOptions &options,
                       DiagnosticEngine &diags) {
  std::string weightsPath = options.weightsPath;
  if (weightsPath.empty()) {
    llvm::SmallString<256> path(options.outputPath);
    llvm::sys::path::replace_extension(path, ".safetensors");
    weightsPath = path.str().str();
  }
  std::optional<std::string> reference =
      weightsReference(options.outputPath, weightsPath, diags);
  if (!reference)
    return diags.exitCode();
  std::unique_ptr<llvm::MemoryBuffer> file =
      readModelFile(options.modelPath, diags);
  if (!file)
    return diags.exitCode();
  std::optional<OnnxImportResult> result = importOnnxModel(
      file->getBuffer(), options.modelPath, options, *reference, diags);
  if (!result)
    return diags.exitCode();
  OutputFileSet outputs;
  outputs.add(options.outputPath, std::move(result->programJson));
  if (!result->weights.empty())
    outputs.add(weightsPath, std::move(result->weights));
  if (llvm::Error error = outputs.commit()) {
    diags.error(DiagCategory::IO, "io", "", Loc(),
                llvm::toString(std::move(error)));
    return diags.exitCode();
  }
  return ExitOK;
}
