// RUN: txc-opt %s --txc-fma-to-llvm | FileCheck %s

// math.fma becomes llvm.intr.fma, also on 2-D vectors (as arrays of 1-D
// vectors), so that math-to-libm, which runs next, leaves no call of fmaf
// per lane.
// CHECK-LABEL: func.func @fma
// CHECK:         llvm.intr.fma({{.*}}) {{.*}}: (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// CHECK-COUNT-2: llvm.intr.fma({{.*}}) {{.*}}: (vector<4xf32>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK-NOT:     math.fma
func.func @fma(%a: vector<8xf32>, %b: vector<2x4xf32>) -> (vector<8xf32>, vector<2x4xf32>) {
  %0 = math.fma %a, %a, %a : vector<8xf32>
  %1 = math.fma %b, %b, %b : vector<2x4xf32>
  return %0, %1 : vector<8xf32>, vector<2x4xf32>
}
