//===- DiffTestTarget.h - txc-difftest and txc-fuzz targets -----*- C++ -*-===//
//
// --target, --cpu, --features (as txc compile's), --emulator and --cc: the
// objects of another architecture, or of a CPU this machine may not have,
// are linked with that target's C compiler and run under an emulator
// (txc/Testing/EmulatedRunner.h) instead of in process.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TOOLS_COMMON_DIFFTESTTARGET_H
#define TXC_TOOLS_COMMON_DIFFTESTTARGET_H

#include "txc/Target/ObjectEmitter.h"
#include "txc/Testing/DiffTest.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <CLI/CLI.hpp>

namespace txc {

struct DiffTestTarget {
  std::string emulator; ///< a command line, split at spaces
  std::string cc;

  void add(CLI::App &app, DiffTestOptions &options) {
    app.add_option("--target", options.triple,
                   "Target triple of the objects, as txc compile's (e.g. "
                   "aarch64-linux-gnu: run under qemu-aarch64)");
    app.add_option("--cpu", options.cpu,
                   "Target CPU, as txc compile's (default: the portable "
                   "one; native: this machine's)");
    app.add_option("--features", options.features,
                   "Extra target features, as txc compile's");
    app.add_option("--emulator", emulator,
                   "Run the objects under this command, e.g. 'qemu-x86_64 "
                   "-cpu Skylake-Server' (default for another "
                   "architecture: 'qemu-ARCH -L /usr/ARCH-linux-gnu')");
    app.add_option("--cc", cc,
                   "The C compiler that links the objects for the emulator "
                   "(default: cc, or ARCH-linux-gnu-gcc for another "
                   "architecture)");
  }

  /// After parsing: emulate for another architecture, or when asked to.
  void apply(DiffTestOptions &options) const {
    llvm::Triple target(llvm::Triple::normalize(
        options.triple.empty() ? llvm::sys::getDefaultTargetTriple()
                               : options.triple));
    options.emulate = !emulator.empty() || !cc.empty() ||
                      !isHostTriple(target);
    if (!options.emulate)
      return;
    options.emulator = defaultEmulatorOptions(target.str());
    if (!cc.empty())
      options.emulator.cc = cc;
    if (!emulator.empty()) {
      llvm::SmallVector<llvm::StringRef, 4> words;
      llvm::StringRef(emulator).split(words, ' ', -1, /*KeepEmpty=*/false);
      options.emulator.emulator.assign(words.begin(), words.end());
    }
  }
};

} // namespace txc

#endif
