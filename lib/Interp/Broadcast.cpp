//===- Broadcast.cpp ------------------------------------------------------===//
#include "txc/Interp/Broadcast.h"

#include "txc/Interp/Tensor.h"

using namespace txc;

llvm::Expected<BroadcastWalker>
BroadcastWalker::create(llvm::ArrayRef<int64_t> resultShape,
                        llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes) {
  BroadcastWalker walker;
  walker.shape = resultShape.vec();
  walker.counter.assign(resultShape.size(), 0);
  walker.total = Tensor::elementCount(resultShape).value_or(0);
  size_t rank = resultShape.size();
  for (llvm::ArrayRef<int64_t> operand : operandShapes) {
    if (operand.size() > rank)
      return llvm::createStringError(
          "operand shape %s has a higher rank than the result %s",
          shapeString(operand).c_str(), shapeString(resultShape).c_str());
    std::vector<int64_t> stride(rank, 0);
    int64_t step = 1;
    for (size_t i = operand.size(); i-- > 0;) {
      size_t d = rank - operand.size() + i;
      if (operand[i] != resultShape[d] && operand[i] != 1)
        return llvm::createStringError(
            "operand shape %s does not broadcast to %s",
            shapeString(operand).c_str(), shapeString(resultShape).c_str());
      stride[d] = operand[i] == 1 ? 0 : step;
      step *= operand[i];
    }
    walker.strides.push_back(std::move(stride));
  }
  walker.offsets.assign(operandShapes.size(), 0);
  return walker;
}

void BroadcastWalker::next() {
  ++index;
  for (size_t d = shape.size(); d-- > 0;) {
    if (++counter[d] < shape[d])
      break;
    counter[d] = 0;
  }
  updateOffsets();
}

void BroadcastWalker::updateOffsets() {
  for (size_t k = 0; k < strides.size(); ++k) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      offset += counter[d] * strides[k][d];
    offsets[k] = offset;
  }
}
