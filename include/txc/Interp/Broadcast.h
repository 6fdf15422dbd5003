//===- Broadcast.h - numpy broadcasting on concrete shapes ------*- C++ -*-===//
//
// Operands are aligned with the result from the right; an operand dimension
// of size 1 is read at index 0 for every index of the result's dimension,
// any other operand dimension must equal the result's. On the shapes the
// verifier accepted (broadcastShapes: only static 1s stretch, symbolic dims
// are equal expressions) this reads the same elements as the compiled
// code's indexing maps, whatever values the symbols take.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_INTERP_BROADCAST_H
#define TXC_INTERP_BROADCAST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace txc {

/// Walks the elements of a result shape in row-major order and gives, for
/// each operand, the linear index of the element broadcasting reads.
class BroadcastWalker {
public:
  /// Fails if an operand does not broadcast to `resultShape`.
  static llvm::Expected<BroadcastWalker>
  create(llvm::ArrayRef<int64_t> resultShape,
         llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes);

  bool done() const { return index >= total; }
  int64_t resultIndex() const { return index; }
  int64_t operandIndex(size_t operand) const { return offsets[operand]; }
  void next();

private:
  BroadcastWalker() = default;
  void updateOffsets();

  std::vector<int64_t> shape;
  std::vector<int64_t> counter; ///< the result's multi-index
  /// Per operand, the stride of each result dimension (0 if broadcast).
  std::vector<std::vector<int64_t>> strides;
  std::vector<int64_t> offsets;
  int64_t index = 0;
  int64_t total = 0;
};

} // namespace txc

#endif
