// RUN: txc-opt %s --txc-name-globals-in-order | FileCheck %s

// The private constant globals are named after the order the module's
// functions first read them, whatever names bufferization gave them, and
// moved to the top in that order; unread ones go; public or mutable
// globals keep their names and places.
// CHECK:      memref.global "private" constant @__constant_0 : memref<2xf32> = dense<[3.000000e+00, 4.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_1 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NEXT: memref.global "private" @state
// CHECK-NOT:  @__constant_2xf32_5
// CHECK-LABEL: func.func private @region0
// CHECK:        memref.get_global @__constant_0
// CHECK-LABEL: func.func @kernel
// CHECK:        memref.get_global @__constant_1
// CHECK:        memref.get_global @__constant_0
// CHECK:        memref.get_global @state
memref.global "private" @state : memref<2xf32> = uninitialized
memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]>
memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[3.0, 4.0]>
memref.global "private" constant @__constant_2xf32_5 : memref<2xf32> = dense<[5.0, 6.0]>

func.func private @region0(%out: memref<2xf32>) {
  %c = memref.get_global @__constant_2xf32_0 : memref<2xf32>
  memref.copy %c, %out : memref<2xf32> to memref<2xf32>
  return
}

func.func @kernel(%out: memref<2xf32>) {
  %a = memref.get_global @__constant_2xf32 : memref<2xf32>
  memref.copy %a, %out : memref<2xf32> to memref<2xf32>
  %b = memref.get_global @__constant_2xf32_0 : memref<2xf32>
  memref.copy %b, %out : memref<2xf32> to memref<2xf32>
  %s = memref.get_global @state : memref<2xf32>
  memref.copy %s, %out : memref<2xf32> to memref<2xf32>
  call @region0(%out) : (memref<2xf32>) -> ()
  return
}
