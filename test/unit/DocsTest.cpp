//===- DocsTest.cpp -------------------------------------------------------===//
//
// The parts of docs/ that restate a list of the code: each is compared with
// the list it comes from, so that a new entry cannot leave the docs behind.
// On a mismatch the expected text is printed: paste it into the doc.
//
//===----------------------------------------------------------------------===//
#include "txc/Program/OpRegistry.h"
#include "txc/Support/StatusCodes.h"
#include "txc/Target/ArtifactInfo.h"
#include "txc/Target/Imports.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

#include <set>
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

/// The op names in backquotes in the first column of a table.
std::set<std::string> opsInFirstColumn(llvm::StringRef table) {
  std::set<std::string> names;
  llvm::SmallVector<llvm::StringRef, 64> lines;
  table.split(lines, '\n', -1, false);
  if (lines.size() < 2)
    return names;
  for (llvm::StringRef line : llvm::ArrayRef(lines).drop_front(2)) {
    llvm::StringRef cell = line.drop_front().split('|').first;
    llvm::SmallVector<llvm::StringRef, 8> parts;
    cell.split(parts, '`');
    for (size_t i = 1; i < parts.size(); i += 2)
      names.insert(parts[i].str());
  }
  return names;
}

TEST(Docs, OpsSummaryTableHasEveryOp) {
  std::string table =
      tableWithHeader(readSource("docs/ops.md"),
                      "| Ops | Operands | Attributes | Dtypes | Result |");
  std::set<std::string> listed = opsInFirstColumn(table);
  for (const OpInfo &op : allOps())
    EXPECT_TRUE(listed.count(op.name.str()))
        << "op '" << op.name.str()
        << "' of Ops.def is missing from the summary table of docs/ops.md";
  for (const std::string &name : listed)
    EXPECT_TRUE(lookupOp(name))
        << "docs/ops.md's summary table lists '" << name
        << "', which is not an op of Ops.def";
}

/// The cells of a Markdown table row, trimmed.
std::vector<std::string> cellsOf(llvm::StringRef row) {
  llvm::SmallVector<llvm::StringRef, 8> parts;
  row.trim().drop_front().drop_back().split(parts, '|');
  std::vector<std::string> cells;
  for (llvm::StringRef part : parts)
    cells.push_back(part.trim().str());
  return cells;
}

/// The words in backquotes of `text`, in order.
std::vector<std::string> quotedWords(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef, 8> parts;
  text.split(parts, '`');
  std::vector<std::string> words;
  for (size_t i = 1; i < parts.size(); i += 2)
    words.push_back(parts[i].str());
  return words;
}

/// What Ops.def says the "Operands" cell of an op is.
std::string operandsCell(const OpInfo &op) {
  if (op.maxOperands < 0)
    return std::to_string(op.minOperands) + " or more";
  if (op.minOperands == op.maxOperands)
    return std::to_string(op.minOperands);
  return std::to_string(op.minOperands) + "–" + std::to_string(op.maxOperands);
}

/// What Ops.def says the "Dtypes" cell of a TXC_UNARY or TXC_BINARY op is.
std::string dtypesCell(const OpInfo &op) {
  std::string name = dtypeClassName(op.dtypes).str();
  return op.category == OpCategory::ElementwiseBinary ? "same, " + name : name;
}

// The columns of the summary table that restate Ops.def are Ops.def's: the
// operand counts, the attribute names (before "; regions") and, for the
// ops declared by TXC_UNARY and TXC_BINARY, the dtypes.
TEST(Docs, OpsSummaryTableAgreesWithOpsDef) {
  std::string table =
      tableWithHeader(readSource("docs/ops.md"),
                      "| Ops | Operands | Attributes | Dtypes | Result |");
  llvm::SmallVector<llvm::StringRef, 64> rows;
  llvm::StringRef(table).split(rows, '\n', -1, false);
  for (llvm::StringRef row : llvm::ArrayRef(rows).drop_front(2)) {
    std::vector<std::string> cells = cellsOf(row);
    ASSERT_EQ(cells.size(), 5u) << row.str();
    std::set<std::string> attributes;
    for (const std::string &name : quotedWords(cells[0])) {
      const OpInfo *op = lookupOp(name);
      if (!op)
        continue; // OpsSummaryTableHasEveryOp reports it
      EXPECT_EQ(cells[1], operandsCell(*op)) << "the operands of '" << name
                                             << "' in docs/ops.md";
      if (op->domain != ElementwiseDomain::None)
        EXPECT_EQ(cells[3], dtypesCell(*op)) << "the dtypes of '" << name
                                             << "' in docs/ops.md";
      for (const AttrSpec &attr : op->attributes)
        attributes.insert(attr.name.str());
    }
    llvm::StringRef attributeCell =
        llvm::StringRef(cells[2]).split("; regions").first;
    std::vector<std::string> listed = quotedWords(attributeCell);
    EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), attributes)
        << "the attributes in the row " << row.str()
        << " of docs/ops.md are not those of Ops.def";
  }
}

/// An installed file that the compiler also generates must be what it
/// generates now; on a difference the generated text is written to the
/// current directory (build/test/unit), to be copied over the file.
void expectGeneratedFile(const std::string &relativePath,
                         const std::string &generated) {
  if (readSource(relativePath) == generated)
    return;
  std::string name = llvm::sys::path::filename(relativePath).str();
  std::error_code ec;
  llvm::raw_fd_ostream os("expected-" + name, ec);
  os << generated;
  ADD_FAILURE() << relativePath
                << " is not what txc generates; the generated text is in "
                   "expected-" << name << " of the test's directory";
}

TEST(Docs, RuntimeHeaderIsGenerated) {
  expectGeneratedFile("runtime/txc_runtime.h", emitRuntimeHeader());
  expectGeneratedFile("runtime/txc_runtime.hpp", emitCxxRuntimeHeader());
}

TEST(Docs, ArchitectureNamesEveryPassOfThePipeline) {
  std::string pipeline = readSource("lib/Pipeline/Pipeline.cpp");
  std::string architecture = readSource("docs/architecture.md");
  // create<Name>[Pass](...) and MLIR's build<Name>Pipeline(...).
  llvm::Regex created("(create|build)([A-Z][A-Za-z0-9]*)\\(");
  llvm::SmallVector<llvm::StringRef, 3> match;
  std::set<std::string> names;
  for (llvm::StringRef rest = pipeline; created.match(rest, &match);
       rest = rest.substr(rest.find(match[0]) + match[0].size())) {
    llvm::StringRef name = match[2];
    if (!name.consume_back("Pass"))
      name.consume_back("Pipeline");
    // buildTxcPipeline is the file's own entry point.
    if (name != "Txc")
      names.insert(name.str());
  }
  EXPECT_GT(names.size(), 30u);
  for (const std::string &name : names)
    EXPECT_NE(architecture.find("`" + name + "`"), std::string::npos)
        << "the pass " << name
        << " of lib/Pipeline/Pipeline.cpp is not named (as `" << name
        << "`) in docs/architecture.md";
}

TEST(Docs, EveryPassOfPassesTdHasAnIRTest) {
  std::string passes = readSource("lib/Pipeline/Passes.td");
  // The lit tests of test/lit/passes run each pass by its argument.
  std::string tests;
  std::error_code error;
  std::string directory = std::string(TXC_SOURCE_DIR) + "/test/lit/passes";
  for (llvm::sys::fs::directory_iterator it(directory, error), end;
       it != end && !error; it.increment(error))
    if (llvm::sys::path::extension(it->path()) == ".mlir")
      tests += readSource("test/lit/passes/" +
                          llvm::sys::path::filename(it->path()).str());
  ASSERT_FALSE(error) << directory << ": " << error.message();
  llvm::Regex declared("Pass<\"(txc-[a-z-]+)\"");
  llvm::SmallVector<llvm::StringRef, 2> match;
  unsigned count = 0;
  for (llvm::StringRef rest = passes; declared.match(rest, &match);
       rest = rest.substr(rest.find(match[0]) + match[0].size())) {
    ++count;
    EXPECT_NE(tests.find("--" + match[1].str()), std::string::npos)
        << "the pass " << match[1].str()
        << " of lib/Pipeline/Passes.td has no test in test/lit/passes";
  }
  EXPECT_GE(count, 10u);
}

} // namespace
