// RUN: txc-opt %s --split-input-file --txc-tile-and-vectorize=vector-bits=256 --canonicalize --cse | FileCheck %s --check-prefix=AVX2
// RUN: txc-opt %s --split-input-file --txc-tile-and-vectorize=vector-bits=512 --canonicalize --cse | FileCheck %s --check-prefix=AVX512
// RUN: not txc-opt %s --split-input-file --txc-tile-and-vectorize=vector-bits=100 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: txc-tile-and-vectorize: vector-bits is 100; 128, 256 or 512 are supported

// A static f32 matmul: B is packed into panels as wide as two vector
// registers, the register tile is 6 rows of two vectors (the remaining 4
// rows a 4-row tile), and each k step is one rank-1 vector.contract.
// AVX2-LABEL: func.func @matmul
// AVX2:         scf.for {{.*}} -> (tensor<4x64x16xf32>)
// AVX2:         scf.for {{.*}} to %c60 step %c6
// AVX2:           vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// AVX2:         vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// AVX2-NOT:     linalg.matmul
// AVX512-LABEL: func.func @matmul
// AVX512:         vector.contract {{.*}} : vector<6x1xf32>, vector<1x32xf32> into vector<6x32xf32>
// AVX512:         vector.contract {{.*}} : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
func.func @matmul(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
                  %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// An elementwise op on rows of 37 with a symbolic row count: one loop over
// the rows, each row as a 32-wide vector and a 5-wide remainder.
#id = affine_map<(d0, d1) -> (d0, d1)>
// AVX2-LABEL: func.func @relu
// AVX2:         scf.for %{{.*}} = %c0 to %dim step %c1
// AVX2:           %[[V:.*]] = vector.transfer_read {{.*}} : tensor<?x37xf32>, vector<1x32xf32>
// AVX2:           arith.maximumf %[[V]], {{.*}} : vector<1x32xf32>
// AVX2:           vector.transfer_read {{.*}}[%{{.*}}, %c32]{{.*}} : tensor<?x37xf32>, vector<1x5xf32>
// AVX2:           arith.maximumf {{.*}} : vector<1x5xf32>
// AVX2-NOT:     linalg.generic
func.func @relu(%x: tensor<?x37xf32>, %o: tensor<?x37xf32>) -> tensor<?x37xf32> {
  %zero = arith.constant 0.0 : f32
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x37xf32>) outs(%o : tensor<?x37xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x37xf32>
  return %y : tensor<?x37xf32>
}
