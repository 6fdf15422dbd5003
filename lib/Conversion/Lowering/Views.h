//===- Views.h - Reshaped views of tensors, shared by the lowerings -------===//
//
// Internal to the lowerings. A reshape that only regroups row-major dims is
// a view (tensor.collapse_shape / tensor.expand_shape, or tensor.reshape
// where MLIR 19's expand_shape cannot express the sizes); bufferization
// turns each into a view of the same buffer, never a copy.
//
//===----------------------------------------------------------------------===//
#ifndef TXC_LIB_CONVERSION_LOWERING_VIEWS_H
#define TXC_LIB_CONVERSION_LOWERING_VIEWS_H

#include "../MLIRGen.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

namespace txc {

/// A dim as an attribute when static, else as an index value: the sizes
/// and offsets of tensor views and slices.
mlir::OpFoldResult foldResult(MLIRGen &gen, const ShapeExpr &expr,
                              mlir::Location at);
llvm::SmallVector<mlir::OpFoldResult>
foldResults(MLIRGen &gen, const Shape &shape, mlir::Location at);

/// `source` with each group of its dims merged into one dim of
/// `resultType`.
mlir::Value collapseView(MLIRGen &gen, mlir::Location at, mlir::Value source,
                         const TensorType &resultType,
                         llvm::ArrayRef<mlir::ReassociationIndices> groups);

/// `source` with each of its dims split into the group of dims of
/// `resultType` (the inverse of collapseView).
mlir::Value expandView(MLIRGen &gen, mlir::Location at, mlir::Value source,
                       const TensorType &resultType,
                       llvm::ArrayRef<mlir::ReassociationIndices> groups);

} // namespace txc

#endif
