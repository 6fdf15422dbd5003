//===- TimeReport.cpp - --time-report=json
//---------------------------------===//
#include "txc/Driver/TimeReport.h"

#include <nlohmann/json.hpp>

using namespace txc;
using json = nlohmann::ordered_json;

namespace {
/// Builds the tree from MLIR's pre-order printTreeEntry and post-order
/// printTreeEntryEnd calls and prints it in printFooter.
class JsonTimingOutput : public mlir::OutputStrategy {
public:
  explicit JsonTimingOutput(llvm::raw_ostream &os) : OutputStrategy(os) {
    root["total_seconds"] = 0.0;
    root["phases"] = json::array();
  }

  void printHeader(const mlir::TimeRecord &total) override {
    root["total_seconds"] = total.wall;
    root["phases"] = json::array();
    stack.assign(1, &root["phases"]);
  }
  void printFooter() override {
    os << root.dump() << "\n";
    os.flush();
  }
  void printTime(const mlir::TimeRecord &, const mlir::TimeRecord &) override {}
  void printListEntry(llvm::StringRef name, const mlir::TimeRecord &time,
                      const mlir::TimeRecord &, bool) override {
    if (name == "Rest")
      root["rest_seconds"] = time.wall;
  }
  void printTreeEntry(unsigned, llvm::StringRef name,
                      const mlir::TimeRecord &time,
                      const mlir::TimeRecord &) override {
    json entry;
    entry["name"] = name.str();
    entry["seconds"] = time.wall;
    entry["phases"] = json::array();
    json &list = *stack.back();
    list.push_back(std::move(entry));
    stack.push_back(&list.back()["phases"]);
  }
  void printTreeEntryEnd(unsigned, bool) override {
    if (stack.size() > 1)
      stack.pop_back();
  }

private:
  json root;
  std::vector<json *> stack;
};

class SilentTimingOutput : public mlir::OutputStrategy {
public:
  SilentTimingOutput() : OutputStrategy(llvm::nulls()) {}
  void printHeader(const mlir::TimeRecord &) override {}
  void printFooter() override {}
  void printTime(const mlir::TimeRecord &, const mlir::TimeRecord &) override {}
  void printListEntry(llvm::StringRef, const mlir::TimeRecord &,
                      const mlir::TimeRecord &, bool) override {}
  void printTreeEntry(unsigned, llvm::StringRef, const mlir::TimeRecord &,
                      const mlir::TimeRecord &) override {}
  void printTreeEntryEnd(unsigned, bool) override {}
};
} // namespace

std::unique_ptr<mlir::OutputStrategy>
txc::createJsonTimingOutput(llvm::raw_ostream &os) {
  return std::make_unique<JsonTimingOutput>(os);
}

std::unique_ptr<mlir::OutputStrategy> txc::createSilentTimingOutput() {
  return std::make_unique<SilentTimingOutput>();
}
