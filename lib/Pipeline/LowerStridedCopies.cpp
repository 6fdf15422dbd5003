//===- LowerStridedCopies.cpp - Copies that need no runtime library -------===//
//
// MemRefToLLVM turns a memref.copy into memcpy only when it sees that both
// memrefs are contiguous; any other copy becomes a call of `memrefCopy`,
// a function of MLIR's runtime library that no C library has, so the object
// would not link (docs/abi.md, "Imports"). Bufferization creates strided
// copies as linalg.copy (Pipeline.cpp), but the canonicalizer can later fold
// a memref.cast into a copy and make its source strided again: an output
// that is a strided slice, returned through a cast, at -O0. Before the linalg
// loops are generated, this pass turns every such copy into a linalg.copy.
//
//===----------------------------------------------------------------------===//
#include "Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace txc {
#define GEN_PASS_DEF_LOWERSTRIDEDCOPIESPASS
#include "Passes.h.inc"

namespace {

/// The condition under which MemRefToLLVM copies with memcpy.
bool copiesWithMemcpy(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && (memref.getLayout().isIdentity() ||
                    memref::isStaticShapeAndContiguousRowMajor(memref));
}

class LowerStridedCopiesPass
    : public impl::LowerStridedCopiesPassBase<LowerStridedCopiesPass> {
public:
  void runOnOperation() override {
    SmallVector<memref::CopyOp> strided;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!copiesWithMemcpy(copy.getSource().getType()) ||
          !copiesWithMemcpy(copy.getTarget().getType()))
        strided.push_back(copy);
    });
    for (memref::CopyOp copy : strided) {
      OpBuilder builder(copy);
      builder.create<linalg::CopyOp>(copy.getLoc(), copy.getSource(),
                                     copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace

} // namespace txc
