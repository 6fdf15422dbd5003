// RUN: txc-opt %s --txc-vectorize-static-ops | FileCheck %s
// RUN: txc-opt %s "--txc-vectorize-static-ops=max-elements=16" | FileCheck %s --check-prefix=SMALL

// txc-vectorize-static-ops vectorizes every static linalg op on tensors of
// at most max-elements (4096 by default): the 4x8 op becomes vector code,
// the dynamic one stays. With max-elements=16 the 4x8 op stays too. A
// config that no strategy pass applied is dropped.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @ops
// CHECK:         vector.transfer_read {{.*}} : tensor<4x8xf32>, vector<4x8xf32>
// CHECK:         arith.negf {{.*}} : vector<4x8xf32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<?x8xf32>)
// CHECK-NOT:     txc.lowering_config
// SMALL-LABEL: func.func @ops
// SMALL:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xf32>)
// SMALL:         linalg.generic {{.*}} ins(%{{.*}} : tensor<?x8xf32>)
func.func @ops(%s: tensor<4x8xf32>, %so: tensor<4x8xf32>,
               %d: tensor<?x8xf32>, %do: tensor<?x8xf32>)
    -> (tensor<4x8xf32>, tensor<?x8xf32>) {
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<4x8xf32>) outs(%so : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<?x8xf32>) outs(%do : tensor<?x8xf32>)
      attrs = {txc.lowering_config = {strategy = "elementwise", vector_lanes = 8 : i64, vectors_per_step = 4 : i64}} {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<?x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<?x8xf32>
}
