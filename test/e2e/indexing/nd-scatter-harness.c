/* End-to-end test of gather_nd, scatter_elements and scatter_nd (program
 * nd-scatter.json): the scatters write, so their outputs, like every other
 * tensor, are placed right after or right before an inaccessible page.
 *
 * In-range calls: indices at both ends of each range (0, dim-1, -1, -dim),
 * duplicates (applied in row-major order: the sums and products below are
 * computed in that order), at the symbols' minimum and maximum values.
 *
 * Out-of-range calls (dim, -dim-1, INT64_MAX, INT64_MIN, INT32_MAX, in each
 * index tensor and tuple entry, and any index into a dim of 0):
 * TXC_E_INDEX_OUT_OF_RANGE with the guard of that entry, the range and the
 * offending index, without a read or a write through it: with the tensors
 * at one end of their pages, then at the other, an access one element
 * outside (or far away) crashes the test.
 * Built with AddressSanitizer and UBSan.
 */
#define _DEFAULT_SOURCE
#include "ndscatter.h"
#include "pages.h"

enum { TENSORS = 11 };

typedef struct call {
  int64_t V, N, M;
  float *D, *G;
  int64_t *I, *K;
  double *E, *W, *S;
  int32_t *J;
  int16_t *F, *U, *T;
  region regions[TENSORS];
} call;

/* The data tensors and the outputs at `data`, the indices and updates at
 * the other end of their pages. */
static void map_call(call *c, placement data, placement rest) {
  int64_t V = c->V, N = c->N, M = c->M;
  region *r = c->regions;
  c->D = place((size_t)V * 4 * sizeof(float), data, r++);
  c->E = place((size_t)2 * V * sizeof(double), data, r++);
  c->F = place((size_t)V * 3 * sizeof(int16_t), data, r++);
  c->G = place((size_t)N * sizeof(float), data, r++);
  c->S = place((size_t)2 * V * sizeof(double), data, r++);
  c->T = place((size_t)V * 3 * sizeof(int16_t), data, r++);
  c->I = place((size_t)N * 2 * sizeof(int64_t), rest, r++);
  c->J = place((size_t)2 * M * sizeof(int32_t), rest, r++);
  c->W = place((size_t)2 * M * sizeof(double), rest, r++);
  c->K = place((size_t)N * sizeof(int64_t), rest, r++);
  c->U = place((size_t)N * 3 * sizeof(int16_t), rest, r++);
}

static void unmap_call(call *c) {
  for (int i = 0; i < TENSORS; ++i)
    munmap(c->regions[i].base, c->regions[i].total);
}

/* Element i of a list of in-range indices into a dim of `dim`: the four
 * ends first (0, dim-1, -1, -dim), then spread out. */
static int64_t in_range(int64_t i, int64_t dim) {
  if (dim == 0) /* none is: the call must fail */
    return 0;
  switch (i % 6) {
  case 0: return 0;
  case 1: return dim - 1;
  case 2: return -1;
  case 3: return -dim;
  default: return (i * 7919) % dim;
  }
}

static int64_t wrap(int64_t index, int64_t dim) {
  return index < 0 ? index + dim : index;
}

static void fill(call *c) {
  int64_t V = c->V, N = c->N, M = c->M;
  for (int64_t v = 0; v < V; ++v) {
    for (int j = 0; j < 4; ++j)
      c->D[v * 4 + j] = (float)(4 * v + j) + 0.5f;
    for (int r = 0; r < 2; ++r)
      c->E[r * V + v] = (double)(r * 1000 + v) / 8;
    for (int j = 0; j < 3; ++j)
      c->F[v * 3 + j] = (int16_t)((v * 3 + j) % 97 + 1);
  }
  for (int64_t n = 0; n < N; ++n) {
    c->I[n * 2] = in_range(n, V);
    c->I[n * 2 + 1] = in_range(n + 1, 4);
    c->K[n] = in_range(n + 2, V);
    for (int j = 0; j < 3; ++j)
      c->U[n * 3 + j] = (int16_t)(n + j - 5);
  }
  for (int r = 0; r < 2; ++r)
    for (int64_t m = 0; m < M; ++m) {
      c->J[r * M + m] = (int32_t)in_range(m + 3 * r, V);
      c->W[r * M + m] = (double)(m + 1) * (r ? -0.75 : 1.25);
    }
}

static int32_t run(call *c, txc_status *status) {
  int64_t V = c->V, N = c->N, M = c->M;
  txc_tensor in[8] = {tensor_of(c->D, V * 16, TXC_DTYPE_F32, 2, V, 4),
                      tensor_of(c->I, N * 16, TXC_DTYPE_I64, 2, N, 2),
                      tensor_of(c->E, V * 16, TXC_DTYPE_F64, 2, 2, V),
                      tensor_of(c->J, M * 8, TXC_DTYPE_I32, 2, 2, M),
                      tensor_of(c->W, M * 16, TXC_DTYPE_F64, 2, 2, M),
                      tensor_of(c->F, V * 6, TXC_DTYPE_I16, 2, V, 3),
                      tensor_of(c->K, N * 8, TXC_DTYPE_I64, 2, N, 1),
                      tensor_of(c->U, N * 6, TXC_DTYPE_I16, 2, N, 3)};
  txc_tensor out[3] = {tensor_of(c->G, N * 4, 0, 0, 0, 0),
                       tensor_of(c->S, V * 16, 0, 0, 0, 0),
                       tensor_of(c->T, V * 6, 0, 0, 0, 0)};
  return ndscatter_run(in, 8, out, 3, status);
}

/* The number of output elements that differ from the ops' meaning, with
 * the updates applied one at a time in row-major order. */
static int wrong_elements(const call *c) {
  int64_t V = c->V, N = c->N, M = c->M;
  int bad = 0;
  for (int64_t n = 0; n < N; ++n)
    bad += c->G[n] !=
           c->D[wrap(c->I[n * 2], V) * 4 + wrap(c->I[n * 2 + 1], 4)];
  double *S = malloc((size_t)(2 * V) * sizeof(double));
  int16_t *T = malloc((size_t)(3 * V) * sizeof(int16_t));
  memcpy(S, c->E, (size_t)(2 * V) * sizeof(double));
  memcpy(T, c->F, (size_t)(3 * V) * sizeof(int16_t));
  for (int r = 0; r < 2; ++r)
    for (int64_t m = 0; m < M; ++m)
      S[r * V + wrap(c->J[r * M + m], V)] += c->W[r * M + m];
  for (int64_t n = 0; n < N; ++n)
    for (int j = 0; j < 3; ++j) {
      int16_t *t = &T[wrap(c->K[n], V) * 3 + j];
      *t = (int16_t)(uint16_t)((uint32_t)(uint16_t)*t *
                               (uint32_t)(uint16_t)c->U[n * 3 + j]);
    }
  for (int64_t i = 0; i < 2 * V; ++i)
    bad += memcmp(&S[i], &c->S[i], sizeof(double)) != 0;
  for (int64_t i = 0; i < 3 * V; ++i)
    bad += T[i] != c->T[i];
  free(S);
  free(T);
  return bad;
}

/* A call of V, N and M with its data and outputs at `where`, the rest at
 * the other end of their pages, filled with in-range values. */
static void start_call(call *c, int64_t V, int64_t N, int64_t M,
                       placement where) {
  memset(c, 0, sizeof *c);
  c->V = V;
  c->N = N;
  c->M = M;
  map_call(c, where, where == AT_START ? AT_END : AT_START);
  fill(c);
}

static void check_values(int64_t V, int64_t N, int64_t M, placement where) {
  call c;
  start_call(&c, V, N, M, where);
  txc_status status;
  int32_t rc = run(&c, &status);
  EXPECT(rc == TXC_OK && status.code == TXC_OK && status.guard == -1,
         "V=%lld N=%lld M=%lld: rc=%d", (long long)V, (long long)N,
         (long long)M, rc);
  int bad = wrong_elements(&c);
  EXPECT(bad == 0, "V=%lld N=%lld M=%lld: %d wrong elements", (long long)V,
         (long long)N, (long long)M, bad);
  printf("V=%lld N=%lld M=%lld %s ok\n", (long long)V, (long long)N,
         (long long)M, where == AT_START ? "start" : "end");
  unmap_call(&c);
}

/* The index guards in contract order: I[..., 0], I[..., 1], J, K[..., 0]. */
typedef enum guard { I0, I1, J, K0 } guard;

typedef struct expectation {
  guard failing;
  int64_t actual, min, max;
  int32_t tensor_index;
} expectation;

typedef void (*corrupt_fn)(call *c);

static void expect_out_of_range(const char *what, int64_t V, int64_t N,
                                int64_t M, corrupt_fn corrupt, expectation e,
                                placement where) {
  call c;
  start_call(&c, V, N, M, where);
  corrupt(&c);
  txc_status status;
  memset(&status, 0x5a, sizeof status);
  int32_t rc = run(&c, &status);
  char message[512];
  ndscatter_error_message(&status, message, sizeof message);
  int32_t id = NDSCATTER_NUM_GUARDS - 4 + (int32_t)e.failing;
  EXPECT(rc == TXC_E_INDEX_OUT_OF_RANGE && status.code == rc,
         "%s: rc=%d (%s)", what, rc, message);
  EXPECT(status.guard == id, "%s: guard %d, expected %d", what, status.guard,
         id);
  EXPECT(status.tensor_kind == TXC_TENSOR_INPUT &&
             status.tensor_index == e.tensor_index && status.dim == -1,
         "%s: tensor %d/%d dim %d", what, status.tensor_kind,
         status.tensor_index, status.dim);
  EXPECT(status.expected_min == e.min && status.expected_max == e.max &&
             status.actual == e.actual,
         "%s: range [%lld, %lld] actual %lld", what,
         (long long)status.expected_min, (long long)status.expected_max,
         (long long)status.actual);
  if (where == AT_START)
    printf("%s: rc=%d: %s\n", what, rc, message);
  unmap_call(&c);
}

static void i0_is_V(call *c) { c->I[4 * 2] = c->V; }
static void i0_min(call *c) { c->I[2 * 2] = INT64_MIN; }
static void i1_is_4(call *c) { c->I[1 * 2 + 1] = 4; }
static void i1_below(call *c) { c->I[5 * 2 + 1] = -5; }
static void both_entries(call *c) { /* entry 1 first in row-major order */
  c->I[0 * 2 + 1] = 9;
  c->I[3 * 2] = -c->V - 1;
}
static void j_below(call *c) { c->J[1 * c->M + 2] = (int32_t)(-c->V - 1); }
static void j_max(call *c) { c->J[0 * c->M + 1] = INT32_MAX; }
static void j_min(call *c) { c->J[1 * c->M] = INT32_MIN; }
static void k_is_V(call *c) { c->K[5] = c->V; }
static void k_max(call *c) { c->K[0] = INT64_MAX; }
static void k_min(call *c) { c->K[3] = INT64_MIN; }

static void unchanged(call *c) { (void)c; }

static void check_out_of_range(void) {
  const struct {
    const char *what;
    corrupt_fn corrupt;
    expectation e;
  } cases[] = {
      {"I[4][0]=V", i0_is_V, {I0, 5, -5, 4, 1}},
      {"I[2][0]=INT64_MIN", i0_min, {I0, INT64_MIN, -5, 4, 1}},
      {"I[1][1]=4", i1_is_4, {I1, 4, -4, 3, 1}},
      {"I[5][1]=-5", i1_below, {I1, -5, -4, 3, 1}},
      {"I[0][1]=9,I[3][0]=-V-1", both_entries, {I0, -6, -5, 4, 1}},
      {"J[1][2]=-V-1", j_below, {J, -6, -5, 4, 3}},
      {"J[0][1]=INT32_MAX", j_max, {J, INT32_MAX, -5, 4, 3}},
      {"J[1][0]=INT32_MIN", j_min, {J, INT32_MIN, -5, 4, 3}},
      {"K[5]=V", k_is_V, {K0, 5, -5, 4, 6}},
      {"K[0]=INT64_MAX", k_max, {K0, INT64_MAX, -5, 4, 6}},
      {"K[3]=INT64_MIN", k_min, {K0, INT64_MIN, -5, 4, 6}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    for (placement where = AT_START; where <= AT_END; ++where)
      expect_out_of_range(cases[i].what, 5, 6, 3, cases[i].corrupt, cases[i].e,
                          where);
  /* V = 0: data is empty, so any index is out of range ([0, -1]). */
  expectation first = {I0, 0, 0, -1, 1}, along = {J, 0, 0, -1, 3};
  for (placement where = AT_START; where <= AT_END; ++where) {
    expect_out_of_range("V=0 N=1", 0, 1, 1, unchanged, first, where);
    expect_out_of_range("V=0 N=0 M=1", 0, 0, 1, unchanged, along, where);
  }
}

int main(void) {
  const int64_t sizes[][3] = {{0, 0, 0},    {1, 0, 0},  {1, 64, 4},
                              {1000, 0, 1}, {1000, 64, 4}, {5, 13, 3},
                              {2, 7, 4}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    check_values(sizes[i][0], sizes[i][1], sizes[i][2], AT_START);
    check_values(sizes[i][0], sizes[i][1], sizes[i][2], AT_END);
  }
  check_out_of_range();
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("all checks passed\n");
  return 0;
}
