//===- FuzzerCommon.h - What the libFuzzer harnesses share ------*- C++ -*-===//
//
// Each harness (test/fuzz/*-fuzzer.cpp) feeds libFuzzer's bytes to one of
// txc's readers of untrusted files, renders every diagnostic the way the CLI
// would, and checks what the reader promises beyond "no crash": a reader
// that fails reports an error, a reader that succeeds returns what it
// checked. A broken promise aborts, which libFuzzer reports like a crash.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_TEST_FUZZ_FUZZERCOMMON_H
#define TXC_TEST_FUZZ_FUZZERCOMMON_H

#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace txc::fuzz {

/// Aborts with `what` when a reader breaks a promise.
inline void check(bool condition, const char *what) {
  if (condition)
    return;
  std::fprintf(stderr, "txc fuzzer: broken invariant: %s\n", what);
  std::abort();
}

inline llvm::StringRef bytesAsText(const uint8_t *data, size_t size) {
  return llvm::StringRef(reinterpret_cast<const char *>(data), size);
}

/// Splits `text` at its first NUL byte: two documents in one input (a NUL
/// byte is never valid JSON, so neither part loses anything). Without a NUL
/// the second part is the first.
inline std::pair<llvm::StringRef, llvm::StringRef>
splitAtNul(llvm::StringRef text) {
  size_t nul = text.find('\0');
  if (nul == llvm::StringRef::npos)
    return {text, text};
  return {text.take_front(nul), text.drop_front(nul + 1)};
}

/// Renders the diagnostics in every format the CLI has, as `txc` would
/// print them (the output is discarded; rendering is what is tested).
inline void renderDiagnostics(const DiagnosticEngine &diags) {
  llvm::raw_null_ostream out;
  diags.print(out, DiagnosticFormat::Text);
  diags.print(out, DiagnosticFormat::Json);
  diags.print(out, DiagnosticFormat::Sarif);
}

/// Files for the readers that take paths (`txc verify`, `txc diff`): one
/// private directory per process, created on first use, each file rewritten
/// for every input.
class ScratchFiles {
public:
  static ScratchFiles &get();
  /// Writes `contents` to the scratch file `name` and returns its path.
  std::string write(llvm::StringRef name, llvm::StringRef contents);

private:
  ScratchFiles();
  ~ScratchFiles();
  std::string directory;
};

} // namespace txc::fuzz

#endif
