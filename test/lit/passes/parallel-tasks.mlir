// RUN: txc-opt %s --split-input-file --txc-parallel-tasks | FileCheck %s

// A marked loop whose iterations store at indices of their own: its body
// becomes a task function (the values it uses packed in a struct on the
// stack with the iterations per task and the trip count, constants
// recreated), and the loop a launch through the caller's parallel_for when
// the context allows it (with ceil(trips / grain) tasks), else one call of
// the same task that runs every iteration. Every function gets the context
// as first argument; calls pass it on.
// CHECK-LABEL: func.func @tiles(
// CHECK-SAME:    %[[CTX:arg0]]: !llvm.ptr, %[[M:arg1]]: memref<?x64xf32>, %[[N:arg2]]: index, %[[V:arg3]]: f32)
// CHECK:         %[[ARG:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(f32, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64, i64)>
// CHECK:         llvm.store %[[V]], %{{.*}} : f32, !llvm.ptr
// CHECK:         %[[D:.*]] = builtin.unrealized_conversion_cast %[[M]] : memref<?x64xf32> to !llvm.struct
// CHECK:         llvm.store %[[D]], %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
// CHECK:         %[[TRIPS:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[TSLOT:.*]] = llvm.getelementptr %[[ARG]][0, 3]
// CHECK:         llvm.store %[[TRIPS]], %[[TSLOT]] : i64, !llvm.ptr
// CHECK:         llvm.icmp "ne" %[[CTX]], %{{.*}} : !llvm.ptr
// CHECK:         %[[GO:.*]] = scf.if %{{.*}} -> (i1) {
// CHECK:           %[[HOOK:.*]] = llvm.load %[[CTX]] : !llvm.ptr -> !llvm.ptr
// CHECK:           llvm.getelementptr %[[CTX]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         scf.if %[[GO]] {
// CHECK:           %[[FN:.*]] = llvm.load %[[CTX]] : !llvm.ptr -> !llvm.ptr
// CHECK:           %[[GSLOT:.*]] = llvm.getelementptr %[[ARG]][0, 2]
// CHECK:           llvm.store %[[GRAIN:.*]], %[[GSLOT]] : i64, !llvm.ptr
// CHECK:           %[[TASKS:.*]] = arith.ceildivsi %[[TRIPS]], %[[GRAIN]] : i64
// CHECK:           %[[F:.*]] = func.constant @tiles_task0 : (!llvm.ptr, i64) -> ()
// CHECK:           %[[FP:.*]] = builtin.unrealized_conversion_cast %[[F]]
// CHECK:           llvm.call %[[FN]](%{{.*}}, %[[TASKS]], %[[FP]], %[[ARG]])
// CHECK:         } else {
// CHECK:           llvm.store %[[TRIPS]], %{{.*}} : i64, !llvm.ptr
// CHECK:           scf.if
// CHECK:             func.call @tiles_task0(%[[ARG]], %{{.*}}) : (!llvm.ptr, i64) -> ()
// CHECK-NOT:     txc.parallel
// CHECK:         return
// CHECK-LABEL: func.func private @tiles_task0(
// CHECK-SAME:    %[[TARG:arg0]]: !llvm.ptr, %[[K:arg1]]: i64) attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK:         %[[VV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[TD:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK:         %[[MM:.*]] = builtin.unrealized_conversion_cast %[[TD]] : {{.*}} to memref<?x64xf32>
// CHECK:         %[[G:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[T:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK:         %[[BEGIN:.*]] = arith.muli %[[KI]], %[[G]] : index
// CHECK:         %[[NEXT:.*]] = arith.addi %[[BEGIN]], %[[G]] : index
// CHECK:         %[[END:.*]] = arith.minsi %[[NEXT]], %[[T]] : index
// CHECK:         scf.for %[[I:.*]] = %[[BEGIN]] to %[[END]]
// CHECK:           %[[IV:.*]] = arith.addi
// CHECK:           scf.for %[[J:.*]] =
// CHECK:             memref.store %[[VV]], %[[MM]][%[[IV]], %[[J]]]
func.func @tiles(%m: memref<?x64xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %v, %m[%i, %j] : memref<?x64xf32>
    }
  } {txc.parallel}
  return
}

// -----

// Each iteration writes all of a buffer that lives outside the loop (a
// temporary in the workspace): the iterations are not independent, the loop
// stays. A stack buffer that only the loop uses is each task's own: it is
// recreated in the task. An unmarked loop stays.
// CHECK-LABEL: func.func @shared(
// CHECK-SAME:    %arg0: !llvm.ptr,
// CHECK:         scf.for
// CHECK:           memref.store %{{.*}}, %[[TMP:.*]][%{{.*}}] : memref<16xf32>
// CHECK:         call @shared_task0(
// CHECK-LABEL: func.func private @shared_task0(
// CHECK:         memref.alloca() : memref<16xf32>
func.func @shared(%out: memref<?x16xf32>, %ws: memref<16xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %row = memref.alloca() : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      memref.store %v, %ws[%j] : memref<16xf32>
      %x = memref.load %ws[%j] : memref<16xf32>
      memref.store %x, %out[%i, %j] : memref<?x16xf32>
    }
  } {txc.parallel}
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      memref.store %v, %row[%j] : memref<16xf32>
      %x = memref.load %row[%j] : memref<16xf32>
      memref.store %x, %out[%i, %j] : memref<?x16xf32>
    }
  } {txc.parallel}
  return
}

// -----

// Region functions receive the kernel's context: a call passes it first.
// CHECK-LABEL: func.func private @region(
// CHECK-SAME:    %arg0: !llvm.ptr, %arg1: memref<8xf32>)
// CHECK-LABEL: func.func @kernel(
// CHECK-SAME:    %[[CTX:arg0]]: !llvm.ptr, %[[M:arg1]]: memref<8xf32>)
// CHECK:         call @region(%[[CTX]], %[[M]]) : (!llvm.ptr, memref<8xf32>) -> ()
func.func private @region(%m: memref<8xf32>) {
  return
}
func.func @kernel(%m: memref<8xf32>) {
  call @region(%m) : (memref<8xf32>) -> ()
  return
}
