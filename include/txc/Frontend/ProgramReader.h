//===- ProgramReader.h - JSON program files to Program ----------*- C++ -*-===//
#ifndef TXC_FRONTEND_PROGRAMREADER_H
#define TXC_FRONTEND_PROGRAMREADER_H

#include "txc/Program/Program.h"
#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace txc {

class SourceFile;

struct ReaderOptions {
  /// Directories outside the program's own in which weights files may be
  /// (--allow-weights-outside); see resolveWeightsPath.
  std::vector<std::string> allowedWeightDirs;
};

/// Reads a program from `file`. Every problem found is reported to `diags`
/// (reading goes on after an error to find the others); returns null if any
/// error was reported. Constants with a 'file' are read from weights files
/// relative to the directory of `file.name()`.
std::unique_ptr<Program> readProgram(const SourceFile &file,
                                     DiagnosticEngine &diags,
                                     const ReaderOptions &options = {});

/// Reads the file at `path` (with the size limit), registers its text with
/// `diags` for caret diagnostics, and parses it. I/O errors are reported as
/// DiagCategory::IO.
std::unique_ptr<Program> readProgramFile(llvm::StringRef path,
                                         DiagnosticEngine &diags,
                                         const ReaderOptions &options = {});

/// The program format identifier ("txc.program") and the versions this txc
/// reads.
inline constexpr llvm::StringLiteral kProgramFormat = "txc.program";
inline constexpr int kMinProgramVersion = 1;
inline constexpr int kMaxProgramVersion = 1;

} // namespace txc

#endif
