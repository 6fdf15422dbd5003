//===- program-fuzzer.cpp - libFuzzer harness of `txc check` --------------===//
//
// The input is a program file. It goes through what `txc check` runs before
// MLIR: the JSON reader, the program reader, the verifier and the contract
// builder; then the boundary calls of `txc testgen` are evaluated against
// the contract, as `txc verify` would. Promises checked: every stage that
// fails has reported an error, and every stage that succeeds has not.
//
// Weights files named by constants are looked for next to a program path
// that does not exist, so every such constant fails to open, the same way
// on every machine.
//
//===----------------------------------------------------------------------===//
#include "FuzzerCommon.h"

#include "txc/Analysis/Contract.h"
#include "txc/Analysis/Verifier.h"
#include "txc/Frontend/ProgramReader.h"
#include "txc/Support/SourceFile.h"
#include "txc/Tools/Calls.h"

using namespace txc;

static void evaluateBoundaryCalls(const Contract &contract) {
  for (const CallSpec &call : boundaryCalls(contract)) {
    CallOutcome outcome = evaluateCall(contract, call);
    fuzz::check(!call.expect || matchesExpectation(*call.expect, outcome),
                "a boundary call does not do what testgen expects of it");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto file = std::make_shared<SourceFile>(
      "/nonexistent-txc-fuzz/program.json",
      fuzz::bytesAsText(data, size).str());
  DiagnosticEngine diags;
  diags.addSourceFile(file);
  std::unique_ptr<Program> program = readProgram(*file, diags);
  fuzz::check(bool(program) != diags.hasErrors(),
              "readProgram's result disagrees with its diagnostics");
  if (program) {
    bool verified = verifyProgram(*program, diags);
    fuzz::check(verified != diags.hasErrors(),
                "verifyProgram's result disagrees with its diagnostics");
    if (verified) {
      std::optional<Contract> contract = buildContract(*program, "", diags);
      fuzz::check(bool(contract) != diags.hasErrors(),
                  "buildContract's result disagrees with its diagnostics");
      if (contract)
        evaluateBoundaryCalls(*contract);
    }
  }
  fuzz::renderDiagnostics(diags);
  return 0;
}
