/* End-to-end test of run-time index checks (program lookup.json: an
 * embedding, a gather along the last axis and a gather by computed indices,
 * the last one with wrap_negative: its valid indices are [-V, V-1]).
 *
 * In-range calls: indices at both boundaries (0 and dim-1, and -1 and -dim
 * for the wrapping gather), at the symbols'
 * minimum and maximum values, with every data tensor placed right after or
 * right before an inaccessible page, so that reading one element outside it
 * crashes the test.
 *
 * Out-of-range calls (dim, -1, INT64_MAX, INT64_MIN, INT32_MAX, ...): the
 * call returns TXC_E_INDEX_OUT_OF_RANGE with the failed guard, the valid
 * range and the offending index; every data tensor again touches an
 * inaccessible page on one side, then on the other, so that a read through
 * an offending index (just past either end, or far away) crashes the test.
 * Built with AddressSanitizer and UBSan.
 */
#define _DEFAULT_SOURCE
#include "lookup.h"
#include "pages.h"

/* One call of lookup_run: V rows, N ids, M x 2 positions, scale k. */
typedef struct call {
  int64_t V, N, M;
  int32_t k;
  float *W;
  int64_t *ids;
  int16_t *T;
  int32_t *pos;
  int32_t *kp;
  double *P;
  float *E;
  int16_t *C;
  double *R;
  region regions[9];
} call;

/* Maps the tensors of a call: the data W, T and P at `data`, the others at
 * the other end of their pages. */
static void map_call(call *c, placement data, placement rest) {
  c->W = place((size_t)c->V * 3 * sizeof(float), data, &c->regions[0]);
  c->T = place((size_t)2 * c->V * sizeof(int16_t), data, &c->regions[1]);
  c->P = place((size_t)c->V * sizeof(double), data, &c->regions[2]);
  c->ids = place((size_t)c->N * sizeof(int64_t), rest, &c->regions[3]);
  c->pos = place((size_t)c->M * 2 * sizeof(int32_t), rest, &c->regions[4]);
  c->kp = place(sizeof(int32_t), rest, &c->regions[5]);
  c->E = place((size_t)c->N * 3 * sizeof(float), rest, &c->regions[6]);
  c->C = place((size_t)2 * c->M * 2 * sizeof(int16_t), rest, &c->regions[7]);
  c->R = place((size_t)c->M * 2 * sizeof(double), rest, &c->regions[8]);
}

static void unmap_call(call *c) {
  for (int i = 0; i < 9; ++i)
    munmap(c->regions[i].base, c->regions[i].total);
}

/* Values that identify their position: W[v][j] = 4v + j + 0.5, T[r][v] =
 * 2000r + v, P[v] = v / 4 + 1 (all exact). */
static void fill_data(call *c) {
  for (int64_t v = 0; v < c->V; ++v) {
    for (int j = 0; j < 3; ++j)
      c->W[v * 3 + j] = (float)(4 * v + j) + 0.5f;
    for (int r = 0; r < 2; ++r)
      c->T[r * c->V + v] = (int16_t)(2000 * r + v);
    c->P[v] = (double)v / 4 + 1;
  }
}

/* In-range indices including 0 and V-1; the scaled ones are pos * k. */
static void fill_indices(call *c, int32_t k) {
  for (int64_t i = 0; i < c->N; ++i)
    c->ids[i] = i == 0 ? 0 : i == 1 ? c->V - 1 : (i * 7919) % c->V;
  for (int64_t i = 0; i < c->M * 2; ++i)
    c->pos[i] = (int32_t)(i == 0 ? c->V - 1 : i == 1 ? 0 : (i * 31) % c->V);
  /* With k = -V (V > 1) every scaled index must be 0 or -V: pos 0 or 1. */
  if (c->V > 1 && k == -c->V)
    for (int64_t i = 0; i < c->M * 2; ++i)
      c->pos[i] = (int32_t)(i % 2);
  c->k = k;
}

/* The element of P the wrapping gather reads for index pos * k. */
static int64_t wrapped(const call *c, int64_t i) {
  int64_t index = (int64_t)c->pos[i] * c->k;
  return index < 0 ? index + c->V : index;
}

static int32_t run(call *c, txc_status *status) {
  *c->kp = c->k;
  txc_tensor in[6] = {tensor_of(c->W, c->V * 12, TXC_DTYPE_F32, 2, c->V, 3),
                      tensor_of(c->ids, c->N * 8, TXC_DTYPE_I64, 1, c->N, 0),
                      tensor_of(c->T, 2 * c->V * 2, TXC_DTYPE_I16, 2, 2, c->V),
                      tensor_of(c->pos, c->M * 8, TXC_DTYPE_I32, 2, c->M, 2),
                      tensor_of(c->kp, 4, TXC_DTYPE_I32, 0, 0, 0),
                      tensor_of(c->P, c->V * 8, TXC_DTYPE_F64, 1, c->V, 0)};
  txc_tensor out[3] = {tensor_of(c->E, c->N * 12, 0, 0, 0, 0),
                       tensor_of(c->C, 2 * c->M * 4, 0, 0, 0, 0),
                       tensor_of(c->R, c->M * 16, 0, 0, 0, 0)};
  int32_t rc = lookup_run(in, 6, out, 3, status);
  /* The output-shapes entry point cannot see the indices: it succeeds. */
  txc_tensor shapes[3];
  memset(shapes, 0, sizeof shapes);
  txc_status shape_status;
  EXPECT(lookup_output_shapes(in, 6, shapes, 3, &shape_status) == TXC_OK,
         "output_shapes failed");
  return rc;
}

static void check_values(int64_t V, int64_t N, int64_t M, int32_t k,
                         placement where) {
  call c;
  memset(&c, 0, sizeof c);
  c.V = V;
  c.N = N;
  c.M = M;
  map_call(&c, where, where);
  fill_data(&c);
  fill_indices(&c, k);
  txc_status status;
  int32_t rc = run(&c, &status);
  EXPECT(rc == TXC_OK && status.code == TXC_OK && status.guard == -1,
         "V=%lld N=%lld M=%lld: rc=%d", (long long)V, (long long)N,
         (long long)M, rc);
  int bad = 0;
  for (int64_t i = 0; i < N; ++i)
    for (int j = 0; j < 3; ++j)
      bad += c.E[i * 3 + j] != c.W[c.ids[i] * 3 + j];
  for (int r = 0; r < 2; ++r)
    for (int64_t i = 0; i < M * 2; ++i)
      bad += c.C[r * M * 2 + i] != c.T[r * V + c.pos[i]];
  for (int64_t i = 0; i < M * 2; ++i)
    bad += c.R[i] != c.P[wrapped(&c, i)];
  EXPECT(bad == 0, "V=%lld N=%lld M=%lld k=%d: %d wrong elements",
         (long long)V, (long long)N, (long long)M, k, bad);
  printf("V=%lld N=%lld M=%lld k=%d %s ok\n", (long long)V, (long long)N,
         (long long)M, k, where == AT_START ? "start" : "end");
  unmap_call(&c);
}

/* Which node an out-of-range case is about. */
typedef enum node { EMB, COLS, ROWS } node;

typedef struct expectation {
  node failing;
  int64_t actual;
  int64_t min, max;
  int32_t tensor_kind, tensor_index;
} expectation;

typedef void (*corrupt_fn)(call *c);

static void expect_out_of_range(const char *what, int64_t V, corrupt_fn corrupt,
                                expectation e, placement where) {
  call c;
  memset(&c, 0, sizeof c);
  c.V = V;
  c.N = 4;
  c.M = 2;
  map_call(&c, where, where == AT_START ? AT_END : AT_START);
  fill_data(&c);
  fill_indices(&c, 1);
  corrupt(&c);
  txc_status status;
  memset(&status, 0x5a, sizeof status);
  int32_t rc = run(&c, &status);
  char message[512];
  lookup_error_message(&status, message, sizeof message);
  int32_t guard = LOOKUP_NUM_GUARDS - 3 + (int32_t)e.failing;
  EXPECT(rc == TXC_E_INDEX_OUT_OF_RANGE && status.code == rc,
         "%s: rc=%d (%s)", what, rc, message);
  EXPECT(status.guard == guard, "%s: guard %d, expected %d", what,
         status.guard, guard);
  EXPECT(status.tensor_kind == e.tensor_kind &&
             status.tensor_index == e.tensor_index && status.dim == -1 &&
             status.symbol == -1,
         "%s: tensor %d/%d dim %d symbol %d", what, status.tensor_kind,
         status.tensor_index, status.dim, status.symbol);
  EXPECT(status.expected_min == e.min && status.expected_max == e.max &&
             status.actual == e.actual,
         "%s: range [%lld, %lld] actual %lld", what,
         (long long)status.expected_min, (long long)status.expected_max,
         (long long)status.actual);
  /* A NULL status still gets the code. */
  EXPECT(run(&c, NULL) == TXC_E_INDEX_OUT_OF_RANGE, "%s: NULL status", what);
  if (where == AT_START) /* the same result both ways; print it once */
    printf("%s V=%lld: rc=%d: %s\n", what, (long long)V, rc, message);
  unmap_call(&c);
}

/* Runs an out-of-range case with the data at both ends of their pages. */
static void expect_out_of_range_both(const char *what, int64_t V,
                                     corrupt_fn corrupt, expectation e) {
  expect_out_of_range(what, V, corrupt, e, AT_START);
  expect_out_of_range(what, V, corrupt, e, AT_END);
}

static void ids_is_V(call *c) { c->ids[2] = c->V; }
static void ids_minus_one(call *c) { c->ids[0] = -1; }
static void ids_max(call *c) { c->ids[3] = INT64_MAX; }
static void ids_min(call *c) { c->ids[1] = INT64_MIN; }
static void ids_two_bad(call *c) {
  c->ids[1] = c->V + 5;
  c->ids[3] = -1;
}
static void pos_is_V(call *c) { c->pos[3] = (int32_t)c->V; }
static void pos_minus_one(call *c) { c->pos[0] = -1; }
static void pos_max(call *c) { c->pos[1] = INT32_MAX; }
static void pos_min(call *c) { c->pos[2] = INT32_MIN; }
static void scaled_past_end(call *c) { c->k = 2; } /* pos[0] = V-1 */
/* One below -V, the wrapping gather's lowest index. */
static void scaled_below_minus_V(call *c) {
  for (int i = 0; i < 4; ++i)
    c->pos[i] = 0;
  c->pos[2] = 1;
  c->k = (int32_t)(-c->V - 1);
}
static void all_bad(call *c) {
  ids_minus_one(c);
  pos_is_V(c);
}

static void check_out_of_range(int64_t V) {
  expectation emb = {EMB, 0, 0, V - 1, TXC_TENSOR_INPUT, 1};
  expectation cols = {COLS, 0, 0, V - 1, TXC_TENSOR_INPUT, 3};
  expectation rows = {ROWS, 0, -V, V - 1, TXC_TENSOR_NONE, -1};
  emb.actual = V;
  expect_out_of_range_both("ids[2]=V", V, ids_is_V, emb);
  emb.actual = -1;
  expect_out_of_range_both("ids[0]=-1", V, ids_minus_one, emb);
  emb.actual = INT64_MAX;
  expect_out_of_range_both("ids[3]=INT64_MAX", V, ids_max, emb);
  emb.actual = INT64_MIN;
  expect_out_of_range_both("ids[1]=INT64_MIN", V, ids_min, emb);
  emb.actual = V + 5;
  expect_out_of_range_both("ids[1]=V+5,ids[3]=-1", V, ids_two_bad, emb);
  cols.actual = V;
  expect_out_of_range_both("pos[1][1]=V", V, pos_is_V, cols);
  cols.actual = -1;
  expect_out_of_range_both("pos[0][0]=-1", V, pos_minus_one, cols);
  cols.actual = INT32_MAX;
  expect_out_of_range_both("pos[0][1]=INT32_MAX", V, pos_max, cols);
  cols.actual = INT32_MIN;
  expect_out_of_range_both("pos[1][0]=INT32_MIN", V, pos_min, cols);
  if (V >= 2) { /* with V = 1 the only valid position times k is 0 */
    rows.actual = 2 * (V - 1);
    expect_out_of_range_both("k=2", V, scaled_past_end, rows);
    rows.actual = -V - 1;
    expect_out_of_range_both("k=-V-1", V, scaled_below_minus_V, rows);
  }
  emb.actual = -1;
  expect_out_of_range_both("ids and pos bad", V, all_bad, emb);
}

static void check_messages(void) {
  txc_status odd;
  memset(&odd, 0, sizeof odd);
  odd.code = TXC_E_INDEX_OUT_OF_RANGE;
  odd.guard = 1000;
  char message[256];
  lookup_error_message(&odd, message, sizeof message);
  printf("code 11, unknown guard: %s\n", message);
}

int main(void) {
  const int64_t sizes[][3] = {{1, 0, 1},  {1, 64, 4},   {1000, 0, 1},
                              {1000, 64, 4}, {2, 5, 2}, {1000, 1, 1}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    int64_t V = sizes[i][0];
    /* k = 1, then negative indices down to -(V-1), then -V (V > 1). */
    const int32_t ks[] = {1, -1, (int32_t)-V};
    for (size_t j = 0; j < (V > 1 ? 3u : 2u); ++j) {
      check_values(V, sizes[i][1], sizes[i][2], ks[j], AT_START);
      check_values(V, sizes[i][1], sizes[i][2], ks[j], AT_END);
    }
  }
  check_out_of_range(1);
  check_out_of_range(1000);
  check_messages();
  if (failures) {
    fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  printf("all checks passed\n");
  return 0;
}
