// RUN: txc-opt %s --txc-align-nontemporal-stores="vector-bits=256" | FileCheck %s

// Non-temporal vector stores get a register's alignment (the vector's when
// smaller); other stores keep theirs.
// CHECK-LABEL: llvm.func @stores(
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 32 : i64, nontemporal} : vector<8xf32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 32 : i64, nontemporal} : vector<32xf32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64, nontemporal} : vector<4xf32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<8xf32>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64, nontemporal} : f32
llvm.func @stores(%p: !llvm.ptr, %a: vector<8xf32>, %b: vector<32xf32>,
                  %c: vector<4xf32>, %s: f32) {
  llvm.store %a, %p {alignment = 4 : i64, nontemporal} : vector<8xf32>, !llvm.ptr
  llvm.store %b, %p {alignment = 4 : i64, nontemporal} : vector<32xf32>, !llvm.ptr
  llvm.store %c, %p {alignment = 4 : i64, nontemporal} : vector<4xf32>, !llvm.ptr
  llvm.store %a, %p {alignment = 4 : i64} : vector<8xf32>, !llvm.ptr
  llvm.store %s, %p {alignment = 4 : i64, nontemporal} : f32, !llvm.ptr
  llvm.return
}
