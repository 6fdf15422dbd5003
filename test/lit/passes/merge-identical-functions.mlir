// RUN: txc-opt %s --txc-merge-identical-functions | FileCheck %s

// @nest0 and @nest2 are identical but for their names and SSA names: the
// calls of @nest2 go to @nest0 and @nest2 is erased. @nest1 differs in one
// constant, and @kernel is public (part of the ABI): both stay.
// CHECK-LABEL: func.func private @nest0(
// CHECK-LABEL: func.func private @nest1(
// CHECK:         arith.constant 2.000000e+00 : f32
// CHECK-NOT:   func.func private @nest2
// CHECK-LABEL: func.func @kernel(
// CHECK-NEXT:    call @nest0(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT:    call @nest1(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT:    call @nest0(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT:    call @nest0(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT:    return
func.func private @nest0(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %v, %m[%i] : memref<8xf32>
  }
  return
}
func.func private @nest1(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %v, %m[%i] : memref<8xf32>
  }
  return
}
func.func private @nest2(%buffer: memref<8xf32>) {
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  %eight = arith.constant 8 : index
  %value = arith.constant 1.0 : f32
  scf.for %j = %zero to %eight step %one {
    memref.store %value, %buffer[%j] : memref<8xf32>
  }
  return
}
func.func @kernel(%m: memref<8xf32>) {
  call @nest0(%m) : (memref<8xf32>) -> ()
  call @nest1(%m) : (memref<8xf32>) -> ()
  call @nest2(%m) : (memref<8xf32>) -> ()
  call @kernel_copy(%m) : (memref<8xf32>) -> ()
  return
}
// After @kernel, and identical to @nest0: merged into it too.
func.func private @kernel_copy(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %v, %m[%i] : memref<8xf32>
  }
  return
}

// A task function's address (ParallelTasks) follows the merge too.
// CHECK-LABEL: func.func private @task0(
// CHECK-NOT:   func.func private @task1(
// CHECK-LABEL: func.func @launcher(
// CHECK-NEXT:    constant @task0 : (!llvm.ptr, i64) -> ()
// CHECK-NEXT:    constant @task0 : (!llvm.ptr, i64) -> ()
func.func private @task0(%arg: !llvm.ptr, %i: i64) {
  return
}
func.func private @task1(%a: !llvm.ptr, %j: i64) {
  return
}
func.func @launcher() -> ((!llvm.ptr, i64) -> (), (!llvm.ptr, i64) -> ()) {
  %0 = func.constant @task0 : (!llvm.ptr, i64) -> ()
  %1 = func.constant @task1 : (!llvm.ptr, i64) -> ()
  return %0, %1 : (!llvm.ptr, i64) -> (), (!llvm.ptr, i64) -> ()
}
