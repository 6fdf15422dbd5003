// RUN: txc-opt %s --split-input-file --txc-parallel-tasks | FileCheck %s

// A marked loop whose iterations store at indices of their own: its body
// becomes a task function (the values it uses packed in a struct on the
// stack with the iterations per task and the trip count, constants
// recreated), and the loop a call of the task's launcher: a launch through
// the caller's parallel_for when the context allows it (with
// ceil(trips / grain) tasks), else a call of the serial copy of the loop.
// The kernel gets the context as first argument.
// CHECK-LABEL: func.func @tiles(
// CHECK-SAME:    %[[CTX:arg0]]: !llvm.ptr, %[[M:arg1]]: memref<?x64xf32>, %[[N:arg2]]: index, %[[V:arg3]]: f32)
// CHECK:         %[[ARG:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(f32, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64, i64, i64)>
// CHECK:         llvm.store %[[V]], %{{.*}} : f32, !llvm.ptr
// CHECK:         %[[D:.*]] = builtin.unrealized_conversion_cast %[[M]] : memref<?x64xf32> to !llvm.struct
// CHECK:         llvm.store %[[D]], %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, !llvm.ptr
// CHECK:         arith.maxsi
// CHECK-NEXT:    %[[TRIPS:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[TSLOT:.*]] = llvm.getelementptr %[[ARG]][0, 4]
// CHECK:         llvm.store %[[TRIPS]], %[[TSLOT]] : i64, !llvm.ptr
// CHECK:         call @tiles_task0_launch(%[[CTX]], %[[ARG]], %[[TRIPS]], %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64) -> ()
// CHECK-NOT:     txc.parallel
// CHECK:         return
// CHECK-LABEL: func.func private @tiles_task0_launch(
// CHECK-SAME:    %[[LCTX:arg0]]: !llvm.ptr, %[[LARG:arg1]]: !llvm.ptr, %[[LTRIPS:arg2]]: i64, %{{.*}}: i64) attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK:         llvm.icmp "ne" %[[LCTX]], %{{.*}} : !llvm.ptr
// CHECK:         %[[GO:.*]] = scf.if %{{.*}} -> (i1) {
// CHECK:           %[[HOOK:.*]] = llvm.load %[[LCTX]] : !llvm.ptr -> !llvm.ptr
// CHECK:           llvm.getelementptr %[[LCTX]][2] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         scf.if %[[GO]] {
// CHECK:           %[[FN:.*]] = llvm.load %[[LCTX]] : !llvm.ptr -> !llvm.ptr
// CHECK:           %[[GSLOT:.*]] = llvm.getelementptr %[[LARG]][0, 3]
// CHECK:           llvm.store %[[GRAIN:.*]], %[[GSLOT]] : i64, !llvm.ptr
// CHECK:           %[[TASKS:.*]] = arith.ceildivsi %[[LTRIPS]], %[[GRAIN]] : i64
// CHECK:           %[[F:.*]] = func.constant @tiles_task0 : (!llvm.ptr, i64) -> ()
// CHECK:           %[[FP:.*]] = builtin.unrealized_conversion_cast %[[F]]
// CHECK:           llvm.call %[[FN]](%{{.*}}, %[[TASKS]], %[[FP]], %[[LARG]])
// CHECK:         } else {
// CHECK:           func.call @tiles_task0_serial(%[[LARG]]) : (!llvm.ptr) -> ()
// CHECK-LABEL: func.func private @tiles_task0(
// CHECK-SAME:    %[[TARG:arg0]]: !llvm.ptr, %[[K:arg1]]: i64) attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK:         %[[VV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[TD:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK:         %[[MM:.*]] = builtin.unrealized_conversion_cast %[[TD]] : {{.*}} to memref<?x64xf32>
// CHECK:         %[[GP:.*]] = llvm.getelementptr %[[TARG]][0, 3]
// CHECK:         %[[GL:.*]] = llvm.load %[[GP]] : !llvm.ptr -> i64
// CHECK:         %[[G:.*]] = arith.index_cast %[[GL]] : i64 to index
// CHECK:         %[[TP:.*]] = llvm.getelementptr %[[TARG]][0, 4]
// CHECK:         %[[TL:.*]] = llvm.load %[[TP]] : !llvm.ptr -> i64
// CHECK:         %[[T:.*]] = arith.index_cast %[[TL]] : i64 to index
// CHECK:         %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK:         %[[BEGIN:.*]] = arith.muli %[[KI]], %[[G]] : index
// CHECK:         %[[NEXT:.*]] = arith.addi %[[BEGIN]], %[[G]] : index
// CHECK:         %[[END:.*]] = arith.minsi %[[NEXT]], %[[T]] : index
// CHECK:         scf.for %[[I:.*]] = %[[BEGIN]] to %[[END]]
// CHECK:           %[[IV:.*]] = arith.addi
// CHECK:           scf.for %[[J:.*]] =
// CHECK:             memref.store %[[VV]], %[[MM]][%[[IV]], %[[J]]]
// Without threads, the loop itself with its own bounds (the upper bound
// from the struct, the constant lower bound and step recreated).
// CHECK-LABEL: func.func private @tiles_task0_serial(
// CHECK-SAME:    %{{.*}}: !llvm.ptr) attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK:         %[[SN:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-DAG:     %[[S0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[S1:.*]] = arith.constant 1 : index
// CHECK:         scf.for %{{.*}} = %[[S0]] to %[[SN]] step %[[S1]] {
// CHECK-NOT:     txc.parallel
// CHECK:         return
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
// CHECK:         call @shared_task0_launch(
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

// Scratch that every iteration overwrites, placed outside the loop: a
// tile remainder's buffer the Workspace pass hoisted (a view of the
// workspace at a fixed offset, re-viewed per iteration with the
// iteration's row count). Its sizes follow the induction variable, its
// bytes do not: the iterations share it, the loop stays serial.
// CHECK-LABEL: func.func @hoisted_scratch(
// CHECK-NOT:     @hoisted_scratch_task
// CHECK:         scf.for
// CHECK:           memref.view
// CHECK-NOT:     @hoisted_scratch_task
func.func @hoisted_scratch(%out: memref<?x16xf32>, %ws: memref<1024xi8>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %buffer = memref.view %ws[%c0][] : memref<1024xi8> to memref<384xi8>
  scf.for %i = %c0 to %n step %c6 {
    %left = arith.subi %n, %i : index
    %rows = arith.minsi %left, %c6 : index
    %tile = memref.view %buffer[%c0][%rows] : memref<384xi8> to memref<?x16xf32>
    scf.for %r = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        memref.store %v, %tile[%r, %j] : memref<?x16xf32>
      }
    }
    scf.for %r = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %x = memref.load %tile[%r, %j] : memref<?x16xf32>
        %row = arith.addi %i, %r : index
        memref.store %x, %out[%row, %j] : memref<?x16xf32>
      }
    }
  } {txc.parallel}
  return
}

// -----

// What the serial code has as constants the task has as constants: the
// view of the workspace at a fixed offset and the index arithmetic on a
// symbol are computed again in the task from the captured workspace and
// symbol (not loaded as a descriptor of the view and a number).
// CHECK-LABEL: func.func @recomputed(
// CHECK:         llvm.alloca %{{.*}} x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, i64, f32, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64, i64)>
// CHECK-LABEL: func.func private @recomputed_task0(
// CHECK:         %[[WS:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<1024xi8>
// CHECK:         %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     arith.muli %[[N]], %[[C4]] : index
// CHECK-DAG:     memref.view %[[WS]][%[[C0]]][] : memref<1024xi8> to memref<16xf32>
// CHECK:         scf.for
func.func @recomputed(%out: memref<?x16xf32>, %ws: memref<1024xi8>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %table = memref.view %ws[%c0][] : memref<1024xi8> to memref<16xf32>
  %n4 = arith.muli %n, %c4 : index
  scf.for %i = %c0 to %n4 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %t = memref.load %table[%j] : memref<16xf32>
      %k = arith.index_cast %n4 : index to i32
      %w = arith.sitofp %k : i32 to f32
      %u = arith.addf %t, %w : f32
      %x = arith.addf %u, %v : f32
      memref.store %x, %out[%i, %j] : memref<?x16xf32>
    }
  } {txc.parallel}
  return
}

// -----

// Region functions with a marked loop receive the kernel's context: a call
// passes it first. A function without (a workspace size function, which
// the entry points call with the symbols alone) keeps its signature.
// CHECK-LABEL: func.func private @region(
// CHECK-SAME:    %arg0: !llvm.ptr, %arg1: memref<?xf32>, %arg2: index)
// CHECK-LABEL: func.func private @region.workspace_size(
// CHECK-SAME:    %arg0: index) -> index
// CHECK-LABEL: func.func @kernel(
// CHECK-SAME:    %[[CTX:arg0]]: !llvm.ptr, %[[M:arg1]]: memref<?xf32>, %[[N:arg2]]: index)
// CHECK:         call @region.workspace_size(%[[N]]) : (index) -> index
// CHECK:         call @region(%[[CTX]], %[[M]], %[[N]]) : (!llvm.ptr, memref<?xf32>, index) -> ()
func.func private @region(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %m[%i] : memref<?xf32>
  } {txc.parallel}
  return
}
func.func private @region.workspace_size(%n: index) -> index {
  return %n : index
}
func.func @kernel(%m: memref<?xf32>, %n: index) {
  %size = call @region.workspace_size(%n) : (index) -> index
  call @region(%m, %n) : (memref<?xf32>, index) -> ()
  return
}

// -----

// A workspace temporary with task slots (txc.task_slots, from the
// Workspace pass) that only the marked loop uses: the loop is launched
// (a shared temporary would keep it serial), the launcher makes at most 4
// tasks (grain >= ceil(trips / 4)), task k moves its view by k times the
// slot's 256 bytes, and the serial loop keeps slot 0. The marks are gone.
// CHECK-LABEL: func.func @slots(
// CHECK:         call @slots_task0_launch(
// CHECK-LABEL: func.func private @slots_task0_launch(
// CHECK:           %[[MIN:.*]] = arith.ceildivsi %arg2, %c4_i64{{.*}} : i64
// CHECK-NEXT:      arith.maxsi %{{.*}}, %[[MIN]] : i64
// CHECK-LABEL: func.func private @slots_task0(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %[[K:arg1]]: i64)
// CHECK:         %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK-NEXT:    %[[STRIDE:.*]] = arith.constant 256 : index
// CHECK-NEXT:    %[[OFF:.*]] = arith.muli %[[KI]], %[[STRIDE]] : index
// CHECK-NEXT:    %[[SHIFT:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK-NEXT:    memref.view %{{.*}}[%[[SHIFT]]][] : memref<1024xi8> to memref<64xf32>
// CHECK-NOT:     txc.task_slot
// CHECK-LABEL: func.func private @slots_task0_serial(
// CHECK:         memref.view %{{.*}}[%c0][] : memref<1024xi8> to memref<64xf32>
// CHECK-NOT:     txc.task_slot
func.func @slots(%out: memref<8x64xf32>, %ws: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  %tmp = memref.view %ws[%c0][] {txc.task_slots = 4 : i64, txc.task_slot_stride = 256 : i64} : memref<1024xi8> to memref<64xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %f, %tmp[%j] : memref<64xf32>
    }
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %tmp[%j] : memref<64xf32>
      memref.store %v, %out[%i, %j] : memref<8x64xf32>
    }
  } {txc.parallel}
  return
}

// -----

// The same temporary written by a marked loop inside a loop that stays
// serial (it is not marked) and read after it: the inner loop is launched
// but its tasks write the serial code's slot 0, whose bytes the loop after
// it reads: no slot shift, no task limit.
// CHECK-LABEL: func.func private @inner_slots_task0_launch(
// CHECK-NOT:     arith.ceildivsi %arg2, %c4_i64
// CHECK-LABEL: func.func private @inner_slots_task0(
// CHECK-NOT:     arith.constant 256 : index
// CHECK:         memref.view %{{.*}}[%c0][] : memref<1024xi8> to memref<64xf32>
// CHECK-LABEL: func.func private @inner_slots_task0_serial(
func.func @inner_slots(%out: memref<8x64xf32>, %ws: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  %tmp = memref.view %ws[%c0][] {txc.task_slots = 4 : i64, txc.task_slot_stride = 256 : i64} : memref<1024xi8> to memref<64xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %f, %tmp[%j] : memref<64xf32>
    } {txc.parallel}
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %tmp[%j] : memref<64xf32>
      memref.store %v, %out[%i, %j] : memref<8x64xf32>
    }
  }
  return
}

// -----

// A loop over a dynamic batch (one iteration at batch 1) with a perfectly
// nested parallel loop over 4 tiles of 16 channels: the two become one
// launch over batch * 4 iterations, each recovering its batch index and
// its channel tile (div and rem), so a batch-1 call has tasks for every
// thread.
// CHECK-LABEL: func.func @collapsed(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %{{.*}}: memref<?x64xf32>, %[[N:arg2]]: index
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[TRIPS:.*]] = arith.muli %[[N]], %[[C4]] : index
// CHECK:         call @collapsed_task0_launch(
// CHECK-NOT:     call @collapsed_task1_launch
// CHECK-LABEL: func.func private @collapsed_task0(
// CHECK:         scf.for
// CHECK-DAG:       %[[C:.*]] = arith.remsi %{{.*}}, %[[C4T:.*]] : index
// CHECK-DAG:       %[[B:.*]] = arith.divsi %{{.*}}, %[[C4T]] : index
// CHECK:           scf.for
// CHECK:             memref.store %{{.*}}, %{{.*}}[%[[B]], %{{.*}}] : memref<?x64xf32>
func.func @collapsed(%m: memref<?x64xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %b = %c0 to %n step %c1 {
    scf.for %c = %c0 to %c64 step %c16 {
      scf.for %j = %c0 to %c16 step %c1 {
        %k = arith.addi %c, %j : index
        memref.store %v, %m[%b, %k] : memref<?x64xf32>
      }
    } {txc.parallel}
  } {txc.parallel}
  return
}

// -----

// An outer loop of 8 or more iterations is launched as it is: its inner
// parallel loop stays a loop in the task.
// CHECK-LABEL: func.func @not_collapsed(
// CHECK-NOT:     arith.muli
// CHECK:         call @not_collapsed_task0_launch(
// CHECK-LABEL: func.func private @not_collapsed_task0(
// CHECK-NOT:     arith.remsi
// CHECK-NOT:     arith.divsi
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-LABEL: func.func private @not_collapsed_task0_serial(
// CHECK-NOT:   @not_collapsed_task0_nested
func.func @not_collapsed(%m: memref<8x64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %b = %c0 to %c8 step %c1 {
    scf.for %c = %c0 to %c64 step %c16 {
      scf.for %j = %c0 to %c16 step %c1 {
        %k = arith.addi %c, %j : index
        memref.store %v, %m[%b, %k] : memref<8x64xf32>
      }
    } {txc.parallel}
  } {txc.parallel}
  return
}

// -----

// A loop over a dynamic batch whose body is more than one parallel loop
// (a batch-1 convolution: im2col, then the matmul's loops) cannot be
// collapsed. With threads and fewer than two iterations, the launcher runs
// its nested copy (`_nested(arg, parallel)`) instead of the serial one:
// the loop on the caller's thread, its marked loops launched. Without
// threads the serial copy runs, with no launch inside.
// CHECK-LABEL: func.func @nested(
// CHECK:         call @nested_task0_launch(
// CHECK-LABEL: func.func private @nested_task0_launch(
// CHECK-SAME:    %[[LCTX:arg0]]: !llvm.ptr, %[[LARG:arg1]]: !llvm.ptr
// CHECK:         } else {
// CHECK:           llvm.icmp "ne" %[[LCTX]], %{{.*}} : !llvm.ptr
// CHECK:           func.call @nested_task0_nested(%[[LARG]], %[[LCTX]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:      } else {
// CHECK-NEXT:        func.call @nested_task0_serial(%[[LARG]]) : (!llvm.ptr) -> ()
// CHECK-LABEL: func.func private @nested_task0_serial(
// CHECK-NOT:     call
// CHECK:         return
// CHECK-LABEL: func.func private @nested_task0_nested(
// CHECK-SAME:    %{{.*}}: !llvm.ptr, %[[NCTX:arg1]]: !llvm.ptr)
// CHECK:         scf.for
// CHECK:           memref.store
// CHECK:           call @nested_task0_nested_task0_launch(%[[NCTX]],
// CHECK:           call @nested_task0_nested_task1_launch(%[[NCTX]],
// CHECK-NOT:     txc.parallel
// CHECK:         return
func.func @nested(%m: memref<?x64xf32>, %first: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %b = %c0 to %n step %c1 {
    memref.store %v, %first[%b] : memref<?xf32>
    scf.for %c = %c0 to %c64 step %c16 {
      scf.for %j = %c0 to %c16 step %c1 {
        %k = arith.addi %c, %j : index
        memref.store %v, %m[%b, %k] : memref<?x64xf32>
      }
    } {txc.parallel}
    scf.for %c = %c0 to %c64 step %c16 {
      %k = arith.addi %c, %c1 : index
      memref.store %v, %m[%b, %k] : memref<?x64xf32>
    } {txc.parallel}
  } {txc.parallel}
  return
}

// -----

// A temporary with task slots for the batch loop, written by one marked
// loop and read by the next inside it (a packed panel and the row tiles
// that read it). In the nested copy both loops are launched; once the
// first is a task, the second is the temporary's only user, but its
// tasks must read the slot the first wrote (the nested copy's slot 0):
// which views move to task slots is decided before any loop becomes a
// task.
// CHECK-LABEL: func.func private @panel_task0(
// CHECK:         arith.constant 256 : index
// CHECK-LABEL: func.func private @panel_task0_nested(
// CHECK:         call @panel_task0_nested_task0_launch(
// CHECK:         call @panel_task0_nested_task1_launch(
// CHECK-LABEL: func.func private @panel_task0_nested_task1(
// CHECK-NOT:     arith.constant 256 : index
// CHECK:         memref.view %{{.*}}[%c0][] : memref<1024xi8> to memref<64xf32>
// CHECK:         return
func.func @panel(%out: memref<?x64xf32>, %ws: memref<1024xi8>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  %tmp = memref.view %ws[%c0][] {txc.task_slots = 4 : i64, txc.task_slot_stride = 256 : i64} : memref<1024xi8> to memref<64xf32>
  scf.for %b = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      memref.store %f, %tmp[%j] : memref<64xf32>
    } {txc.parallel}
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %tmp[%j] : memref<64xf32>
      memref.store %v, %out[%b, %j] : memref<?x64xf32>
    } {txc.parallel}
  } {txc.parallel}
  return
}

// -----

// A loop of a constant trip count below 8 gets no nested copy: with two or
// more iterations it is launched whenever its inner loops would be.
// CHECK-LABEL: func.func @constant_trips(
// CHECK:         call @constant_trips_task0_launch(
// CHECK-NOT:     constant_trips_task0_nested
func.func @constant_trips(%m: memref<2x64xf32>, %first: memref<2xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %b = %c0 to %c2 step %c1 {
    memref.store %v, %first[%b] : memref<2xf32>
    scf.for %c = %c0 to %c64 step %c16 {
      %k = arith.addi %c, %c1 : index
      memref.store %v, %m[%b, %k] : memref<2x64xf32>
    } {txc.parallel}
  } {txc.parallel}
  return
}
