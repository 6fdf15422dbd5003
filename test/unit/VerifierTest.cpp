//===- VerifierTest.cpp ---------------------------------------------------===//
//
// Names, op resolution, attributes, dtype and symbolic shape inference of
// each op, node ordering, cycles, and tensor size limits.
//
//===----------------------------------------------------------------------===//
#include "txc/Analysis/Verifier.h"
#include "txc/Analysis/ShapeInference.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace txc;
using namespace txc::test;

namespace {

std::string sym(const std::string &name, int64_t min, int64_t max) {
  return "{\"name\": \"" + name + "\", \"min\": " + std::to_string(min) +
         ", \"max\": " + std::to_string(max) + "}";
}

/// An input declaration; `shape` is the JSON text of the shape.
std::string in(const std::string &name, const std::string &dtype,
               const std::string &shape) {
  return "{\"name\": \"" + name + "\", \"dtype\": \"" + dtype +
         "\", \"shape\": " + shape + "}";
}

std::string node(const std::string &name, const std::string &op,
                 const std::vector<std::string> &operands,
                 const std::string &attributes = "") {
  std::string text =
      "{\"name\": \"" + name + "\", \"op\": \"" + op + "\", \"operands\": [";
  for (size_t i = 0; i < operands.size(); ++i)
    text += std::string(i ? ", " : "") + "\"" + operands[i] + "\"";
  text += "]";
  if (!attributes.empty())
    text += ", \"attributes\": " + attributes;
  return text + "}";
}

std::string join(const std::vector<std::string> &parts) {
  std::string out;
  for (const std::string &part : parts)
    out += (out.empty() ? "" : ", ") + part;
  return out;
}

const std::string kSymbols =
    sym("B", 1, 64) + ", " + sym("N", 1, 64) + ", " + sym("S", 1, 8);

/// Verifies a program whose result is node `y`; returns the loaded program.
std::unique_ptr<Loaded> check(const std::vector<std::string> &inputs,
                              const std::vector<std::string> &nodes,
                              const std::string &symbols = kSymbols,
                              const std::string &outputs = "\"y\"") {
  auto loaded = verify(program(symbols, join(inputs), join(nodes), outputs));
  EXPECT_TRUE(loaded->program) << dump(loaded->diags);
  return loaded;
}

/// The result type of node `name` as "f32[B,3]", or "<none>".
std::string typeOf(const Loaded &loaded, const std::string &name) {
  if (!loaded.program)
    return "<no program>";
  for (const Node &n : loaded.program->body.nodes)
    if (n.name == name) {
      if (n.resultTypes.empty())
        return "<none>";
      return dtypeName(n.resultTypes[0].dtype).str() +
             shapeToString(n.resultTypes[0].shape,
                           loaded.program->symbolNames());
    }
  return "<no node>";
}

/// The result type of `y` when two inputs of the given shapes meet in `op`.
std::string binary(const std::string &op, const std::string &a,
                   const std::string &b, const std::string &dtype = "f32") {
  auto loaded = check({in("a", dtype, a), in("b", dtype, b)},
                      {node("y", op, {"a", "b"})});
  EXPECT_TRUE(loaded->verified) << op << " " << a << " " << b << "\n"
                                << dump(loaded->diags);
  return typeOf(*loaded, "y");
}

/// The errors of a program, one "id: message" per line (warnings excluded).
std::string errors(const Loaded &loaded) {
  std::string out;
  for (const Diagnostic &diag : loaded.diags.diagnostics())
    if (diag.severity == Severity::Error)
      out += diag.id + ": " + diag.message + "\n";
  return out;
}

/// The ids of the errors (warnings excluded).
std::vector<std::string> errorIds(const Loaded &loaded) {
  std::vector<std::string> result;
  for (const Diagnostic &diag : loaded.diags.diagnostics())
    if (diag.severity == Severity::Error)
      result.push_back(diag.id);
  return result;
}

/// The `index`th error (warnings excluded).
const Diagnostic &errorAt(const Loaded &loaded, size_t index) {
  static const Diagnostic none;
  for (const Diagnostic &diag : loaded.diags.diagnostics())
    if (diag.severity == Severity::Error && index-- == 0)
      return diag;
  ADD_FAILURE() << "no error " << index;
  return none;
}

//===----------------------------------------------------------------------===//
// Shape and dtype inference
//===----------------------------------------------------------------------===//

TEST(Verifier, MatMul) {
  auto loaded = check({in("x", "f32", "[\"B\", 4]"), in("w", "f32", "[4, 3]")},
                      {node("y", "matmul", {"x", "w"})});
  ASSERT_TRUE(loaded->verified) << dump(loaded->diags);
  EXPECT_EQ(typeOf(*loaded, "y"), "f32[B,3]");
  EXPECT_EQ(loaded->program->body.nodes[0].kind, OpKind::MatMul);
  // Symbolic inner dims match when they are the same expression.
  EXPECT_EQ(binary("matmul", "[\"B\", \"2*S\"]", "[\"S+S\", \"N\"]"),
            "f32[B,N]");
  EXPECT_EQ(binary("matmul", "[\"B\", 4]", "[4, 3]", "i32"), "i32[B,3]");
}

TEST(Verifier, MatMulErrors) {
  auto run = [](const std::string &a, const std::string &b,
                const std::string &dtypeA = "f32",
                const std::string &dtypeB = "f32") {
    auto loaded = check({in("a", dtypeA, a), in("b", dtypeB, b)},
                        {node("y", "matmul", {"a", "b"})});
    EXPECT_FALSE(loaded->verified);
    EXPECT_EQ(typeOf(*loaded, "y"), "<none>");
    return loaded;
  };
  {
    auto loaded = run("[\"B\", 4]", "[3, 3]");
    EXPECT_EQ(errors(*loaded),
              "shape-mismatch: shapes [B,4] and [3,3] of 'matmul' node 'y' do "
              "not match: the inner dimensions 4 and 3 differ\n");
    EXPECT_TRUE(errorAt(*loaded, 0).notes.empty());
    EXPECT_EQ(errorAt(*loaded, 0).loc.pointer, "/nodes/0");
  }
  {
    // Rank 0 has no row or column to contract.
    auto loaded = run("[]", "[4, 3]");
    EXPECT_EQ(errors(*loaded),
              "rank-mismatch: operand 0 of 'matmul' node 'y' has rank 0 "
              "(shape []); expected rank 1 or more\n");
    EXPECT_EQ(errorAt(*loaded, 0).loc.pointer, "/nodes/0/operands/0");
  }
  {
    auto loaded = run("[2, 4]", "[4, 3]", "f32", "f64");
    EXPECT_EQ(errors(*loaded),
              "dtype-mismatch: operands of 'matmul' node 'y' have different "
              "dtypes f32 and f64; txc does not promote dtypes, insert a "
              "'cast'\n");
    EXPECT_EQ(errorAt(*loaded, 0).loc.pointer, "/nodes/0/op");
  }
  {
    auto loaded = run("[2, 4]", "[4, 3]", "bool", "bool");
    EXPECT_EQ(errors(*loaded),
              "bad-dtype: 'matmul' node 'y' needs a numeric dtype for operand 0, "
            "not bool\n");
  }
  {
    // A lone symbol against a constant: the symbol would need one value.
    auto loaded = run("[2, \"S\"]", "[4, 3]");
    const Diagnostic &diag = errorAt(*loaded, 0);
    EXPECT_EQ(diag.message, "shapes [2,S] and [4,3] of 'matmul' node 'y' do "
                            "not match: the inner dimensions S and 4 differ");
    ASSERT_EQ(diag.notes.size(), 1u);
    EXPECT_EQ(diag.notes[0].severity, Severity::Note);
    EXPECT_EQ(diag.notes[0].message,
              "this holds only if symbol 'S' is 4; txc does not specialize "
              "symbols: use the constant dimension in the input's shape "
              "instead");
  }
  {
    auto loaded = run("[2, \"S\"]", "[9, 3]");
    ASSERT_EQ(errorAt(*loaded, 0).notes.size(), 1u);
    EXPECT_EQ(errorAt(*loaded, 0).notes[0].message,
              "this holds only if symbol 'S' is 9, outside its declared range "
              "[1, 8]");
  }
  {
    auto loaded = run("[2, \"B\"]", "[\"N\", 3]");
    ASSERT_EQ(errorAt(*loaded, 0).notes.size(), 1u);
    EXPECT_EQ(errorAt(*loaded, 0).notes[0].message,
              "symbolic dimensions are equal only when they are the same "
              "expression; txc does not broadcast symbolic dimensions");
  }
}

TEST(Verifier, ElementwiseBroadcasting) {
  for (const char *op : {"add", "sub", "mul", "div"}) {
    EXPECT_EQ(binary(op, "[\"B\", 3]", "[3]"), "f32[B,3]") << op;
    EXPECT_EQ(binary(op, "[3]", "[\"B\", 3]"), "f32[B,3]") << op;
    EXPECT_EQ(binary(op, "[\"B\", 1]", "[1, \"N\"]"), "f32[B,N]") << op;
    EXPECT_EQ(binary(op, "[]", "[\"B\", 3]"), "f32[B,3]") << op;
    EXPECT_EQ(binary(op, "[\"B\", 3]", "[]"), "f32[B,3]") << op;
    EXPECT_EQ(binary(op, "[]", "[]"), "f32[]") << op;
  }
  EXPECT_EQ(binary("add", "[\"B\"]", "[1]"), "f32[B]");
  EXPECT_EQ(binary("add", "[1]", "[\"B\"]"), "f32[B]");
  EXPECT_EQ(binary("add", "[\"2*S+1\", 1]", "[\"1+S*2\", 5]"), "f32[2*S+1,5]");
  EXPECT_EQ(binary("mul", "[2, 1, 4]", "[3, 1]"), "f32[2,3,4]");
  EXPECT_EQ(binary("add", "[0, 3]", "[1, 3]"), "f32[0,3]");
  EXPECT_EQ(binary("div", "[\"B\"]", "[\"B\"]", "i32"), "i32[B]");
  EXPECT_EQ(binary("sub", "[4]", "[4]", "u8"), "u8[4]");
  EXPECT_EQ(binary("mul", "[4]", "[1]", "f16"), "f16[4]");
}

TEST(Verifier, SymbolicDimsNeverBroadcast) {
  auto run = [](const std::string &a, const std::string &b) {
    auto loaded = check({in("a", "f32", a), in("b", "f32", b)},
                        {node("y", "add", {"a", "b"})});
    EXPECT_FALSE(loaded->verified);
    return loaded;
  };
  {
    auto loaded = run("[\"B\"]", "[\"N\"]");
    EXPECT_EQ(errors(*loaded),
              "shape-mismatch: shapes [B] and [N] of 'add' node 'y' do not "
              "broadcast: dimension B vs N (aligned from the right)\n");
    ASSERT_EQ(errorAt(*loaded, 0).notes.size(), 1u);
    EXPECT_EQ(errorAt(*loaded, 0).notes[0].message,
              "symbolic dimensions are equal only when they are the same "
              "expression; txc does not broadcast symbolic dimensions");
  }
  {
    // A symbol never stretches against a static dim other than 1, even if
    // its range allows that value.
    auto loaded = run("[\"S\", 3]", "[2, 3]");
    EXPECT_EQ(errors(*loaded),
              "shape-mismatch: shapes [S,3] and [2,3] of 'add' node 'y' do not "
              "broadcast: dimension S vs 2 (aligned from the right)\n");
    ASSERT_EQ(errorAt(*loaded, 0).notes.size(), 1u);
    EXPECT_EQ(errorAt(*loaded, 0).notes[0].message,
              "this holds only if symbol 'S' is 2; txc does not specialize "
              "symbols: use the constant dimension in the input's shape "
              "instead");
  }
  {
    auto loaded = run("[\"B\", 3]", "[\"B\", 4]");
    EXPECT_EQ(errors(*loaded),
              "shape-mismatch: shapes [B,3] and [B,4] of 'add' node 'y' do not "
              "broadcast: dimension 3 vs 4 (aligned from the right)\n");
    EXPECT_TRUE(errorAt(*loaded, 0).notes.empty());
  }
  {
    auto loaded = run("[2, 5, 3]", "[4, 3]");
    EXPECT_EQ(errors(*loaded),
              "shape-mismatch: shapes [2,5,3] and [4,3] of 'add' node 'y' do "
              "not broadcast: dimension 5 vs 4 (aligned from the right)\n");
  }
  {
    auto loaded = run("[\"B+1\"]", "[\"1+B\", 2]");
    EXPECT_EQ(errors(*loaded),
              "shape-mismatch: shapes [B+1] and [B+1,2] of 'add' node 'y' do "
              "not broadcast: dimension B+1 vs 2 (aligned from the right)\n");
  }
}

TEST(Verifier, BroadcastShapesDirectly) {
  auto c = [](int64_t v) { return ShapeExpr::constant(v); };
  ShapeExpr b = ShapeExpr::symbol({0});
  size_t badDim = 99;
  auto shape = broadcastShapes({b, c(1)}, {c(1), c(5)}, badDim);
  ASSERT_TRUE(shape);
  EXPECT_EQ(*shape, Shape({b, c(5)}));
  EXPECT_FALSE(broadcastShapes({c(3), b}, {c(3), c(2)}, badDim));
  EXPECT_EQ(badDim, 1u);
  // Aligned from the right: [1,2,3] against [4,3,3].
  EXPECT_FALSE(broadcastShapes({c(2), c(3)}, {c(4), c(3), c(3)}, badDim));
  EXPECT_EQ(badDim, 1u);
  auto wider = broadcastShapes({c(2), c(3)}, {c(4), c(2), c(3)}, badDim);
  ASSERT_TRUE(wider);
  EXPECT_EQ(*wider, Shape({c(4), c(2), c(3)}));
  EXPECT_FALSE(broadcastShapes({b}, {ShapeExpr::symbol({1})}, badDim));
  EXPECT_EQ(badDim, 0u);
}

TEST(Verifier, ElementwiseDtypes) {
  {
    auto loaded = check({in("a", "f32", "[3]"), in("b", "i32", "[3]")},
                        {node("y", "sub", {"a", "b"})});
    EXPECT_EQ(errors(*loaded),
              "dtype-mismatch: operands of 'sub' node 'y' have different "
              "dtypes f32 and i32; txc does not promote dtypes, insert a "
              "'cast'\n");
  }
  {
    auto loaded = check({in("a", "bool", "[3]"), in("b", "bool", "[3]")},
                        {node("y", "mul", {"a", "b"})});
    EXPECT_EQ(errors(*loaded), "bad-dtype: 'mul' node 'y' needs a numeric "
                               "dtype (an integer or float dtype) for operand "
                               "0, not bool; insert a 'cast' to the numeric "
                               "dtype you want\n");
  }
}

TEST(Verifier, Relu) {
  auto loaded =
      check({in("a", "bf16", "[\"B\", 2, \"S\"]")}, {node("y", "relu", {"a"})});
  ASSERT_TRUE(loaded->verified) << dump(loaded->diags);
  EXPECT_EQ(typeOf(*loaded, "y"), "bf16[B,2,S]");
  auto scalar = check({in("a", "i8", "[]")}, {node("y", "relu", {"a"})});
  EXPECT_EQ(typeOf(*scalar, "y"), "i8[]");
  auto boolean = check({in("a", "bool", "[2]")}, {node("y", "relu", {"a"})});
  EXPECT_EQ(errors(*boolean),
            "bad-dtype: 'relu' node 'y' needs a numeric dtype (an integer or "
            "float dtype) for operand 0, not bool; insert a 'cast' to the "
            "numeric dtype you want\n");
}

TEST(Verifier, BroadcastAttribute) {
  auto run = [](const std::string &shape, const std::string &target) {
    return check(
        {in("a", "f32", shape)},
        {node("y", "broadcast", {"a"}, "{\"shape\": " + target + "}")});
  };
  {
    auto loaded = run("[3]", "[\"B\", 3]");
    ASSERT_TRUE(loaded->verified) << dump(loaded->diags);
    EXPECT_EQ(typeOf(*loaded, "y"), "f32[B,3]");
  }
  EXPECT_EQ(typeOf(*run("[1, 3]", "[\"B\", 4, 3]"), "y"), "f32[B,4,3]");
  EXPECT_EQ(typeOf(*run("[]", "[\"2*S\", 2]"), "y"), "f32[2*S,2]");
  EXPECT_EQ(typeOf(*run("[\"B\"]", "[\"B\"]"), "y"), "f32[B]");
  EXPECT_EQ(errors(*run("[2]", "[3]")),
            "shape-mismatch: 'broadcast' node 'y' cannot broadcast [2] to "
            "[3]: dimension 2 is neither 1 nor 3\n");
  EXPECT_EQ(errors(*run("[\"B\"]", "[1]")),
            "shape-mismatch: 'broadcast' node 'y' cannot broadcast [B] to "
            "[1]: dimension B is neither 1 nor 1\n");
  EXPECT_EQ(errors(*run("[2, 3]", "[3]")),
            "shape-mismatch: 'broadcast' node 'y' cannot broadcast [2,3] to "
            "the lower rank [3]\n");
  {
    auto loaded = run("[3]", "[\"Q\", 3]");
    EXPECT_EQ(errors(*loaded), "bad-attribute: in dimension 'Q': unknown "
                               "symbol 'Q'\n");
    EXPECT_EQ(errorAt(*loaded, 0).loc.pointer, "/nodes/0/attributes/shape/0");
  }
  EXPECT_EQ(errors(*run("[3]", "[-1, 3]")),
            "bad-attribute: dimension -1 is negative\n");
  EXPECT_EQ(errors(*run("[3]", "[281474976710657, 3]")),
            "bad-attribute: dimension 281474976710657 is over the limit\n");
  EXPECT_EQ(errors(*run("[3]", "[1, 1, 1, 1, 1, 1, 1, 1, 3]")),
            "bad-attribute: rank 9 is over the limit of 8\n");
  // A target expression that is negative for some symbol values.
  EXPECT_EQ(errors(*run("[3]", "[\"S-5\", 3]")),
            "bad-dim: the result of node 'y' has dimension 0 = S-5, which is "
            "negative for some symbol values (as low as -4)\n");
  // A constant expression that is negative.
  EXPECT_EQ(errors(*run("[3]", "[\"2-5\", 3]")),
            "bad-attribute: dimension '2-5' is negative (-3)\n");
}

TEST(Verifier, AttributeChecks) {
  auto errorsOf = [](const std::string &op, const std::string &attrs,
                     const std::vector<std::string> &operands = {"a"}) {
    return errors(*check({in("a", "f32", "[3]"), in("b", "f32", "[3]")},
                         {node("y", op, operands, attrs)}));
  };
  EXPECT_EQ(errorsOf("broadcast", "{}"),
            "missing-attribute: node 'y' (op 'broadcast') needs the attribute "
            "'shape'\n");
  EXPECT_EQ(errorsOf("broadcast", "{\"shape\": [3], \"axis\": 0}"),
            "unknown-attribute: op 'broadcast' has no attribute 'axis'; it "
            "takes 'shape'\n");
  EXPECT_EQ(errorsOf("add", "{\"alpha\": 1}", {"a", "b"}),
            "unknown-attribute: op 'add' has no attribute 'alpha'; it takes "
            "no attributes\n");
  for (const char *bad : {"3", "\"[3]\"", "[1.5]", "[true]", "[[3]]", "null"}) {
    std::string text =
        errorsOf("broadcast", "{\"shape\": " + std::string(bad) + "}");
    EXPECT_NE(text.find("attribute 'shape' of node 'y' must be a shape (a "
                        "list of integers or symbol expressions)"),
              std::string::npos)
        << bad << ": " << text;
  }
}

//===----------------------------------------------------------------------===//
// Graph structure
//===----------------------------------------------------------------------===//

TEST(Verifier, NodesListedOutOfOrderAreSorted) {
  auto loaded =
      check({in("x", "f32", "[\"B\", 4]"), in("w", "f32", "[4, 3]"),
             in("b", "f32", "[3]")},
            {node("y", "relu", {"s"}), node("s", "add", {"xw", "b"}),
             node("xw", "matmul", {"x", "w"}), node("z", "relu", {"x"})});
  ASSERT_TRUE(loaded->verified) << dump(loaded->diags);
  std::vector<std::string> order;
  for (const Node &n : loaded->program->body.nodes)
    order.push_back(n.name);
  // Dependencies first; otherwise the file order is kept.
  EXPECT_EQ(order, std::vector<std::string>({"xw", "s", "y", "z"}));
  EXPECT_EQ(typeOf(*loaded, "y"), "f32[B,3]");
  EXPECT_EQ(loaded->program->body.outputs[0].type.rank(), 2u);
}

TEST(Verifier, FileOrderIsKeptWhenValid) {
  auto loaded = check({in("x", "f32", "[2]")},
                      {node("c", "relu", {"x"}), node("a", "relu", {"x"}),
                       node("y", "add", {"a", "c"}), node("b", "relu", {"x"})});
  ASSERT_TRUE(loaded->verified) << dump(loaded->diags);
  std::vector<std::string> order;
  for (const Node &n : loaded->program->body.nodes)
    order.push_back(n.name);
  EXPECT_EQ(order, std::vector<std::string>({"c", "a", "y", "b"}));
}

TEST(Verifier, CycleDetection) {
  {
    auto loaded = check({in("x", "f32", "[2]")},
                        {node("a", "add", {"x", "b"}), node("b", "relu", {"c"}),
                         node("c", "relu", {"a"}), node("y", "relu", {"x"})});
    EXPECT_FALSE(loaded->verified);
    ASSERT_EQ(loaded->diags.errorCount(), 1u) << dump(loaded->diags);
    const Diagnostic &diag = errorAt(*loaded, 0);
    EXPECT_EQ(diag.id, "cycle");
    EXPECT_EQ(diag.message, "nodes form a cycle: a -> b -> c -> a (each uses "
                            "the next one's result)");
    EXPECT_EQ(diag.loc.pointer, "/nodes/0");
    ASSERT_EQ(diag.notes.size(), 2u);
    EXPECT_EQ(diag.notes[0].message, "'b' is part of the cycle");
    EXPECT_EQ(diag.notes[0].loc.pointer, "/nodes/1");
    EXPECT_EQ(diag.notes[1].message, "'c' is part of the cycle");
  }
  {
    auto loaded =
        check({in("x", "f32", "[2]")}, {node("y", "add", {"x", "y"})});
    EXPECT_EQ(errors(*loaded), "cycle: nodes form a cycle: y -> y (each uses "
                               "the next one's result)\n");
  }
  {
    // A node that only depends on the cycle is not part of it.
    auto loaded = check({in("x", "f32", "[2]")},
                        {node("d", "relu", {"a"}), node("a", "relu", {"b"}),
                         node("b", "relu", {"a"}), node("y", "relu", {"x"})});
    EXPECT_EQ(errors(*loaded), "cycle: nodes form a cycle: a -> b -> a (each "
                               "uses the next one's result)\n");
  }
}

TEST(Verifier, ACycleDoesNotHideOtherErrors) {
  auto loaded =
      check({in("x", "f32", "[2]")},
            {node("a", "relu", {"b"}), node("b", "relu", {"a"}),
             node("u", "frobnicate", {"x"}), node("v", "relu", {"x", "x"}),
             node("w", "add", {"a", "nope"}), node("y", "relu", {"x"})},
            kSymbols, "\"y\", \"missing\"");
  EXPECT_FALSE(loaded->verified);
  EXPECT_EQ(errorIds(*loaded),
            std::vector<std::string>({"cycle", "unknown-op", "operand-count",
                                      "unknown-value", "unknown-value"}))
      << dump(loaded->diags);
  EXPECT_EQ(typeOf(*loaded, "y"), "f32[2]");
}

TEST(Verifier, DanglingReferences) {
  {
    auto loaded = check({in("x", "f32", "[2]")}, {node("y", "relu", {"nope"})});
    EXPECT_EQ(errors(*loaded),
              "unknown-value: node 'y' uses 'nope', which is not an input, a "
              "constant or a node\n");
    EXPECT_EQ(errorAt(*loaded, 0).loc.pointer, "/nodes/0/operands/0");
  }
  {
    auto loaded =
        check({in("input", "f32", "[2]")}, {node("y", "relu", {"inpt"})});
    EXPECT_EQ(errors(*loaded),
              "unknown-value: node 'y' uses 'inpt', which is not an input, a "
              "constant or a node (did you mean 'input'?)\n");
  }
  {
    auto loaded = check({in("x", "f32", "[2]")}, {node("y", "relu", {"x:1"})});
    EXPECT_EQ(errors(*loaded), "bad-reference: 'x' has no result 1\n");
  }
  {
    auto loaded = check({in("x", "f32", "[2]")}, {node("y", "relu", {"x:a"})});
    EXPECT_EQ(errors(*loaded), "bad-reference: 'x:a' is not a value name "
                               "(write 'node' or 'node:N')\n");
  }
  {
    auto loaded =
        check({in("x", "f32", "[2]")}, {node("y", "relu", {"x"})}, kSymbols,
              "\"y\", {\"name\": \"o\", \"value\": \"zzz\"}, "
              "{\"name\": \"p\", \"value\": \"y:\"}");
    EXPECT_EQ(errors(*loaded),
              "unknown-value: output 'o' returns 'zzz', which is not an input, "
              "a constant or a node\n"
              "bad-reference: 'y:' is not a value name\n");
    EXPECT_EQ(errorAt(*loaded, 0).loc.pointer, "/outputs/1/value");
  }
  {
    // Operands of a node whose op is unknown are still resolved.
    auto loaded = check({in("x", "f32", "[2]")}, {node("y", "frob", {"nope"})});
    EXPECT_EQ(errorIds(*loaded),
              std::vector<std::string>({"unknown-value", "unknown-op"}));
  }
}

TEST(Verifier, InputsConstantsAndOutputsCanBeReferenced) {
  auto loaded = verify(program(
      "", in("x", "f32", "[2]"), node("y", "add", {"x", "c"}),
      "\"y\", {\"name\": \"copy\", \"value\": \"x\"}, "
      "{\"name\": \"k\", \"value\": \"c\"}",
      "{\"name\": \"c\", \"dtype\": \"f32\", \"shape\": [2], \"data\": 1}"));
  ASSERT_TRUE(loaded->verified) << dump(loaded->diags);
  const auto &outputs = loaded->program->body.outputs;
  EXPECT_EQ(dtypeName(outputs[1].type.dtype), "f32");
  EXPECT_EQ(outputs[1].type.rank(), 1u);
  EXPECT_EQ(outputs[2].type.rank(), 1u);
}

TEST(Verifier, ErrorsDoNotCascade) {
  // 'a' fails; its users are skipped rather than reported again.
  auto loaded = check({in("x", "f32", "[2]"), in("w", "f32", "[3]")},
                      {node("a", "add", {"x", "w"}), node("b", "relu", {"a"}),
                       node("y", "mul", {"b", "x"})});
  EXPECT_EQ(errorIds(*loaded), std::vector<std::string>({"shape-mismatch"}))
      << dump(loaded->diags);
}

TEST(Verifier, DuplicateNames) {
  {
    auto loaded = verify(program(
        "", in("x", "f32", "[2]") + ", " + in("x", "f32", "[3]"),
        node("c", "relu", {"x"}), "\"c\"",
        "{\"name\": \"c\", \"dtype\": \"f32\", \"shape\": [], \"data\": 1}"));
    EXPECT_FALSE(loaded->verified);
    EXPECT_EQ(errors(*loaded),
              "duplicate-name: the name 'x' is defined twice\n"
              "duplicate-name: the name 'c' is defined twice\n");
    const Diagnostic &first = errorAt(*loaded, 0);
    EXPECT_EQ(first.loc.pointer, "/inputs/1");
    ASSERT_EQ(first.notes.size(), 1u);
    EXPECT_EQ(first.notes[0].message, "first defined here");
    EXPECT_EQ(first.notes[0].loc.pointer, "/inputs/0");
    const Diagnostic &second = errorAt(*loaded, 1);
    EXPECT_EQ(second.loc.pointer, "/nodes/0");
    EXPECT_EQ(second.notes[0].loc.pointer, "/constants/0");
  }
  {
    auto loaded = check({in("x", "f32", "[2]")}, {node("y", "relu", {"x"})},
                        kSymbols, "\"y\", {\"name\": \"y\", \"value\": \"x\"}");
    EXPECT_EQ(errors(*loaded), "duplicate-name: output 'y' is listed twice\n");
    ASSERT_EQ(errorAt(*loaded, 0).notes.size(), 1u);
    EXPECT_EQ(errorAt(*loaded, 0).notes[0].message, "first listed here");
  }
}

TEST(Verifier, UnknownOpsAreNotRepresentable) {
  auto loaded =
      check({in("x", "f32", "[2, 2]")}, {node("y", "matmull", {"x", "x"})});
  EXPECT_FALSE(loaded->verified);
  ASSERT_EQ(loaded->diags.errorCount(), 1u);
  const Diagnostic &diag = errorAt(*loaded, 0);
  EXPECT_EQ(diag.id, "unknown-op");
  EXPECT_EQ(diag.category, DiagCategory::NotRepresentable);
  EXPECT_EQ(diag.message, "node 'y' cannot be exported: unknown op 'matmull' "
                          "(did you mean 'matmul'?)");
  EXPECT_EQ(diag.loc.pointer, "/nodes/0/op");
  EXPECT_EQ(loaded->diags.exitCode(), ExitNotRepresentable);

  auto cased = check({in("x", "f32", "[2]")}, {node("y", "Relu", {"x"})});
  EXPECT_EQ(errors(*cased), "unknown-op: node 'y' cannot be exported: "
                            "unknown op 'Relu' (did you mean 'relu'?)\n");
  auto far = check({in("x", "f32", "[2]")}, {node("y", "lstm_cell", {"x"})});
  EXPECT_EQ(errors(*far), "unknown-op: node 'y' cannot be exported: unknown "
                          "op 'lstm_cell'\n");
}

TEST(Verifier, UnsupportedOpsAreNotRepresentable) {
  auto loaded = check({in("x", "f32", "[2]")},
                      {node("p", "print", {"x"}), node("y", "relu", {"x"}),
                       node("n", "nonzero", {"x"})});
  EXPECT_FALSE(loaded->verified);
  ASSERT_EQ(loaded->diags.errorCount(), 2u);
  const Diagnostic &print = errorAt(*loaded, 0);
  EXPECT_EQ(print.id, "not-representable");
  EXPECT_EQ(print.category, DiagCategory::NotRepresentable);
  EXPECT_EQ(print.message,
            "node 'p' cannot be exported: op 'print' has a host side effect");
  ASSERT_EQ(print.notes.size(), 1u);
  EXPECT_EQ(print.notes[0].message,
            "hint: print the outputs on the host after the call returns");
  EXPECT_EQ(errorAt(*loaded, 1).message,
            "node 'n' cannot be exported: op 'nonzero' has an output shape "
            "that depends on tensor values");
  EXPECT_EQ(loaded->diags.exitCode(), ExitNotRepresentable);
  // An invalid program is reported as invalid even if it also uses a host op.
  auto mixed = check({in("x", "f32", "[2]")},
                     {node("p", "print", {"x"}), node("y", "relu", {"q"})});
  EXPECT_EQ(mixed->diags.exitCode(), ExitInvalidProgram);
}

TEST(Verifier, OperandCount) {
  auto errorsOf = [](const std::string &op,
                     const std::vector<std::string> &operands) {
    return errors(*check({in("x", "f32", "[2]")}, {node("y", op, operands)}));
  };
  EXPECT_EQ(errorsOf("relu", {"x", "x"}),
            "operand-count: op 'relu' takes 1 operand, but node 'y' has 2\n");
  EXPECT_EQ(errorsOf("relu", {}),
            "operand-count: op 'relu' takes 1 operand, but node 'y' has 0\n");
  EXPECT_EQ(errorsOf("add", {"x"}),
            "operand-count: op 'add' takes 2 operands, but node 'y' has 1\n");
  EXPECT_EQ(errorsOf("matmul", {"x", "x", "x"}),
            "operand-count: op 'matmul' takes 2 operands, but node 'y' has "
            "3\n");
}

TEST(Verifier, RegionsOnOpsWithoutRegions) {
  auto loaded = verify(
      program("", in("x", "f32", "[2]"),
              "{\"name\": \"y\", \"op\": \"relu\", \"operands\": [\"x\"], "
              "\"regions\": {\"then\": {\"nodes\": [{\"name\": \"t\", \"op\": "
              "\"relu\", \"operands\": [\"x\"]}], \"outputs\": [\"t\"]}}}, " +
                  node("z", "relu", {"t"}),
              "\"y\""));
  EXPECT_FALSE(loaded->verified);
  EXPECT_EQ(errors(*loaded),
            "unexpected-region: op 'relu' takes no regions, but node 'y' has "
            "region 'then'\n"
            "bad-reference: 't' is defined inside another node's region and "
            "is not visible here\n");
}

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

TEST(Verifier, NegativeDimensionsOverSymbolRanges) {
  {
    auto loaded = check({in("x", "f32", "[\"S-5\", 2]")},
                        {node("y", "relu", {"x"})}, sym("S", 1, 8));
    EXPECT_FALSE(loaded->verified);
    EXPECT_EQ(errors(*loaded),
              "bad-dim: input 'x' has dimension 0 = S-5, which is negative for "
              "some symbol values (as low as -4)\n");
    EXPECT_EQ(errorAt(*loaded, 0).loc.pointer, "/inputs/0/shape/0");
  }
  {
    // With S >= 5 the same dim is fine.
    auto loaded = check({in("x", "f32", "[\"S-5\", 2]")},
                        {node("y", "relu", {"x"})}, sym("S", 5, 8));
    EXPECT_TRUE(loaded->verified) << dump(loaded->diags);
  }
  {
    auto loaded =
        check({in("x", "f32", "[2, \"S-T\"]")}, {node("y", "relu", {"x"})},
              sym("S", 1, 8) + ", " + sym("T", 0, 3));
    EXPECT_EQ(errors(*loaded),
              "bad-dim: input 'x' has dimension 1 = S-T, which is negative for "
              "some symbol values (as low as -2)\n");
  }
}

TEST(Verifier, TensorSizeLimits) {
  {
    // 4 * 2^24 * 2^24 = 2^50 bytes.
    auto loaded = check({in("x", "f32", "[\"S\", \"S\"]")},
                        {node("y", "relu", {"x"})}, sym("S", 1, 1 << 24));
    EXPECT_EQ(errors(*loaded),
              "limit: input 'x' of shape [S,S] and dtype f32 can reach "
              "1125899906842624 bytes at the symbols' maximum values, over "
              "the limit of 2^48 bytes\n");
  }
  {
    // Exactly 2^48 bytes is allowed.
    auto loaded = check({in("x", "u8", "[\"S\", \"S\"]")},
                        {node("y", "relu", {"x"})}, sym("S", 1, 1 << 24));
    EXPECT_TRUE(loaded->verified) << dump(loaded->diags);
  }
  {
    auto loaded =
        check({in("x", "u8", "[\"S\", \"S\", \"S\", \"S\"]")},
              {node("y", "relu", {"x"})}, sym("S", 1, int64_t(1) << 40));
    EXPECT_EQ(errors(*loaded),
              "limit: input 'x' of shape [S,S,S,S] and dtype u8 can reach "
              "at least 2^63 bytes at the symbols' maximum values, over the "
              "limit of 2^48 bytes\n");
  }
  {
    // Results are checked too, and reported once: the users of a result
    // over the limit are skipped.
    auto loaded =
        check({in("a", "f32", "[\"S\", 1]"), in("b", "f32", "[1, \"S\"]")},
              {node("m", "matmul", {"a", "b"}), node("y", "relu", {"m"})},
              sym("S", 1, 1 << 24));
    EXPECT_EQ(errors(*loaded),
              "limit: the result of node 'm' of shape [S,S] and dtype f32 can "
              "reach 1125899906842624 bytes at the symbols' maximum values, "
              "over the limit of 2^48 bytes\n");
    EXPECT_EQ(errorAt(*loaded, 0).loc.pointer, "/nodes/0");
  }
  {
    // A zero dim keeps the tensor empty whatever the others are.
    auto loaded =
        check({in("x", "f64", "[0, \"S\", \"S\"]")}, {node("y", "relu", {"x"})},
              sym("S", 1, int64_t(1) << 40));
    EXPECT_TRUE(loaded->verified) << dump(loaded->diags);
  }
}

TEST(Verifier, UnusedSymbolsAreWarnings) {
  auto loaded = check({in("x", "f32", "[\"B\"]")}, {node("y", "relu", {"x"})},
                      sym("B", 1, 4) + ", " + sym("T", 1, 4));
  EXPECT_TRUE(loaded->verified) << dump(loaded->diags);
  ASSERT_EQ(loaded->diags.diagnostics().size(), 1u);
  const Diagnostic &diag = loaded->diags.diagnostics()[0];
  EXPECT_EQ(diag.severity, Severity::Warning);
  EXPECT_EQ(diag.id, "unused-symbol");
  EXPECT_EQ(diag.message, "symbol 'T' is not used by any input shape");
  EXPECT_EQ(diag.loc.pointer, "/symbols/1");
  EXPECT_EQ(loaded->diags.exitCode(), ExitOK);
}

TEST(Verifier, TheLinearSample) {
  auto sample = linearSample();
  ASSERT_TRUE(sample);
  auto loaded = verify(sample->contents().str());
  ASSERT_TRUE(loaded->verified) << dump(loaded->diags);
  EXPECT_TRUE(loaded->diags.diagnostics().empty()) << dump(loaded->diags);
  EXPECT_EQ(typeOf(*loaded, "xw"), "f32[B,3]");
  EXPECT_EQ(typeOf(*loaded, "y"), "f32[B,3]");
  const OutputDecl &output = loaded->program->body.outputs[0];
  EXPECT_EQ(output.name, "Y");
  EXPECT_EQ(shapeToString(output.type.shape, loaded->program->symbolNames()),
            "[B,3]");
}

} // namespace
