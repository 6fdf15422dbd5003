//===- DepfileTest.cpp ----------------------------------------------------===//
//
// `txc compile --depfile`'s Make rule (formatDepfile): the target, each
// dependency on a continued line, an empty rule for each but the first,
// and paths escaped as clang's -MD escapes them.
//
//===----------------------------------------------------------------------===//
#include "txc/Driver/Driver.h"

#include <gtest/gtest.h>

using namespace txc;

namespace {

std::string depfile(llvm::StringRef target,
                    std::vector<std::string> deps) {
  auto text = formatDepfile(target, deps);
  EXPECT_TRUE(bool(text)) << llvm::toString(text.takeError());
  return text ? *text : "";
}

TEST(Depfile, RuleWithEmptyRulesForTheWeightsFiles) {
  EXPECT_EQ(depfile("out/p.o", {"p.json", "w.npy", "dir/m.safetensors"}),
            "out/p.o: \\\n  p.json \\\n  w.npy \\\n  dir/m.safetensors\n"
            "\nw.npy:\n\ndir/m.safetensors:\n");
  EXPECT_EQ(depfile("p.o", {}), "p.o:\n");
}

TEST(Depfile, EscapesSpacesHashesAndDollars) {
  EXPECT_EQ(depfile("a b.o", {"c#d.json", "$x.npy"}),
            "a\\ b.o: \\\n  c\\#d.json \\\n  $$x.npy\n\n$$x.npy:\n");
  // Backslashes before a space are doubled, as clang does; others stay.
  EXPECT_EQ(depfile("a\\ b.o", {"c\\d.json"}),
            "a\\\\\\ b.o: \\\n  c\\d.json\n");
}

TEST(Depfile, NewlinesCannotBeWritten) {
  auto text = formatDepfile("p.o", {"a\nb.npy"});
  ASSERT_FALSE(bool(text));
  EXPECT_EQ(llvm::toString(text.takeError()),
            "--depfile cannot name the file 'a\\nb.npy': a Make rule "
            "cannot hold a newline in a path");
  auto target = formatDepfile("a\nb.o", {"p.json"});
  ASSERT_FALSE(bool(target));
  llvm::consumeError(target.takeError());
}

} // namespace
