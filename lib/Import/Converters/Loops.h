//===- Loops.h - Building txc while loops for the converters ----*- C++ -*-===//
//
// The converters of ONNX's loops (Loop, Scan, and the recurrent cells RNN,
// GRU and LSTM) all build one txc `while`: a state of tensors whose types
// never change, a `cond` region and a `body` region that read it, and a
// trip-count bound. What they share is here: the regions, the run-time
// value of a (symbolic) trip count, and the "stacked" outputs, which a loop
// carries as a tensor of every step's value, each step writing its row by
// a `select` against the row positions (a `range`), since txc has no write
// at a run-time index.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_IMPORT_CONVERTERS_LOOPS_H
#define TXC_LIB_IMPORT_CONVERTERS_LOOPS_H

#include "../Importer.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace txc::onnximport {

/// The state of a loop as values of one of its regions.
using LoopState = std::vector<MaybeValue>;

/// What a loop's body may do besides emitting its nodes: make values in the
/// graph around the loop, and add loop-carried values whose type it learns
/// only while it is built (a stacked output of an ONNX loop body).
class LoopBody {
public:
  LoopBody(NodeImporter &node, Graph &region, Graph *enclosing,
           std::vector<ImportedValue> &initial)
      : node(node), region(region), enclosing(enclosing), initial(initial) {}

  /// Runs `make` with its nodes emitted before the loop (values that do not
  /// change between iterations).
  MaybeValue outside(llvm::function_ref<MaybeValue()> make);
  /// Adds a loop-carried value after the others, starting as `start` (made
  /// `outside`); returns it as a value of the body. The body's next state
  /// ends with one value for each, in order.
  MaybeValue carry(MaybeValue start);
  /// A stacked output of `length` rows along `axis`, carried from zeros,
  /// with `element` written at `position` (stackStep): its next value.
  MaybeValue stack(const ImportedValue &element, const ShapeExpr &length,
                   int64_t axis, MaybeValue position);

private:
  NodeImporter &node;
  Graph &region;
  Graph *enclosing;
  std::vector<ImportedValue> &initial;
};

/// Emits a txc `while` whose state starts as `initial` (and the values the
/// body `carry`s), whose `body` region computes `body(state)` (the next
/// state, or nullopt after a diagnostic) and whose `cond` region computes
/// `condition(state)`, running at most `maxIterations` times. The regions'
/// nodes are emitted into them while the callbacks run. A next state whose
/// types differ from the state's is reported as not importable (txc's
/// loop-carried types never change). Returns the final state.
std::optional<std::vector<ImportedValue>>
emitWhile(NodeImporter &node, llvm::ArrayRef<MaybeValue> initial,
          int64_t maxIterations,
          llvm::function_ref<MaybeValue(const LoopState &)> condition,
          llvm::function_ref<std::optional<LoopState>(const LoopState &,
                                                      LoopBody &)>
              body);

/// The positions 0, 1, ... `length`-1 of a stacked output of rank `rank`
/// along `axis` (a `range`, with unit dims around it), made once before
/// the loop.
MaybeValue stackPositions(NodeImporter &node, const ShapeExpr &length,
                          int64_t axis, int64_t rank);

/// One step of a stacked output: `stack` with `element` written at
/// `position` (an i64 scalar) along `axis`, a `select` of the positions
/// that equal it. A stack of any length, 0 included, is filled so in as
/// many steps.
MaybeValue stackStep(NodeImporter &node, MaybeValue stack, MaybeValue element,
                     MaybeValue position, MaybeValue positions, int64_t axis);

/// A tensor of zeros of `dtype` and `shape` (a stack before the first step).
MaybeValue zeros(NodeImporter &node, DType dtype, const Shape &shape);

} // namespace txc::onnximport

#endif
