// RUN: txc-opt %s --txc-split-empty-tensors | FileCheck %s

// Ten users of one empty tensor (as CSE leaves them): the first eight keep
// it, the next eight (here two) get a copy, so that one-shot bufferization
// analyzes alias sets of at most eight ops.
// CHECK-LABEL: func.func @ten_users
// CHECK:         %[[E0:.*]] = tensor.empty(%{{.*}}) : tensor<?x64xf32>
// CHECK-NEXT:    %[[E1:.*]] = tensor.empty(%{{.*}}) : tensor<?x64xf32>
// CHECK-NOT:     tensor.empty
// CHECK-COUNT-8: linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<?x64xf32>)
// CHECK-COUNT-2: linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<?x64xf32>)
func.func @ten_users(%n: index, %v: f32) -> (tensor<?x64xf32>, tensor<?x64xf32>,
    tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>,
    tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>) {
  %e = tensor.empty(%n) : tensor<?x64xf32>
  %0 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %1 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %2 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %3 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %4 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %5 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %6 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %7 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %8 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  %9 = linalg.fill ins(%v : f32) outs(%e : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<?x64xf32>, tensor<?x64xf32>,
    tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>,
    tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
}

// The destination of an insert_slice always gets an empty tensor of its
// own, even when the inserted value was computed into the same one.
// CHECK-LABEL: func.func @insert_into_own_empty
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NEXT:    %[[D:.*]] = tensor.empty() : tensor<8xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<8xf32>)
// CHECK:         tensor.insert_slice %{{.*}} into %[[D]][0] [4] [1]
func.func @insert_into_own_empty(%v: f32) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = tensor.extract_slice %f[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %r = tensor.insert_slice %s into %e[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
  return %r : tensor<8xf32>
}
