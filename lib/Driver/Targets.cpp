//===- Targets.cpp - txc targets ------------------------------------------===//
//
// What `txc targets` prints: the targets txc compiles for, each with its
// default (portable) CPU and the vector unit the codegen tiles for at each
// x86-64 level, this machine's CPU, and for one target its CPUs and
// features.
//
//===----------------------------------------------------------------------===//
#include "txc/Driver/Driver.h"

#include "txc/Driver/Compiler.h"
#include "txc/Target/ObjectEmitter.h"

#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

using namespace txc;

namespace {
/// A CPU worth naming for a target: its levels, with what they add.
struct NamedCPU {
  const char *arch;
  const char *cpu;
  const char *what;
};
} // namespace

static const NamedCPU kNamedCPUs[] = {
    {"x86_64", "x86-64", "SSE2"},
    {"x86_64", "x86-64-v2", "SSE4.2, POPCNT"},
    {"x86_64", "x86-64-v3", "AVX2, FMA, F16C"},
    {"x86_64", "x86-64-v4", "AVX-512"},
    {"aarch64", "generic", "ARMv8-A, NEON"},
};

/// "256-bit vectors, 16 registers": what the codegen tiles for on `spec`.
static std::string describeVectorUnit(const TargetSpec &spec) {
  auto machine = createTargetMachine(spec);
  if (!machine) {
    llvm::consumeError(machine.takeError());
    return "(no target machine)";
  }
  VectorTarget vector = pipelineOptionsFor(**machine, 2).vector;
  return std::to_string(vector.vectorBits) + "-bit vectors, " +
         std::to_string(vector.vectorRegisters) + " registers";
}

/// One target's lines: its default CPU and its named levels.
static void printTarget(llvm::raw_ostream &os, llvm::StringRef arch,
                        llvm::StringRef triple) {
  llvm::Triple parsed(triple);
  os << "  " << triple << "\n    default CPU " << defaultCPU(parsed) << "\n";
  for (const NamedCPU &named : kNamedCPUs) {
    if (arch != named.arch)
      continue;
    auto spec = resolveTargetSpec(triple, named.cpu, "", 2);
    if (!spec) {
      llvm::consumeError(spec.takeError());
      continue;
    }
    os << "    --cpu " << llvm::left_justify(named.cpu, 10) << " "
       << describeVectorUnit(*spec) << " (" << named.what << ")\n";
  }
  if (parsed.getArch() == llvm::Triple::x86_64)
    os << "    --cpu x86-64-v2,x86-64-v3,... several levels in one object, "
          "the first the baseline, chosen at run time\n";
}

int txc::runTargets(llvm::StringRef triple, DiagnosticEngine &diags) {
  llvm::raw_ostream &os = llvm::outs();
  if (!triple.empty()) {
    auto spec = resolveTargetSpec(triple, "", "", 2);
    if (!spec) {
      reportTargetError(spec.takeError(), diags);
      return diags.exitCode();
    }
    // The triple was just looked up: these cannot fail.
    os << "Target " << spec->triple << ": default CPU " << spec->cpu << " ("
       << describeVectorUnit(*spec) << ")\n"
       << llvm::cantFail(describeCPUs(triple))
       << llvm::cantFail(describeFeatures(triple));
    return diags.exitCode();
  }
  os << "Targets txc compiles for (--target ARCH-VENDOR-OS[-ENVIRONMENT]; "
        "--cpu NAME, default the target's portable CPU; --cpu native for "
        "this machine's):\n";
  for (const char *arch : {"x86_64", "aarch64"})
    printTarget(os, arch, llvm::Triple::normalize(std::string(arch) +
                                                  "-linux-gnu"));
  auto host = resolveTargetSpec("", "native", "", 2);
  if (host)
    os << "This machine: " << host->triple << ", CPU " << host->cpu << " ("
       << describeVectorUnit(*host) << ")\n";
  else
    llvm::consumeError(host.takeError());
  os << "'txc targets TRIPLE' lists the CPUs and features of a target.\n";
  return diags.exitCode();
}
