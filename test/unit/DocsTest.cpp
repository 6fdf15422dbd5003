//===- DocsTest.cpp -------------------------------------------------------===//
//
// The parts of docs/ that restate a list of the code: each is compared with
// the list it comes from, so that a new status code or import cannot leave
// the docs behind.
// On a mismatch the expected text is printed: paste it into the doc.
//
//===----------------------------------------------------------------------===//
#include "txc/Support/StatusCodes.h"
#include "txc/Target/Imports.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace txc;

namespace {

std::string readSource(const std::string &relativePath) {
  std::string path = std::string(TXC_SOURCE_DIR) + "/" + relativePath;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buffer)) << "cannot read " << path;
  return buffer ? (*buffer)->getBuffer().str() : "";
}

/// The Markdown table of `doc` whose header row is `header`: that row and
/// the rows after it, up to the first line that is not a table row.
std::string tableWithHeader(llvm::StringRef doc, llvm::StringRef header) {
  size_t start = doc.find(header.str() + "\n");
  if (start == llvm::StringRef::npos)
    return "(no table with the header " + header.str() + ")";
  std::string table;
  for (llvm::StringRef rest = doc.substr(start); !rest.empty();) {
    auto [line, next] = rest.split('\n');
    if (!line.starts_with("|"))
      break;
    table += line.str() + "\n";
    rest = next;
  }
  return table;
}

TEST(Docs, AbiStatusCodeTableIsStatusCodesDef) {
  std::string header = "| Macro | Value | Meaning |";
  std::string expected = header + "\n|-------|-------|---------|\n";
  for (const StatusCodeInfo &info : kStatusCodes)
    expected += "| `" + info.macro.str() + "` | " +
                std::to_string(int(info.code)) + " | " + info.meaning.str() +
                " |\n";
  EXPECT_EQ(tableWithHeader(readSource("docs/abi.md"), header), expected)
      << "docs/abi.md, \"Status codes\", must be the table of "
         "include/txc/Support/StatusCodes.def";
}

/// README.md, docs/*.md and samples/*/README.md, relative to the source.
std::vector<std::string> markdownFiles() {
  std::vector<std::string> files = {"README.md"};
  for (const char *dir : {"docs", "samples"}) {
    std::error_code ec;
    std::string root = std::string(TXC_SOURCE_DIR) + "/" + dir;
    for (llvm::sys::fs::recursive_directory_iterator it(root, ec), end;
         it != end && !ec; it.increment(ec))
      if (llvm::sys::path::extension(it->path()) == ".md")
        files.push_back(dir + it->path().substr(root.size()));
  }
  return files;
}

// "`TXC_E_WEIGHTS` (12", "13 (`TXC_E_WORKSPACE`)", "11, `TXC_E_...`",
// "rc = 5 (TXC_E_DIM": wherever the docs give a code's value with its name,
// it is the value of StatusCodes.def.
TEST(Docs, StatusCodeValuesInTheTextAreStatusCodesDef) {
  llvm::Regex nameThenValue("`?(TXC_OK|TXC_E_[A-Z_]+)`? \\(([0-9]+)");
  llvm::Regex valueThenName("([0-9]+),? \\(?`?(TXC_OK|TXC_E_[A-Z_]+)");
  size_t checked = 0;
  for (const std::string &file : markdownFiles()) {
    std::string text = readSource(file);
    for (auto [regex, nameGroup, valueGroup] :
         {std::tuple(&nameThenValue, 1, 2), std::tuple(&valueThenName, 2, 1)}) {
      llvm::SmallVector<llvm::StringRef, 3> match;
      for (llvm::StringRef rest = text; regex->match(rest, &match);
           rest = rest.substr(rest.find(match[0]) + match[0].size())) {
        int value = std::stoi(match[valueGroup].str());
        const StatusCodeInfo *info = findStatusCode(StatusCode(value));
        EXPECT_TRUE(info && info->macro == match[nameGroup])
            << file << ": \"" << match[0].str() << "\": "
            << match[nameGroup].str() << " is not " << value;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10u);
}

TEST(Docs, AbiImportTableIsImportsDef) {
  std::string header = "| Function | Library | Needed for |";
  std::string expected = header + "\n|----------|---------|------------|\n";
  for (const ImportInfo &info : kObjectImports)
    expected += "| `" + info.name.str() + "` | " +
                importLibraryName(info.library).str() + " | " +
                info.neededFor.str() + " |\n";
  EXPECT_EQ(tableWithHeader(readSource("docs/abi.md"), header), expected)
      << "docs/abi.md, \"Imports\", must be the table of "
         "include/txc/Target/Imports.def";
}

} // namespace
