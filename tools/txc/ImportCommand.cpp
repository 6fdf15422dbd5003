//===- ImportCommand.cpp - txc import onnx --------------------------------===//
#include "ImportCommand.h"

using namespace txc;

void ImportCommand::add(CLI::App &app,
                        const std::function<void(CLI::App *)> &addCommon) {
  importCommand = app.add_subcommand(
      "import", "Import a model from another format as a txc program");
  importCommand->require_subcommand(1);
  onnx = importCommand->add_subcommand(
      "onnx", "Import an ONNX model (.onnx) as a txc program and a "
              ".safetensors file of its initializers");
  onnx->add_option("model", onnxOptions.modelPath, "ONNX model file")
      ->required();
  onnx->add_option("-o,--output", onnxOptions.outputPath,
                   "The program file to write (JSON)")
      ->required();
  onnx->add_option("--weights", onnxOptions.weightsPath,
                   "The .safetensors file for the initializers (default: "
                   "the program's path with the extension .safetensors; "
                   "in the program's directory or below)");
  onnx->add_option("--dim", onnxOptions.dims,
                   "A symbolic dim (dim_param) of the model's inputs as the "
                   "txc symbol NAME with this range: NAME=MIN:MAX or "
                   "NAME=MIN:MAX:MULTIPLE (repeatable)")
      ->allow_extra_args(false);
  onnx->add_option("--static", onnxOptions.statics,
                   "Pin a symbolic dim to one size: NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  onnx->add_option("--name", onnxOptions.programName,
                   "The program's name (default: the model file's name)");
  onnx->add_option("--allow-weights-outside", onnxOptions.allowedWeightsDirs,
                   "Allow external data files of the model's tensors inside "
                   "DIR although they are outside the model's directory, "
                   "absolute or reached through a symbolic link (repeatable)")
      ->type_name("DIR")
      ->allow_extra_args(false);
  addCommon(onnx);
}

std::optional<int> ImportCommand::run(DiagnosticEngine &diags) {
  if (!*importCommand || !*onnx)
    return std::nullopt;
  return runOnnxImport(onnxOptions, diags);
}
