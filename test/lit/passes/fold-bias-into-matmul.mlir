// RUN: txc-opt %s --txc-fold-bias-into-matmul --split-input-file | FileCheck %s

// The bias add after a zero-initialized matmul becomes the matmul's
// accumulator: the matmul writes into the broadcast bias, and no add is left.
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @bias_after_matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<?x16xf32>, %[[B:.*]]: tensor<16x32xf32>, %[[BIAS:.*]]: tensor<32xf32>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[BIAS]] : tensor<32xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         %[[Y:.*]] = linalg.matmul ins(%[[A]], %[[B]] : {{.*}}) outs(%[[INIT]] : tensor<?x32xf32>)
// CHECK-NOT:     arith.addf
// CHECK:         return %[[Y]]
func.func @bias_after_matmul(%a: tensor<?x16xf32>, %b: tensor<16x32xf32>,
                             %bias: tensor<32xf32>, %n: index) -> tensor<?x32xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty(%n) : tensor<?x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x32xf32>) -> tensor<?x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x32xf32>)
                     outs(%fill : tensor<?x32xf32>) -> tensor<?x32xf32>
  %out = tensor.empty(%n) : tensor<?x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<?x32xf32>, tensor<32xf32>) outs(%out : tensor<?x32xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// A matmul whose accumulator is not zero keeps its add: folding would add
// the bias to a non-zero initial value.
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @nonzero_init
// CHECK:         linalg.fill
// CHECK:         linalg.matmul
// CHECK:         arith.addf
func.func @nonzero_init(%a: tensor<4x16xf32>, %b: tensor<16x32xf32>,
                        %bias: tensor<32xf32>) -> tensor<4x32xf32> {
  %one = arith.constant 1.0 : f32
  %empty = tensor.empty() : tensor<4x32xf32>
  %fill = linalg.fill ins(%one : f32) outs(%empty : tensor<4x32xf32>) -> tensor<4x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x32xf32>)
                     outs(%fill : tensor<4x32xf32>) -> tensor<4x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<4x32xf32>, tensor<32xf32>) outs(%empty : tensor<4x32xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// The matmul's result has a second user, which needs the product without
// the bias: nothing changes.
#bias = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @product_used_twice
// CHECK:         linalg.fill
// CHECK:         arith.addf
func.func @product_used_twice(%a: tensor<4x16xf32>, %b: tensor<16x32xf32>,
                              %bias: tensor<32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x32xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x32xf32>) -> tensor<4x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x32xf32>)
                     outs(%fill : tensor<4x32xf32>) -> tensor<4x32xf32>
  %y = linalg.generic {indexing_maps = [#id, #bias, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<4x32xf32>, tensor<32xf32>) outs(%empty : tensor<4x32xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %y, %m : tensor<4x32xf32>, tensor<4x32xf32>
}
