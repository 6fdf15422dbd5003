// RUN: txc-opt %s --split-input-file --txc-fold-in-place-outputs | FileCheck %s --check-prefix=FOLD

// An output computed in place from its argument (a fill into it, then a
// loop updating it): the materialization into the argument is dropped.
// FOLD-LABEL: func.func @in_place
// FOLD-NOT:     bufferization.materialize_in_destination
// FOLD:         return %[[L:.*]] : tensor<8xf32>
func.func @in_place(%out: tensor<8xf32>, %v: f32) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f = linalg.fill ins(%v : f32) outs(%out : tensor<8xf32>) -> tensor<8xf32>
  %l = scf.for %i = %c0 to %c8 step %c1 iter_args(%t = %f) -> tensor<8xf32> {
    %u = tensor.insert %v into %t[%i] : tensor<8xf32>
    scf.yield %u : tensor<8xf32>
  }
  %r = bufferization.materialize_in_destination %l in %out : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A value computed elsewhere (into an empty tensor) keeps its
// materialization: it must be copied into the output.
// FOLD-LABEL: func.func @elsewhere
// FOLD:         bufferization.materialize_in_destination
func.func @elsewhere(%out: tensor<8xf32>, %v: f32) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = bufferization.materialize_in_destination %f in %out : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
