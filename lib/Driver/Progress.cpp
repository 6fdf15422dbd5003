//===- Progress.cpp - The status line of a compile ------------------------===//
#include "txc/Driver/Progress.h"

#include "txc/Support/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace txc;

/// Back to the start of the line, and erase it (ECMA-48 CR, EL).
static constexpr llvm::StringLiteral kClearLine = "\r\x1b[K";

/// The label shown, short enough that the line does not wrap on a narrow
/// terminal (a wrapped line is not rewritten in place).
static std::string shortLabel(llvm::StringRef label) {
  constexpr size_t kMaxBytes = 40;
  if (label.size() <= kMaxBytes)
    return escapeForTerminal(label);
  size_t cut = kMaxBytes;
  while (cut > 0 && (uint8_t(label[cut]) & 0xC0) == 0x80)
    --cut; // not inside a UTF-8 sequence
  return escapeForTerminal(label.take_front(cut)) + "\u2026";
}

CompileTiming::CompileTiming(llvm::raw_ostream *status, llvm::StringRef label)
    : status(status), label(shortLabel(label)) {}

CompileTiming::~CompileTiming() {
  if (shown) {
    *status << kClearLine;
    status->flush();
  }
}

std::optional<void *> CompileTiming::rootTimer() {
  std::optional<void *> handle = DefaultTimingManager::rootTimer();
  if (handle)
    root = *handle;
  return handle;
}

void *CompileTiming::nestTimer(void *handle, const void *id,
                               llvm::function_ref<std::string()> nameBuilder) {
  void *timer = DefaultTimingManager::nestTimer(handle, id, nameBuilder);
  if (status && handle == root)
    show(nameBuilder());
  return timer;
}

void CompileTiming::show(llvm::StringRef phase) {
  *status << kClearLine;
  auto it = llvm::find(phases, phase);
  if (it != phases.end())
    *status << '[' << (it - phases.begin() + 1) << '/' << phases.size()
            << "] ";
  *status << label << ": " << phase;
  status->flush();
  shown = true;
}

void txc::clearStatusLine(llvm::raw_fd_ostream &os) {
  if (canShowStatusLine(os))
    os << kClearLine;
}

bool txc::canShowStatusLine(llvm::raw_fd_ostream &os) {
  const char *term = std::getenv("TERM");
  return os.is_displayed() && term && llvm::StringRef(term) != "dumb";
}
