//===- Recurrent.cpp - ONNX RNN, GRU and LSTM -----------------------------===//
//
// RNN-14, GRU-14 and LSTM-14 as txc `while` loops over the sequence, one
// per direction. The input projection X·Wᵀ + Wb of every step is one
// `linear` before the loop; each iteration reads its step's row (a gather
// at the step index), computes the cell's gates from the carried hidden
// (and cell) state with ONNX's equations, and carries the sequence of
// hidden states Y too, writing the step's row by a `select` (Loops.h). The
// loop runs seq_length times: seq_length is static or symbolic (its
// run-time value is then the sum of ones broadcast along it, and
// `max_iterations` its declared maximum).
//
//===----------------------------------------------------------------------===//
#include "Loops.h"

using namespace txc;
using namespace txc::onnximport;

namespace {

enum class CellKind { Rnn, Gru, Lstm };

int64_t gateCount(CellKind kind) {
  return kind == CellKind::Rnn ? 1 : kind == CellKind::Gru ? 3 : 4;
}

std::vector<std::string> defaultActivations(CellKind kind) {
  if (kind == CellKind::Rnn)
    return {"Tanh"};
  if (kind == CellKind::Gru)
    return {"Sigmoid", "Tanh"};
  return {"Sigmoid", "Tanh", "Tanh"};
}

MaybeValue take(NodeImporter &node, MaybeValue x, int64_t index) {
  return emitIf(node, "gather", {x, node.scalar(DType::I64, double(index))},
                {intAttr("axis", 0)});
}

/// Elements [begin, end) along `axis` (end may count from the end).
MaybeValue part(NodeImporter &node, MaybeValue x, int64_t begin, int64_t end,
                int64_t axis) {
  return emitIf(node, "slice", {x},
                {intListAttr("starts", {begin}), intListAttr("ends", {end}),
                 intListAttr("axes", {axis})});
}

MaybeValue linearOf(NodeImporter &node, MaybeValue x, MaybeValue w,
                    MaybeValue bias) {
  if (bias)
    return emitIf(node, "linear", {x, w, bias});
  return emitIf(node, "linear", {x, w});
}

/// One direction's weights, as ONNX gives them for direction `d`.
struct DirectionWeights {
  MaybeValue w, r, wb, rb, peephole, h0, c0;
  bool reverse = false;
};

/// The carried state of one loop and what its body computes from it.
struct CellStep {
  MaybeValue h, c;
};

/// One step of the cell from the step's projected input `x` ([B, G*H])
/// and the state, ONNX's equations with the default activations.
CellStep cellStep(NodeImporter &node, CellKind kind, int64_t hidden,
                  bool linearBeforeReset, const DirectionWeights &dir,
                  MaybeValue x, MaybeValue h, MaybeValue c) {
  DType t = x ? x->type.dtype : DType::F32;
  auto gate = [&](MaybeValue v, int64_t i) {
    return part(node, v, i * hidden, (i + 1) * hidden, 1);
  };
  if (kind == CellKind::Rnn)
    return {emitIf(node, "tanh",
                   {emitIf(node, "add", {x, linearOf(node, h, dir.r, dir.rb)})}),
            {}};
  if (kind == CellKind::Lstm) {
    // Gates in ONNX's order i, o, f, c; peepholes P = [Pi, Po, Pf].
    MaybeValue g = emitIf(node, "add", {x, linearOf(node, h, dir.r, dir.rb)});
    MaybeValue i = gate(g, 0), o = gate(g, 1), f = gate(g, 2);
    auto peep = [&](MaybeValue v, int64_t k, MaybeValue state) {
      if (!dir.peephole)
        return v;
      return emitIf(node, "add",
                    {v, emitIf(node, "mul",
                               {part(node, dir.peephole, k * hidden,
                                     (k + 1) * hidden, 0),
                                state})});
    };
    i = emitIf(node, "sigmoid", {peep(i, 0, c)});
    f = emitIf(node, "sigmoid", {peep(f, 2, c)});
    MaybeValue cNew = emitIf(
        node, "add",
        {emitIf(node, "mul", {f, c}),
         emitIf(node, "mul", {i, emitIf(node, "tanh", {gate(g, 3)})})});
    o = emitIf(node, "sigmoid", {peep(o, 1, cNew)});
    return {emitIf(node, "mul", {o, emitIf(node, "tanh", {cNew})}), cNew};
  }
  // GRU: gates z, r, h.
  MaybeValue rh = linearOf(node, h, dir.r, dir.rb);
  MaybeValue z = emitIf(node, "sigmoid",
                        {emitIf(node, "add", {gate(x, 0), gate(rh, 0)})});
  MaybeValue r = emitIf(node, "sigmoid",
                        {emitIf(node, "add", {gate(x, 1), gate(rh, 1)})});
  MaybeValue candidate;
  if (linearBeforeReset) {
    candidate = emitIf(node, "mul", {r, gate(rh, 2)});
  } else {
    MaybeValue rowsH = part(node, dir.r, 2 * hidden, 3 * hidden, 0);
    MaybeValue biasH =
        dir.rb ? part(node, dir.rb, 2 * hidden, 3 * hidden, 0) : MaybeValue();
    candidate = linearOf(node, emitIf(node, "mul", {r, h}), rowsH, biasH);
  }
  MaybeValue hTilde =
      emitIf(node, "tanh", {emitIf(node, "add", {gate(x, 2), candidate})});
  MaybeValue keep = emitIf(node, "sub", {node.scalar(t, 1), z});
  return {emitIf(node, "add", {emitIf(node, "mul", {keep, hTilde}),
                               emitIf(node, "mul", {z, h})}),
          {}};
}

/// The loop of one direction over the projected inputs `xw` ([T, B, G*H]):
/// the final hidden (and cell) state, and all hidden states [T, B, H].
struct LoopResults {
  MaybeValue h, c, y;
};

std::optional<LoopResults>
runDirection(NodeImporter &node, CellKind kind, int64_t hidden,
             bool linearBeforeReset, const DirectionWeights &dir,
             MaybeValue xw, MaybeValue count, int64_t maxSteps) {
  const Shape &shape = xw->type.shape; // [T, B, G*H]
  DType t = xw->type.dtype;
  Shape sequenceShape = {shape[0], shape[1], ShapeExpr::constant(hidden)};
  bool lstm = kind == CellKind::Lstm;
  std::vector<MaybeValue> initial = {node.scalar(DType::I64, 0), dir.h0};
  if (lstm)
    initial.push_back(dir.c0);
  initial.push_back(zeros(node, t, sequenceShape));
  MaybeValue last =
      dir.reverse ? emitIf(node, "sub", {count, node.scalar(DType::I64, 1)})
                  : MaybeValue();
  MaybeValue positions = stackPositions(node, shape[0], 0, 3);
  auto condition = [&](const LoopState &state) {
    return emitIf(node, "lt", {state[0], count});
  };
  auto body = [&](const LoopState &state,
                  LoopBody &) -> std::optional<LoopState> {
    MaybeValue step =
        dir.reverse ? emitIf(node, "sub", {last, state[0]}) : state[0];
    MaybeValue x = emitIf(node, "gather", {xw, step}, {intAttr("axis", 0)});
    CellStep next = cellStep(node, kind, hidden, linearBeforeReset, dir, x,
                             state[1], lstm ? state[2] : MaybeValue());
    // Y holds the hidden state of sequence step k at row k.
    LoopState outputs = {
        emitIf(node, "add", {state[0], node.scalar(DType::I64, 1)}), next.h};
    if (lstm)
      outputs.push_back(next.c);
    outputs.push_back(
        stackStep(node, state.back(), next.h, step, positions, 0));
    return outputs;
  };
  auto results = emitWhile(node, initial, maxSteps, condition, body);
  if (!results)
    return std::nullopt;
  return LoopResults{(*results)[1], lstm ? (*results)[2] : MaybeValue(),
                     results->back()};
}

/// Checks the attributes txc does not implement (other activations, clip,
/// LSTM's input_forget, sequence_lens shorter than the sequence).
llvm::LogicalResult checkSupported(NodeImporter &node, CellKind kind,
                                   int64_t directions, const ShapeExpr &steps) {
  if (const onnx::AttributeProto *attr = node.attr("activations")) {
    std::vector<std::string> expected;
    for (int64_t d = 0; d < directions; ++d)
      for (const std::string &name : defaultActivations(kind))
        expected.push_back(name);
    std::vector<std::string> given(attr->strings().begin(),
                                   attr->strings().end());
    if (given != expected)
      return node.unsupportedAttr("activations", "is not the default",
                                  "txc imports the default activations only");
  }
  if (node.attr("clip"))
    return node.unsupportedAttr("clip", "is set",
                                "txc's recurrent cells do not clip");
  if (kind == CellKind::Lstm && node.intAttr("input_forget", 0) != 0)
    return node.unsupportedAttr("input_forget", "is 1", "");
  if (node.hasInput(4)) {
    const KnownTensor *lengths = node.known(4);
    std::optional<std::vector<int64_t>> values =
        lengths ? lengths->staticInts() : std::nullopt;
    std::optional<int64_t> all = steps.getConstant();
    if (!values || !all ||
        llvm::any_of(*values, [&](int64_t v) { return v != *all; }))
      return node.unsupported("its sequence_lens is not the whole sequence "
                              "for every batch element",
                              "export without packed (variable-length) "
                              "sequences");
  }
  return llvm::success();
}

/// Stacks one value per direction along `axis` ([D, ...] or [T, D, ...]).
MaybeValue stack(NodeImporter &node, llvm::ArrayRef<MaybeValue> values,
                 int64_t axis) {
  std::vector<MaybeValue> rows;
  for (const MaybeValue &value : values)
    rows.push_back(
        emitIf(node, "unsqueeze", {value}, {intListAttr("axes", {axis})}));
  if (rows.size() == 1)
    return rows[0];
  return emitIf(node, "concat", {rows[0], rows[1]}, {intAttr("axis", axis)});
}

template <CellKind Kind>
llvm::LogicalResult convertRecurrent(NodeImporter &node) {
  int64_t hidden = node.intAttr("hidden_size", 0);
  bool batchMajor = node.intAttr("layout", 0) != 0;
  std::string direction = node.stringAttr("direction", "forward");
  if (hidden < 1)
    return node.invalid("its hidden_size is " + llvm::Twine(hidden));
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return node.invalid("its direction is '" + direction + "'");
  int64_t directions = direction == "bidirectional" ? 2 : 1;
  MaybeValue x = node.input(0);
  if (x->type.rank() != 3)
    return node.invalid("its input X has rank " +
                        llvm::Twine(x->type.rank()) + ", not 3");
  if (batchMajor)
    x = node.emit("transpose", {*x}, {intListAttr("perm", {1, 0, 2})});
  if (!x)
    return llvm::failure();
  const ShapeExpr steps = x->type.shape[0];
  if (llvm::failed(checkSupported(node, Kind, directions, steps)))
    return llvm::failure();
  Interval stepRange = dimBounds(node, steps);
  if (stepRange.min < 1)
    return node.unsupported("its sequence length " + node.str({steps}) +
                                " may be 0",
                            "declare the dim's range from 1");
  MaybeValue count = dimValue(node, steps);
  DType t = x->type.dtype;
  Shape stateShape = {x->type.shape[1], ShapeExpr::constant(hidden)};
  int64_t gates = gateCount(Kind) * hidden;
  std::vector<MaybeValue> hs, cs, ys;
  for (int64_t d = 0; d < directions; ++d) {
    DirectionWeights dir;
    dir.reverse = direction == "reverse" || d == 1;
    dir.w = take(node, node.input(1), d);
    dir.r = take(node, node.input(2), d);
    if (node.hasInput(3)) {
      MaybeValue bias = take(node, node.input(3), d);
      dir.wb = part(node, bias, 0, gates, 0);
      dir.rb = part(node, bias, gates, 2 * gates, 0);
    }
    dir.h0 = node.hasInput(5) ? take(node, node.input(5), d)
                              : zeros(node, t, stateShape);
    if (Kind == CellKind::Lstm) {
      dir.c0 = node.hasInput(6) ? take(node, node.input(6), d)
                                : zeros(node, t, stateShape);
      if (node.hasInput(7))
        dir.peephole = take(node, node.input(7), d);
    }
    MaybeValue xw = linearOf(node, x, dir.w, dir.wb);
    if (!xw || !count)
      return llvm::failure();
    std::optional<LoopResults> loop = runDirection(
        node, Kind, hidden, node.intAttr("linear_before_reset", 0) != 0, dir,
        xw, count, stepRange.max);
    if (!loop)
      return llvm::failure();
    hs.push_back(loop->h);
    cs.push_back(loop->c);
    ys.push_back(loop->y);
  }
  // Y [T, D, B, H] (layout 1: [B, T, D, H]); Y_h, Y_c [D, B, H] ([B, D, H]).
  MaybeValue y = stack(node, ys, 1);
  MaybeValue yh = stack(node, hs, 0);
  MaybeValue yc = Kind == CellKind::Lstm ? stack(node, cs, 0) : MaybeValue();
  if (batchMajor) {
    y = emitIf(node, "transpose", {y}, {intListAttr("perm", {2, 0, 1, 3})});
    yh = emitIf(node, "transpose", {yh}, {intListAttr("perm", {1, 0, 2})});
    if (yc)
      yc = emitIf(node, "transpose", {yc}, {intListAttr("perm", {1, 0, 2})});
  }
  return outputsIf(node, {y, yh, yc});
}

} // namespace

void txc::onnximport::addRecurrentConverters(
    std::vector<ConverterEntry> &table) {
  table.insert(table.end(),
               {
                   {"RNN", 14, 17, convertRecurrent<CellKind::Rnn>},
                   {"GRU", 14, 17, convertRecurrent<CellKind::Gru>},
                   {"LSTM", 14, 17, convertRecurrent<CellKind::Lstm>},
               });
}
