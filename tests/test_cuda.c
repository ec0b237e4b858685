/* The CUDA emitter and the GPU runner without a GPU: the emitter's
 * refusals with their exact messages, names, determinism, the launch plan
 * (grid and block sizes for given sizes, arguments), the hand-written
 * stage III programs of tests/cuda against their stage I references on the
 * host interpreter, preparing kernels, and the whole run path (upload,
 * launches with timing and L2 flushes, download, errors) against the fake
 * CUDA driver of tests/fake_cuda.c. */
#include <dirent.h>
#include <inttypes.h>
#include <dlfcn.h>
#include <math.h>
#include <unistd.h>
#include <stir/stir.h>
#include "codegen/cuda_internal.h"
#include "ir/nodes.h"
#include "ir/vector.h"
#include "ir/visit.h"
#include "runtime/internal.h"
#include "tests/fake_cuda.h"
#include "tests/testdiag.h"
#include "tests/testutil.h"

/* A module read from text, with its context. */
typedef struct prog {
	stir_ctx *ctx;
	stir_module *m;
	stir_kernel *k;           /* the first kernel */
} prog;

/* text: read a program; it must read and verify. */
static prog read_prog(const char *text)
{
	prog p = { stir_ctx_alloc(), NULL, NULL };
	p.m = stir_module_read_from_mem(p.ctx, "k.stir", text, strlen(text));
	if (!p.m)
		stir_ctx_print_diagnostics(p.ctx, stderr);
	ck_assert_ptr_nonnull(p.m);
	p.k = stir_module_get_kernel(p.m, 0);
	return p;
}

/* file: read a program of the source tree. */
static prog load_prog(const char *file)
{
	prog p = { stir_ctx_alloc(), NULL, NULL };
	p.m = stir_module_read_from_file(p.ctx, test_path(file));
	if (!p.m)
		stir_ctx_print_diagnostics(p.ctx, stderr);
	ck_assert_ptr_nonnull(p.m);
	p.k = stir_module_get_kernel(p.m, 0);
	return p;
}

/* file: a stage III program of the source tree with its barriers placed
 * (stir_insert_barriers, as stir_kernel_prepare_for_gpu does). */
static prog load_placed(const char *file)
{
	prog p = load_prog(file);
	int rc = stir_insert_barriers(p.k);
	if (rc < 0)
		stir_ctx_print_diagnostics(p.ctx, stderr);
	ck_assert_int_eq(rc, 0);
	return p;
}

/* p: free a program and its context. */
static void free_prog(prog *p)
{
	stir_module_free(p->m);
	stir_ctx_free(p->ctx);
}

/* ---- refusals ------------------------------------------------------------ */

/* A stage III program the emitter must refuse, and its diagnostics. */
static const struct refusal {
	const char *what;
	const char *text;
	const char *diags;
} refusals[] = {
	/* one index bound twice in a nest: the verifier's now
	 * (tests/broken/stage_same_thread_index.stir) */
	{ "a bound extent that reads memory",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer P: i32[1] = P;\n"
	  "  buffer A: f32[m] = A;\n"
	  "  for i in [0, P[0]) bind(blockIdx.x) {\n"
	  "    A[i] = 1.0;\n"
	  "  }\n"
	  "}\n",
	  "4:3: error: loop 'i' is bound to blockIdx.x, but its extent is not "
	  "an expression of the kernel's parameters\n" },
	{ "a shared buffer without a literal extent",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m] = A;\n"
	  "  buffer S: f32[m] shared;\n"
	  "  for i in [0, m) bind(threadIdx.x) {\n"
	  "    S[i] = 1.0;\n"
	  "    A[i] = S[i];\n"
	  "  }\n"
	  "}\n",
	  "3:10: error: shared buffer 'S' needs a positive literal extent\n" },
	{ "a barrier not every thread reaches",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[32] = A;\n"
	  "  buffer S: f32[32] shared;\n"
	  "  for t in [0, 32) bind(threadIdx.x) {\n"
	  "    if (t < 16) {\n"
	  "      S[t] = 1.0;\n"
	  "      A[t] = S[(t + 1) % 32];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "7:7: error: threads of a block must synchronize between the "
	  "accesses to 'S' at k.stir:6 and at k.stir:7, but not every thread "
	  "reaches the place between them\n" },
	{ "a dependence between thread blocks",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m] = A;\n"
	  "  buffer B: f32[1] = B;\n"
	  "  block root() {\n"
	  "    B[0] = 1.0;\n"
	  "    for i in [0, m) bind(blockIdx.x) {\n"
	  "      A[i] = B[0];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "6:5: error: 'B' is accessed at k.stir:5 and at k.stir:7 by "
	  "different thread blocks of one launch, which cannot be ordered\n" },
	{ "a register read by threads that did not write it",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[1] = A;\n"
	  "  buffer L: f32[1] local;\n"
	  "  block root() {\n"
	  "    for t in [0, 32) bind(threadIdx.x) {\n"
	  "      L[0] = 1.0;\n"
	  "    }\n"
	  "    A[0] = L[0];\n"
	  "  }\n"
	  "}\n",
	  "8:12: error: local buffer 'L' is read by threads that did not write "
	  "it (written at k.stir:6): registers are private to a thread\n" },
	{ "a cross-thread block outside a threadIdx.x loop",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[1] = A;\n"
	  "  for i in [0, m) {\n"
	  "    block b(vi: R = i) cross_thread {\n"
	  "      A[0] += 1.0;\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "4:5: error: cross-thread block 'b' is not inside a loop bound to "
	  "threadIdx.x\n" },
	{ "a cross-thread block with a thread count known at run time",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[1] = A;\n"
	  "  for t in [0, m) bind(threadIdx.x) {\n"
	  "    block b(vt: R = t) cross_thread {\n"
	  "      A[0] += 1.0;\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "4:5: error: cross-thread block 'b' needs literal extents for the "
	  "loops bound to threadIdx in its launch\n" },
	{ "a cross-thread block over 48 threads",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[1] = A;\n"
	  "  for t in [0, 48) bind(threadIdx.x) {\n"
	  "    block b(vt: R = t) cross_thread {\n"
	  "      A[0] += 1.0;\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "4:5: error: cross-thread block 'b': the launch has 48 threads in x, "
	  "neither a power of two below 32 nor a multiple of 32\n" },
	{ "a cross-thread block whose element moves with the loop",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m] = A;\n"
	  "  for t in [0, 32) bind(threadIdx.x) {\n"
	  "    for j in [0, m) {\n"
	  "      block b(vt: R = t, vj: S = j) cross_thread {\n"
	  "        A[vj] += 1.0;\n"
	  "      }\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "6:9: error: cross-thread block 'b': the element it stores to "
	  "depends on 'j', defined inside the threadIdx.x loop 't'\n" },
	{ "a cross-thread block into a register array of 64 elements",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[64] = A;\n"
	  "  buffer L: f32[64] local;\n"
	  "  for t in [0, 32) bind(threadIdx.x) {\n"
	  "    for j in [0, 64) {\n"
	  "      block b(vt: R = t, vj: S = j) cross_thread {\n"
	  "        L[vj] += 1.0;\n"
	  "      }\n"
	  "    }\n"
	  "  }\n"
	  "  for j in [0, 64) {\n"
	  "    block c(vj: S = j) {\n"
	  "      A[vj] = L[vj];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "7:9: error: cross-thread block 'b': the element it stores to "
	  "depends on 'j', defined inside the threadIdx.x loop 't' (allowed only "
	  "into a local array of at most 32 elements)\n" },
	{ "a cross-thread block into a register array over 64 threads",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[4] = A;\n"
	  "  buffer L: f32[4] local;\n"
	  "  for t in [0, 64) bind(threadIdx.x) {\n"
	  "    for j in [0, 4) {\n"
	  "      block b(vt: R = t, vj: S = j) cross_thread {\n"
	  "        L[vj] += 1.0;\n"
	  "      }\n"
	  "    }\n"
	  "  }\n"
	  "  for j in [0, 4) {\n"
	  "    block c(vj: S = j) {\n"
	  "      A[vj] = L[vj];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "6:7: error: cross-thread block 'b' reduces into the register array "
	  "'L' over 64 threads in x: at most 32 (one warp)\n" },
	{ "a cross-thread block spatial in its loop",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[32] = A;\n"
	  "  for t in [0, 32) bind(threadIdx.x) {\n"
	  "    block b(vt: S = t) cross_thread {\n"
	  "      A[0] += 1.0;\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "4:5: error: cross-thread block 'b': its spatial variable 'vt' "
	  "depends on loop 't', the threadIdx.x loop it reduces over\n" },
	{ "a cross-thread target read in its loop",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[2] = A;\n"
	  "  for t in [0, 32) bind(threadIdx.x) {\n"
	  "    block b(vt: R = t) cross_thread {\n"
	  "      A[0] += 1.0;\n"
	  "    }\n"
	  "    block c(vt: S = t) {\n"
	  "      A[1] = A[0];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "8:7: error: 'A' is accessed inside loop 't' while cross-thread "
	  "block 'b' reduces into it\n" },
	{ "an 8-bit atomic",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer C: i8[1] = C;\n"
	  "  for i in [0, m) bind(threadIdx.x) {\n"
	  "    block b(vi: R = i) atomic {\n"
	  "      C[0] += 1;\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "5:7: error: atomic add to 'C' of type i8: the GPU has no 8-bit "
	  "atomics\n" },
	{ "a vectorized loop of 3",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[3] = A;\n"
	  "  for w in [0, 3) vectorize {\n"
	  "    A[w] = 1.0;\n"
	  "  }\n"
	  "}\n",
	  "3:3: error: loop 'w' is vectorized, but its extent is not the "
	  "literal 2 or 4\n" },
	{ "a shared buffer used by two launches",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[4] = A;\n"
	  "  buffer S: f32[4] shared;\n"
	  "  for t in [0, 4) bind(threadIdx.x) {\n"
	  "    S[t] = 1.0;\n"
	  "  }\n"
	  "  for t in [0, 4) bind(threadIdx.x) {\n"
	  "    A[t] = S[t];\n"
	  "  }\n"
	  "}\n",
	  "3:10: error: shared buffer 'S' is used by launches 0 and 1: its "
	  "contents do not outlive a launch\n" },
	{ "too much shared memory",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[4] = A;\n"
	  "  buffer S: f64[32768] shared;\n"
	  "  for t in [0, 4) bind(threadIdx.x) {\n"
	  "    S[t] = 1.0;\n"
	  "  }\n"
	  "}\n",
	  "4:3: error: launch 0 needs 262144 bytes of shared memory; a thread "
	  "block may have at most 232448\n" },
	{ "a horizontal nest not bound to blockIdx.x",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m] = A;\n"
	  "  block h() horizontal {\n"
	  "    for i in [0, m) bind(threadIdx.x) {\n"
	  "      A[i] = 1.0;\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "4:5: error: nest 0 of horizontal block 'h' is not bound to "
	  "blockIdx.x at its outermost loop\n" },
	{ "blockIdx bound inside a horizontal nest",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m] = A;\n"
	  "  block h() horizontal {\n"
	  "    for i in [0, m) bind(blockIdx.x) {\n"
	  "      for j in [0, m) bind(blockIdx.y) {\n"
	  "        A[i] = 1.0;\n"
	  "      }\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "5:7: error: loop 'j' is bound to blockIdx.y inside a nest of a "
	  "horizontal block, whose outermost loop alone may bind blockIdx\n" },
	{ "a horizontal block that is not a launch",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m] = A;\n"
	  "  for r in [0, 2) {\n"
	  "    block h() horizontal {\n"
	  "      for i in [0, m) bind(blockIdx.x) {\n"
	  "        A[i] = 1.0;\n"
	  "      }\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "4:5: error: horizontal block 'h' must be a top-level statement of "
	  "the kernel\n" },
	{ "a top-level let that reads memory",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m] = A;\n"
	  "  let x = A[0];\n"
	  "  for i in [0, m) {\n"
	  "    A[i] = x;\n"
	  "  }\n"
	  "}\n",
	  "3:3: error: let 'x' at the top level reads memory: it cannot be "
	  "shared by the kernel's launches\n" },
	{ "two buffers of one written array",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m] = A;\n"
	  "  buffer B: f32[m] = A;\n"
	  "  for i in [0, m) {\n"
	  "    A[i] = B[i];\n"
	  "  }\n"
	  "}\n",
	  "3:10: error: buffers 'A' and 'B' both bind array 'A', which the "
	  "kernel writes\n" },
	{ "a warp buffer outside a loop bound to threadIdx.x",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[4] = A;\n"
	  "  buffer B: f32[m] = B;\n"
	  "  buffer W: f32[4] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for e in [0, 4) {\n"
	  "      W[e] = A[e];\n"
	  "    }\n"
	  "    B[i] = W[1];\n"
	  "  }\n"
	  "}\n",
	  "6:5: error: warp buffer 'W' is filled outside a loop bound to "
	  "threadIdx.x, whose lanes hold it\n" },
	{ "a warp buffer over lanes that are no power of two",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m * 6] = A;\n"
	  "  buffer B: f32[m * 6] = B;\n"
	  "  buffer W: f32[6] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for t in [0, 6) bind(threadIdx.x) {\n"
	  "      for e in [0, 6) {\n"
	  "        W[e] = A[i * 6 + e];\n"
	  "      }\n"
	  "      B[i * 6 + t] = W[2];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "7:7: error: warp buffer 'W' is filled inside loop 't', bound to "
	  "threadIdx.x, whose extent is not the launch's threads in x or not a "
	  "literal power of two up to 32\n" },
	{ "a warp buffer read at an index of the lane's own",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m * 8] = A;\n"
	  "  buffer B: f32[m * 8] = B;\n"
	  "  buffer W: f32[8] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for t in [0, 8) bind(threadIdx.x) {\n"
	  "      for e in [0, 8) {\n"
	  "        W[e] = A[i * 8 + e];\n"
	  "      }\n"
	  "      B[i * 8 + t] = W[t];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "10:22: error: warp buffer 'W' is read at an index that depends on "
	  "threadIdx.x: its lanes read one element together\n" },
	{ "a warp buffer read by some lanes only",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m * 8] = A;\n"
	  "  buffer B: f32[m * 8] = B;\n"
	  "  buffer W: f32[8] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for t in [0, 8) bind(threadIdx.x) {\n"
	  "      for e in [0, 8) {\n"
	  "        W[e] = A[i * 8 + e];\n"
	  "      }\n"
	  "      if (t < 4) {\n"
	  "        B[i * 8 + t] = W[3];\n"
	  "      }\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "11:24: error: warp buffer 'W' is read under control flow that "
	  "depends on threadIdx.x: its lanes shuffle together\n" },
	{ "a warp buffer written outside a fill loop",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m * 8] = A;\n"
	  "  buffer B: f32[m * 8] = B;\n"
	  "  buffer W: f32[8] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for t in [0, 8) bind(threadIdx.x) {\n"
	  "      W[0] = A[i * 8];\n"
	  "      B[i * 8 + t] = W[0];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "7:7: error: warp buffer 'W' is written outside a fill loop (a serial "
	  "loop over its elements, directly around the store, inside the loop "
	  "bound to threadIdx.x)\n" },
	{ "a warp buffer filled by some lanes only",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m * 8] = A;\n"
	  "  buffer B: f32[m * 8] = B;\n"
	  "  buffer W: f32[8] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for t in [0, 8) bind(threadIdx.x) {\n"
	  "      if (t < 4) {\n"
	  "        for e in [0, 8) {\n"
	  "          W[e] = A[i * 8 + e];\n"
	  "        }\n"
	  "      }\n"
	  "      B[i * 8 + t] = W[0];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "9:11: error: warp buffer 'W' is filled under control flow that "
	  "depends on threadIdx.x: every lane stores its part\n" },
	{ "a warp buffer's fill past its end",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m * 8] = A;\n"
	  "  buffer B: f32[m * 8] = B;\n"
	  "  buffer W: f32[4] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for t in [0, 8) bind(threadIdx.x) {\n"
	  "      for e in [0, 8) {\n"
	  "        W[e] = A[i * 8 + e];\n"
	  "      }\n"
	  "      B[i * 8 + t] = W[0];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "7:7: error: fill loop 'e' of warp buffer 'W' needs a literal extent "
	  "of at most its 4 elements\n" },
	{ "a warp buffer's fill that adds",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m * 8] = A;\n"
	  "  buffer B: f32[m * 8] = B;\n"
	  "  buffer W: f32[8] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for t in [0, 8) bind(threadIdx.x) {\n"
	  "      for e in [0, 8) {\n"
	  "        W[e] += A[i * 8 + e];\n"
	  "      }\n"
	  "      B[i * 8 + t] = W[0];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "8:9: error: warp buffer 'W': its fill loop 'e' may only assign "
	  "element 'e'\n" },
	{ "a warp buffer filled with the lane's own values",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m * 8] = A;\n"
	  "  buffer B: f32[m * 8] = B;\n"
	  "  buffer W: f32[8] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for t in [0, 8) bind(threadIdx.x) {\n"
	  "      for e in [0, 8) {\n"
	  "        W[e] = A[i * 8 + t];\n"
	  "      }\n"
	  "      B[i * 8 + t] = W[0];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "8:9: error: the value stored into warp buffer 'W' depends on "
	  "threadIdx.x: its lanes hold one copy\n" },
	{ "a warp buffer read in a fill that leaves lanes out",
	  "kernel k(m: i32) stage 3 {\n"
	  "  buffer A: f32[m * 12] = A;\n"
	  "  buffer B: f32[m * 12] = B;\n"
	  "  buffer W: f32[12] warp;\n"
	  "  buffer V: f32[12] warp;\n"
	  "  for i in [0, m) bind(blockIdx.x) {\n"
	  "    for t in [0, 8) bind(threadIdx.x) {\n"
	  "      for e in [0, 12) {\n"
	  "        W[e] = A[i * 12 + e];\n"
	  "      }\n"
	  "      for e in [0, 12) {\n"
	  "        V[e] = W[e];\n"
	  "      }\n"
	  "      B[i * 12 + t] = V[0];\n"
	  "    }\n"
	  "  }\n"
	  "}\n",
	  "12:16: error: warp buffer 'W' is read under control flow that "
	  "depends on threadIdx.x (a fill loop whose last lanes store nothing): "
	  "its lanes shuffle together\n" },
	{ "a stage I kernel",
	  "kernel k(m: i32) {\n"
	  "  axis I = dense_fixed(m);\n"
	  "  tensor A: f32[I];\n"
	  "  iter s (i) in [I] \"S\" { A[i] = 1.0; }\n"
	  "}\n",
	  "1:8: error: kernel 'k' is a stage 1 kernel; CUDA is emitted from "
	  "stage 3 (see stir_kernel_prepare_for_gpu)\n" },
};

START_TEST(test_refusal)
{
	const struct refusal *r = &refusals[_i];
	prog p = read_prog(r->text);
	char *src = stir_kernel_to_cuda(p.k);
	if (src)
		fprintf(stderr, "%s: emitted\n%s", r->what, src);
	ck_assert_ptr_null(src);
	char *d = test_diags_to_str(p.ctx);
	if (strcmp(d, r->diags))
		fprintf(stderr, "%s:\n%s", r->what, d);
	ck_assert_str_eq(d, r->diags);
	free(d);
	free_prog(&p);
	/* the GPU verifier reports the same, printing nothing */
	p = read_prog(r->text);
	ck_assert_int_eq(stir_kernel_verify_gpu(p.k), -1);
	d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, r->diags);
	free(d);
	free_prog(&p);
}
END_TEST

/* ---- barriers (verify/barriers.c) ----------------------------------------- */

/* src: a copy of src without its "// launch" lines (which name the
 * .stir file and line of each launch). */
static char *strip_launch_lines(const char *src)
{
	char *r = malloc(strlen(src) + 1), *o = r;
	ck_assert_ptr_nonnull(r);
	for (const char *l = src; *l; ) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l + 1) : strlen(l);
		if (strncmp(l, "// launch ", 10)) {
			memcpy(o, l, n);
			o += n;
		}
		l += n;
	}
	*o = '\0';
	return r;
}

/* file, sched, sizes, n, first, second: program "file" (scheduled
 * by "sched" when not NULL, prepared for the GPU otherwise), whose
 * stage III text after stir_insert_barriers holds n barriers,
 * among them "first" and "second" (each a barrier in context).  The text reads back and verifies,
 * a second run adds nothing, the read-back kernel emits the same CUDA,
 * and it interprets to the same arrays as the kernel without barriers. */
static void check_placed(const char *file, const char *sched,
	const char *sizes, int n, const char *first, const char *second)
{
	prog p = load_prog(file), q = load_prog(file);
	stir_schedule *s = sched ? stir_schedule_read_from_file(p.ctx,
		test_path(sched)) : NULL;
	int rc = s ? stir_schedule_prepare_for_gpu(s, p.k) :
		stir_kernel_prepare_for_gpu(p.k);
	if (rc < 0)
		stir_ctx_print_diagnostics(p.ctx, stderr);
	ck_assert_int_eq(rc, 0);
	char *text = stir_kernel_to_str(p.k);
	int count = 0;
	for (const char *t = strstr(text, "barrier;"); t; t = strstr(t + 1,
	    "barrier;"))
		count++;
	if (count != n || !strstr(text, first) || !strstr(text, second))
		fprintf(stderr, "%s:\n%s", file, text);
	ck_assert_int_eq(count, n);
	ck_assert_ptr_nonnull(strstr(text, first));
	ck_assert_ptr_nonnull(strstr(text, second));
	/* a second run finds every barrier in place */
	ck_assert_int_eq(stir_insert_barriers(p.k), 0);
	char *again = stir_kernel_to_str(p.k);
	ck_assert_str_eq(again, text);
	/* the text reads back (verified) and prints and emits the same */
	stir_module *rm = stir_module_read_from_mem(p.ctx, "placed.stir", text,
		strlen(text));
	if (!rm)
		stir_ctx_print_diagnostics(p.ctx, stderr);
	ck_assert_ptr_nonnull(rm);
	stir_kernel *r = stir_module_get_kernel(rm, 0);
	ck_assert_int_eq(stir_kernel_verify(r), 0);
	char *back = stir_kernel_to_str(r);
	ck_assert_str_eq(back, text);
	/* (the line comments and the launches' name the file: left out) */
	stir_cuda_plan *ca = stir_cuda_plan_alloc(p.k,
		STIR_CUDA_NO_LINE_COMMENTS);
	stir_cuda_plan *cb = stir_cuda_plan_alloc(r, STIR_CUDA_NO_LINE_COMMENTS);
	ck_assert_ptr_nonnull(ca);
	ck_assert_ptr_nonnull(cb);
	char *sa = strip_launch_lines(stir_cuda_plan_get_source(ca));
	char *sb = strip_launch_lines(stir_cuda_plan_get_source(cb));
	ck_assert_str_eq(sa, sb);
	free(sa);
	free(sb);
	/* the interpreter runs the barriers as no-ops: the arrays of the
	 * file's kernel as read (q: no barriers, not scheduled), within the
	 * tolerance of stir_array_compare, on the same inputs */
	stir_bindings *b = stir_bindings_alloc();
	test_bind_sizes(b, sizes);
	if (s)
		ck_assert_int_eq(stir_schedule_bind_sizes(s, b), 0);
	ck_assert_int_eq(stir_kernel_bind_random(q.k, b, 7), 0);
	ck_assert_int_eq(stir_kernel_bind_outputs(q.k, b), 0);
	if (s)
		ck_assert_int_eq(stir_schedule_bind_formats(s, q.k, b), 0);
	stir_bindings *want = stir_bindings_copy(b);
	ck_assert_int_eq(stir_kernel_interpret(q.k, want), 0);
	ck_assert_int_eq(stir_kernel_interpret(r, b), 0);
	for (int i = 0; i < stir_bindings_n_arrays(want); i++) {
		const char *name = stir_bindings_get_array_name(want, i);
		ck_assert_int_eq(stir_array_compare(stir_bindings_get_array(b,
			name), stir_bindings_get_array(want, name), NULL, NULL), 0);
	}
	stir_bindings_free(b);
	stir_bindings_free(want);
	stir_cuda_plan_free(ca);
	stir_cuda_plan_free(cb);
	free(back);
	free(again);
	free(text);
	stir_module_free(rm);
	stir_schedule_free(s);
	free_prog(&q);
	free_prog(&p);
}

START_TEST(test_barriers_placed)
{
	/* stage III as written: one barrier after each tile of x is loaded
	 * into shared memory, one at the end of the tile loop (before the
	 * next tile overwrites it) */
	check_placed("tests/cuda/tiled_mv.stir", NULL, "m=70,n=130", 2,
		"          xs[vt] = vk < n ? x_data[vk] : 0.0;\n"
		"        }\n"
		"      }\n"
		"      barrier;\n"
		"      for t in [0, 64) bind(threadIdx.x) {\n"
		"        block dot(",
		"          }\n"
		"        }\n"
		"      }\n"
		"      barrier;\n"
		"    }\n"
		"  }\n"
		"}\n");
	/* a schedule file's cache_read into shared memory: the row of X
	 * loaded, then a barrier before the nests that read it */
	check_placed("examples/sddmm_rows.stir", "examples/sddmm_rows.yaml",
		"", 1,
		"      barrier;\n"
		"      for j_0 in [0, (J_indptr[vi + 1] - J_indptr[vi] + 15) / 16) {",
		"barrier;");
	/* a stage III file whose threads exchange partial sums */
	check_placed("tests/stages/shared.stage3.stir", NULL, "m=20,n=100", 1,
		"    barrier;\n"
		"    block sum(", "barrier;");
}
END_TEST

START_TEST(test_barrier_missing)
{
	/* a stage III kernel whose threads must synchronize, emitted without
	 * the pass: refused at each place, not emitted without its barrier */
	prog p = load_prog("tests/cuda/tiled_mv.stir");
	ck_assert_ptr_null(stir_kernel_to_cuda(p.k));
	char *d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "23:7: error: threads of a block must synchronize "
		"between the accesses to 'xs' at tiled_mv.stir:20 and at "
		"tiled_mv.stir:28, but there is no barrier between them (see "
		"stir_insert_barriers)\n"
		"17:5: error: threads of a block must synchronize between the "
		"accesses to 'y_data' at tiled_mv.stir:13 and at tiled_mv.stir:28, "
		"but there is no barrier between them (see "
		"stir_insert_barriers)\n");
	free(d);
	free_prog(&p);
	/* a barrier written where not every thread of the block gets */
	p = read_prog("kernel k() stage 3 {\n"
		"  buffer A: f32[32] = A;\n"
		"  for t in [0, 32) bind(threadIdx.x) {\n"
		"    if (t < 16) {\n"
		"      barrier;\n"
		"      A[t] = 1.0;\n"
		"    }\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_kernel_verify_gpu(p.k), -1);
	d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "5:7: error: barrier: not every thread of the "
		"block reaches it\n");
	free(d);
	free_prog(&p);
	/* and is a stage III statement only */
	stir_ctx *ctx = stir_ctx_alloc();
	const char *two = "kernel k(m: i32) stage 2 {\n"
		"  buffer A: f32[m] = A;\n"
		"  for i in [0, m) {\n"
		"    barrier;\n"
		"  }\n"
		"}\n";
	ck_assert_ptr_null(stir_module_read_from_mem(ctx, "k.stir", two,
		strlen(two)));
	d = test_diags_to_str(ctx);
	ck_assert_str_eq(d, "4:5: error: barrier is not allowed in a stage 2 "
		"kernel\n");
	free(d);
	stir_ctx_free(ctx);
}
END_TEST

/* ---- names and determinism ------------------------------------------------ */

START_TEST(test_escape)
{
	static const char *const cases[][2] = {
		{ "x", "x" }, { "A_data", "A_data" }, { "int", "int_" },
		{ "threadIdx", "threadIdx_" }, { "expf", "expf_" },
		{ "_x", "stir_2_x" }, { "__half", "stir_6__half" },
		{ "stir_red0", "stir_9stir_red0" }, { "a_", "stir_2a_" },
		{ "int_", "stir_4int_" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = cuda_escape(cases[i][0]);
		ck_assert_str_eq(s, cases[i][1]);
		free(s);
	}
}
END_TEST

START_TEST(test_deterministic)
{
	prog p = load_placed("tests/cuda/softmax_block.stir");
	char *a = stir_kernel_to_cuda(p.k), *b = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a, b);
	/* the line comments can be left out */
	stir_cuda_plan *plan = stir_cuda_plan_alloc(p.k,
		STIR_CUDA_NO_LINE_COMMENTS);
	ck_assert_ptr_nonnull(plan);
	ck_assert_ptr_nonnull(strstr(a, "// softmax_block.stir:"));
	ck_assert_ptr_null(strstr(stir_cuda_plan_get_source(plan), "// softmax"));
	stir_cuda_plan_free(plan);
	free(a);
	free(b);
	free_prog(&p);
}
END_TEST

/* k: the loop "for w ... vectorize" that is the first statement of the
 * first loop of kernel k. */
static const stir_stmt *vector_loop(const stir_kernel *k)
{
	const stir_stmt *outer = stir_stmt_at(&k->body, 0);
	ck_assert_int_eq(outer->kind, STIR_STMT_FOR);
	const stir_stmt *s = stir_stmt_at(&outer->u.for_.body, 0);
	ck_assert_int_eq(s->kind, STIR_STMT_FOR);
	ck_assert_int_eq(s->u.for_.kind, STIR_LOOP_VECTORIZE);
	return s;
}

/* The vector plan (ir/vector.c) as a function of the IR alone: which
 * accesses are vectors, which are loaded and stored, and no plan where a
 * lane reads what another writes or a store does not move with the
 * lane. */
START_TEST(test_vector_plan)
{
	stir_vec_plan pl;
	int64_t r;
	prog p = read_prog(
		"kernel v(n: i32) stage 3 {\n"
		"  buffer X: f32[n * 4] = X;\n"
		"  buffer Y: f32[n * 4] = Y;\n"
		"  buffer s: f32[1] = s;\n"
		"  for i in [0, n) {\n"
		"    for w in [0, 4) vectorize {\n"
		"      if (i < n) {\n"
		"        Y[i * 4 + w] = X[i * 4 + w] * s[0];\n"
		"        Y[i * 4 + w] += 1.0;\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	const stir_stmt *L = vector_loop(p.k);
	ck_assert_int_eq(stir_vec_plan_loop(L, false, NULL, NULL, &pl), 1);
	ck_assert_int_eq(pl.width, 4);
	ck_assert_int_eq(pl.n_guards, 1);
	ck_assert_int_eq(pl.n_stores, 2);
	ck_assert_int_eq(pl.n, 2);
	ck_assert_str_eq(pl.v[0].buf->name, "X");
	ck_assert(pl.v[0].loaded && !pl.v[0].stored && !pl.v[0].atomic);
	ck_assert_str_eq(pl.v[1].buf->name, "Y");
	ck_assert(!pl.v[1].loaded && pl.v[1].stored);
	ck_assert(stir_vec_known_residue(pl.v[1].idx, L->u.for_.var, 4, NULL,
		NULL, &r));
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(stir_vec_find(&pl, pl.v[1].buf,
		pl.stores[1]->u.store.idx[0], NULL, NULL), 1);
	ck_assert_str_eq(stir_vec_type(STIR_F32, 4), "float4");
	ck_assert_str_eq(stir_vec_type(STIR_F64, 2), "double2");
	ck_assert_ptr_null(stir_vec_type(STIR_F64, 4));
	free_prog(&p);

	/* lane w reads what lane w + 1 writes: no plan */
	p = read_prog(
		"kernel v(n: i32) stage 3 {\n"
		"  buffer Y: f32[n * 4 + 1] = Y;\n"
		"  for i in [0, n) {\n"
		"    for w in [0, 4) vectorize {\n"
		"      Y[i * 4 + w] = Y[i * 4 + w + 1];\n"
		"    }\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_vec_plan_loop(vector_loop(p.k), false, NULL,
		NULL, &pl), 0);
	free_prog(&p);

	/* a store that every lane makes to one element: no plan; a body with
	 * a let: no plan */
	p = read_prog(
		"kernel v(n: i32) stage 3 {\n"
		"  buffer X: f64[n * 2] = X;\n"
		"  buffer Y: f64[n] = Y;\n"
		"  for i in [0, n) {\n"
		"    for w in [0, 2) vectorize {\n"
		"      Y[i] = X[i * 2 + w];\n"
		"    }\n"
		"  }\n"
		"  for i in [0, n) {\n"
		"    for w in [0, 2) vectorize {\n"
		"      let x = X[i * 2 + w];\n"
		"      X[i * 2 + w] = x + 1.0;\n"
		"    }\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_vec_plan_loop(vector_loop(p.k), false, NULL,
		NULL, &pl), 0);
	const stir_stmt *outer = stir_stmt_at(&p.k->body, 1);
	ck_assert_int_eq(stir_vec_plan_loop(stir_stmt_at(&outer->u.for_.body,
		0), false, NULL, NULL, &pl), 0);
	free_prog(&p);
}
END_TEST

/* What test_vector_plans_match_emitter counts. */
typedef struct vec_count {
	int loops;                 /* vectorized loops seen */
	int planned;               /* of which with a vector path */
	int vectors;               /* vectors of all plans */
	char names[256];           /* "w4 w2 ...": the planned loops, width */
} vec_count;

/* loop, pl, user: stir_vec_fn of the test below (user: a vec_count). */
static void count_plan(const stir_stmt *loop, const stir_vec_plan *pl,
	void *user)
{
	vec_count *c = user;
	size_t n = strlen(c->names);
	c->loops++;
	if (!pl)
		return;
	c->planned++;
	c->vectors += pl->n;
	snprintf(c->names + n, sizeof(c->names) - n, "%s%s%" PRId64,
		n ? " " : "", loop->u.for_.var->name, pl->width);
}

/* The plans computed from the IR alone (stir_vec_plan_kernel: bindings
 * and atomic blocks found by a walk of the kernel) are what the emitter
 * prints once plan_vectors wrote them: the same loops get a vector path,
 * in the same order, with the same widths; a loop not planned gets
 * none. */
START_TEST(test_vector_plans_match_emitter)
{
	prog p = load_prog("tests/cuda/vectorize.stir");
	vec_count c = { 0 };
	char want[256] = "";
	ck_assert_int_eq(stir_vec_plan_kernel(p.k, count_plan, &c), 0);
	ck_assert_int_eq(stir_plan_vectors(p.k), 0);
	char *cu = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(cu);
	for (const char *at = cu; (at = strstr(at, "// loop '")); at++) {
		char name[32];
		int lanes;
		size_t n = strlen(want);
		ck_assert_int_eq(sscanf(at, "// loop '%31[^']' vectorized: %d lanes",
			name, &lanes), 2);
		snprintf(want + n, sizeof(want) - n, "%s%s%d", n ? " " : "", name,
			lanes);
	}
	ck_assert_str_eq(c.names, want);
	ck_assert_int_ge(c.planned, 4);
	ck_assert_int_gt(c.vectors, c.planned);
	free(cu);
	free_prog(&p);

	/* a loop without a plan: counted, not planned, no vector path */
	p = read_prog(
		"kernel v(n: i32) stage 3 {\n"
		"  buffer Y: f32[n * 4 + 1] = Y;\n"
		"  for i in [0, n) {\n"
		"    for w in [0, 4) vectorize {\n"
		"      Y[i * 4 + w] = Y[i * 4 + w + 1];\n"
		"    }\n"
		"  }\n"
		"}\n");
	c = (vec_count){ 0 };
	ck_assert_int_eq(stir_vec_plan_kernel(p.k, count_plan, &c), 0);
	ck_assert_int_eq(c.loops, 1);
	ck_assert_int_eq(c.planned, 0);
	cu = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(cu);
	ck_assert_ptr_null(strstr(cu, "vectorized"));
	free(cu);
	free_prog(&p);
}
END_TEST

/* s, user: stmt_pre of test_emitter_reads_plans: stop at a loop with a
 * vector path in its plan (*user receives it). */
static stir_visit_step find_planned(stir_stmt *s, void *user)
{
	if (s->kind != STIR_STMT_FOR || !s->u.for_.planned || !s->u.for_.n_vecs)
		return STIR_VISIT_GO;
	*(stir_stmt **)user = s;
	return STIR_VISIT_STOP;
}

/* s: the number of vector paths in CUDA source s. */
static int count_vectorized(const char *s)
{
	int n = 0;
	for (const char *at = s; (at = strstr(at, "vectorized: ")); at++)
		n++;
	return n;
}

/* The emitter prints the plan a loop carries (passes/plan_vectors.c): a
 * planned loop whose plan is emptied by hand (bypassing the verifier)
 * loses its vector path, the others keep theirs. */
START_TEST(test_emitter_reads_plans)
{
	prog p = load_prog("tests/cuda/vectorize.stir");
	ck_assert_int_eq(stir_plan_vectors(p.k), 0);
	char *planned = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(planned);
	stir_stmt *L = NULL;
	stir_visitor v = { .stmt_pre = find_planned, .user = &L };
	stir_visit_list(&v, &p.k->body);
	ck_assert_ptr_nonnull(L);
	L->u.for_.n_vecs = 0;
	char *emptied = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(emptied);
	ck_assert_int_ge(count_vectorized(planned), 4);
	ck_assert_int_eq(count_vectorized(emptied), count_vectorized(planned) - 1);
	free(planned);
	free(emptied);
	free_prog(&p);
}
END_TEST

/* With aligned buffers, vector loops of global buffers at multiples of the
 * width lose the alignment check and the scalar fallback; a vector at an
 * index of unknown residue keeps both. */
START_TEST(test_aligned_buffers)
{
	prog p = load_prog("tests/cuda/vectorize.stir");
	ck_assert_int_eq(stir_plan_vectors(p.k), 0);
	char *checked = stir_kernel_to_cuda(p.k);
	stir_cuda_plan *plan = stir_cuda_plan_alloc(p.k,
		STIR_CUDA_ALIGNED_BUFFERS);
	ck_assert_ptr_nonnull(checked);
	ck_assert_ptr_nonnull(plan);
	const char *aligned = stir_cuda_plan_get_source(plan);
	ck_assert_ptr_nonnull(strstr(checked, "(unsigned long long)Z_data % 16"));
	ck_assert_ptr_nonnull(strstr(checked, "(unsigned long long)D_data % 16"));
	ck_assert_ptr_null(strstr(aligned, "(unsigned long long)Z_data % 16"));
	ck_assert_ptr_null(strstr(aligned, "(unsigned long long)D_data % 16"));
	ck_assert_ptr_nonnull(strstr(aligned,
		"(unsigned long long)&F_data[vi * 4 + 1 + 0] % 16 == 0"));
	/* the vector paths are the same */
	ck_assert_ptr_nonnull(strstr(aligned, "*(float4 *)&Z_data[vi * 4 + 0] = "));
	ck_assert_ptr_nonnull(strstr(checked, "*(float4 *)&Z_data[vi * 4 + 0] = "));
	stir_cuda_plan_free(plan);
	free(checked);
	free_prog(&p);
}
END_TEST

/* A guard around a nest's innermost body that reads memory stays inside
 * (it could read out of bounds where the loops do not run); one that does
 * not is tested before the nest by the lift_guards pass, which
 * stir_kernel_prepare_for_gpu runs (tests/golden/hoist.cu has both). */
START_TEST(test_lifted_guards)
{
	prog p = load_prog("tests/cuda/vectorize.stir");
	ck_assert_int_eq(stir_lift_guards(p.k), 0);
	ck_assert_int_eq(stir_plan_vectors(p.k), 0);
	char *s = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(s);
	/* "put": the guard of the block under loop w, before the loop */
	ck_assert_ptr_nonnull(strstr(s,
		"        if (b * 128 + t < n) {\n"
		"          for (int w = 0; w < 4; ++w) {\n"
		"            {  // block put\n"));
	free(s);
	free_prog(&p);

	p = read_prog(
		"kernel g(n: i32) stage 3 {\n"
		"  buffer X_data: f32[n] = X;\n"
		"  buffer Y_data: f32[n * 4] = Y;\n"
		"  for b in [0, (n + 127) / 128) bind(blockIdx.x) {\n"
		"    for t in [0, 128) bind(threadIdx.x) {\n"
		"      for w in [0, 4) {\n"
		"        if (b * 128 + t < n) {\n"
		"          if (X_data[b * 128 + t] > 0.0) {\n"
		"            block y(vi: S = b * 128 + t, vw: S = w) {\n"
		"              Y_data[vi * 4 + vw] = 1.0;\n"
		"            }\n"
		"          }\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_lift_guards(p.k), 0);
	s = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(s);
	/* the outer guard (no loads) before the loop, the load inside */
	ck_assert_ptr_nonnull(strstr(s,
		"        if (b * 128 + t < n) {\n"
		"          for (int w = 0; w < 4; ++w) {\n"
		"            if (X_data[b * 128 + t] > 0.0f) {\n"));
	free(s);
	free_prog(&p);

	/* a guard that depends on the lanes stays inside a loop whose body
	 * reads warp buffers (their shuffles go before the loop, for every
	 * lane) */
	p = read_prog(
		"kernel lanes(m: i32, n: i32) stage 3 {\n"
		"  buffer J_indices: i32[m * 4] = J.indices in [0, n);\n"
		"  buffer B_data: f32[n * 8] = B;\n"
		"  buffer C_data: f32[m * 8] = C;\n"
		"  buffer J_warp: i32[4] warp;\n"
		"  for i in [0, m) bind(blockIdx.x) {\n"
		"    for k in [0, 8) bind(threadIdx.x) {\n"
		"      for e in [0, 4) {\n"
		"        block fill(vi: S = i, ve: S = e) {\n"
		"          J_warp[ve] = J_indices[vi * 4 + ve];\n"
		"        }\n"
		"      }\n"
		"      for j in [0, 4) unroll {\n"
		"        for w in [0, 2) {\n"
		"          if (k < 6) {\n"
		"            block mm(vi: S = i, vj: S = j, vk: S = k) {\n"
		"              C_data[vi * 8 + vk] = B_data[J_warp[vj] * 8 + vk];\n"
		"            }\n"
		"          }\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	ck_assert_int_eq(stir_lift_guards(p.k), 0);
	ck_assert_int_eq(stir_hoist_warp_reads(p.k), 0);
	s = stir_kernel_to_cuda(p.k);
	if (!s)
		stir_ctx_print_diagnostics(p.ctx, stderr);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(strstr(s, "const int stir_s0 = __shfl_sync("));
	ck_assert_ptr_nonnull(strstr(s, "for (int w = 0; w < 2; ++w) {\n"));
	ck_assert(strstr(s, "for (int w = 0; w < 2; ++w) {\n") <
		strstr(s, "if (k < 6) {\n"));
	free(s);
	free_prog(&p);
}
END_TEST

/* ---- the launch plan ------------------------------------------------------- */

/* b, name, v: bind a size. */
static void size(stir_bindings *b, const char *name, int64_t v)
{
	ck_assert_int_eq(stir_bindings_set_size(b, name, v), 0);
}

/* p, i, b, g0, g1, g2, b0, b1, b2: launch i's grid must be (g0, g1,
 * g2) and its block (b0, b1, b2). */
static void expect_dims(const stir_cuda_plan *p, int i, const stir_bindings *b,
	unsigned g0, unsigned g1, unsigned g2, unsigned b0, unsigned b1,
	unsigned b2)
{
	unsigned grid[3], block[3];
	ck_assert_int_eq(stir_cuda_plan_get_launch_dims(p, i, b, grid, block), 0);
	ck_assert_uint_eq(grid[0], g0);
	ck_assert_uint_eq(grid[1], g1);
	ck_assert_uint_eq(grid[2], g2);
	ck_assert_uint_eq(block[0], b0);
	ck_assert_uint_eq(block[1], b1);
	ck_assert_uint_eq(block[2], b2);
}

START_TEST(test_plan_csrmm)
{
	prog p = load_prog("tests/cuda/csrmm_rows.stir");
	stir_cuda_plan *plan = stir_cuda_plan_alloc(p.k, 0);
	ck_assert_ptr_nonnull(plan);
	ck_assert_ptr_eq(stir_cuda_plan_get_kernel(plan), p.k);
	ck_assert_int_eq(stir_cuda_plan_n_launches(plan), 2);
	ck_assert_str_eq(stir_cuda_plan_get_launch_name(plan, 0), "csrmm_rows_k0");
	ck_assert_str_eq(stir_cuda_plan_get_launch_name(plan, 1), "csrmm_rows_k1");
	ck_assert_ptr_null(stir_cuda_plan_get_launch_name(plan, 2));
	/* the init launch: the sizes, then C only */
	static const char *const args0[] = { "m", "n", "feat", "nnz", "C_data" };
	ck_assert_int_eq(stir_cuda_plan_n_args(plan, 0), 5);
	for (int j = 0; j < 5; j++)
		ck_assert_str_eq(stir_cuda_plan_get_arg_name(plan, 0, j), args0[j]);
	ck_assert_int_eq(stir_cuda_plan_get_arg_type(plan, 0, 0), STIR_ARG_I32);
	ck_assert_int_eq(stir_cuda_plan_get_arg_type(plan, 0, 4), STIR_ARG_PTR);
	ck_assert_ptr_null(stir_cuda_plan_get_arg_buffer(plan, 0, 0));
	ck_assert_str_eq(stir_buffer_get_name(
		stir_cuda_plan_get_arg_buffer(plan, 0, 4)), "C_data");
	ck_assert(stir_cuda_plan_arg_is_written(plan, 0, 4));
	/* the main launch reads four arrays and writes C */
	static const char *const args1[] = { "m", "n", "feat", "nnz",
		"J_indptr", "J_indices", "A_data", "B_data", "C_data" };
	ck_assert_int_eq(stir_cuda_plan_n_args(plan, 1), 9);
	for (int j = 0; j < 9; j++) {
		ck_assert_str_eq(stir_cuda_plan_get_arg_name(plan, 1, j), args1[j]);
		ck_assert(stir_cuda_plan_arg_is_written(plan, 1, j) == (j == 8));
	}
	ck_assert_int_eq(stir_cuda_plan_n_args(plan, 2), -1);
	ck_assert_int_eq(stir_cuda_plan_get_arg_type(plan, 1, 9), STIR_ARG_NONE);

	/* the sizes as expressions: m blocks of feat threads */
	ck_assert_int_eq(stir_cuda_plan_n_extents(plan, 1, STIR_BLOCK_X), 1);
	ck_assert_int_eq(stir_cuda_plan_n_extents(plan, 1, STIR_BLOCK_Y), 0);
	ck_assert_int_eq(stir_cuda_plan_n_extents(plan, 1, STIR_THREAD_X), 1);
	ck_assert_int_eq(stir_cuda_plan_n_extents(plan, 2, STIR_THREAD_X), -1);
	char *x = stir_expr_to_str(stir_cuda_plan_get_extent(plan, 1,
		STIR_THREAD_X, 0));
	ck_assert_str_eq(x, "feat");
	free(x);
	ck_assert_ptr_null(stir_cuda_plan_get_extent(plan, 1, STIR_THREAD_X, 1));
	ck_assert(!stir_cuda_plan_launch_is_horizontal(plan, 1));

	stir_bindings *b = stir_bindings_alloc();
	size(b, "m", 5);
	size(b, "n", 7);
	size(b, "feat", 40);
	size(b, "nnz", 9);
	expect_dims(plan, 0, b, 5, 1, 1, 40, 1, 1);
	expect_dims(plan, 1, b, 5, 1, 1, 40, 1, 1);
	/* an empty loop still launches one block of one thread */
	size(b, "m", 0);
	size(b, "feat", 0);
	expect_dims(plan, 1, b, 1, 1, 1, 1, 1, 1);
	/* sizes CUDA does not allow, an unbound size, no such launch */
	size(b, "feat", 2000);
	unsigned g[3], bl[3];
	ck_assert_int_eq(stir_cuda_plan_get_launch_dims(plan, 0, b, g, bl), -1);
	char *d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "10:3: error: launch 'csrmm_rows_k0' needs 2000 "
		"threads per block in x; CUDA allows at most 1024\n");
	free(d);
	stir_ctx_clear_diagnostics(p.ctx);
	ck_assert_int_eq(stir_cuda_plan_get_launch_dims(plan, 2, b, g, bl), -1);
	stir_bindings *none = stir_bindings_alloc();
	ck_assert_int_eq(stir_cuda_plan_get_launch_dims(plan, 0, none, g, bl),
		-1);
	stir_bindings_free(none);
	stir_bindings_free(b);
	stir_cuda_plan_free(plan);
	free_prog(&p);
}
END_TEST

/* The arrays a launch writes become NaN; the others stay as they were,
 * and an array the bindings lack is passed over. */
/* A launch too large for CUDA whose statement a schedule made (the row
 * loop split by examples/csrmm.yaml, which has no place of its own) is
 * refused at the first located statement in it, not at 0:0. */
START_TEST(test_plan_refusal_located)
{
	prog p = load_prog("examples/csrmm.stir");
	stir_schedule *s = stir_schedule_read_from_file(p.ctx,
		test_path("examples/csrmm.yaml"));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(stir_schedule_prepare_for_gpu(s, p.k), 0);
	stir_cuda_plan *plan = stir_cuda_plan_alloc(p.k, 0);
	ck_assert_ptr_nonnull(plan);
	stir_bindings *b = stir_bindings_alloc();
	size(b, "m", 16);
	size(b, "n", 16);
	size(b, "feat", 2000);
	size(b, "nnz", 16);
	unsigned g[3], bl[3];
	int n = stir_cuda_plan_n_launches(plan);
	ck_assert_int_eq(stir_cuda_plan_get_launch_dims(plan, n - 1, b, g, bl),
		-1);
	char *d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "12:5: error: launch 'csrmm_k1' needs 2000 threads "
		"per block in x; CUDA allows at most 1024\n");
	free(d);
	stir_bindings_free(b);
	stir_cuda_plan_free(plan);
	stir_schedule_free(s);
	free_prog(&p);
}
END_TEST

START_TEST(test_plan_poison_outputs)
{
	prog p = load_prog("examples/csrmm.stir");
	stir_bindings *b = stir_bindings_alloc();
	test_bind_sizes(b, "m=5,n=7,feat=4");
	ck_assert_int_eq(stir_kernel_bind_random(p.k, b, 3), 0);
	ck_assert_int_eq(stir_kernel_prepare_for_gpu(p.k), 0);
	stir_cuda_plan *plan = stir_cuda_plan_alloc(p.k, 0);
	ck_assert_ptr_nonnull(plan);
	stir_bindings *was = stir_bindings_copy(b);
	stir_cuda_plan_poison_outputs(plan, b);
	static const char *const kept[] = { "J.indptr", "J.indices", "A", "B" };
	for (int i = 0; i < 4; i++) {
		const stir_array *x = stir_bindings_get_array(b, kept[i]);
		const stir_array *y = stir_bindings_get_array(was, kept[i]);
		ck_assert_ptr_nonnull(x);
		for (int64_t e = 0; e < stir_array_get_len(x); e++)
			ck_assert(stir_array_get_double(x, e) ==
				stir_array_get_double(y, e));
	}
	const stir_array *c = stir_bindings_get_array(b, "C");
	ck_assert_int_eq(stir_array_get_len(c), 5 * 4);
	for (int64_t e = 0; e < stir_array_get_len(c); e++)
		ck_assert(isnan(stir_array_get_double(c, e)));
	stir_bindings *sizes_only = stir_bindings_alloc();
	test_bind_sizes(sizes_only, "m=5,n=7,feat=4");
	stir_cuda_plan_poison_outputs(plan, sizes_only);
	ck_assert_ptr_null(stir_bindings_get_array(sizes_only, "C"));
	stir_bindings_free(sizes_only);
	stir_bindings_free(was);
	stir_bindings_free(b);
	stir_cuda_plan_free(plan);
	free_prog(&p);
}
END_TEST

START_TEST(test_plan_shapes)
{
	/* three grid and three block indices */
	prog p = load_prog("tests/stages/annotations.stage3.stir");
	stir_cuda_plan *plan = stir_cuda_plan_alloc(p.k, 0);
	ck_assert_ptr_nonnull(plan);
	stir_bindings *b = stir_bindings_alloc();
	size(b, "b", 2);
	size(b, "m", 3);
	size(b, "n", 200);
	expect_dims(plan, 0, b, 4, 3, 2, 32, 2, 1);
	size(b, "m", 70000);
	unsigned g[3], bl[3];
	ck_assert_int_eq(stir_cuda_plan_get_launch_dims(plan, 0, b, g, bl), -1);
	char *d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "3:3: error: launch 'scale_k0' needs 70000 blocks "
		"in y; CUDA allows at most 65535\n");
	free(d);
	stir_bindings_free(b);
	stir_cuda_plan_free(plan);
	free_prog(&p);

	/* a horizontal launch: the nests' grids end to end, the largest
	 * block */
	p = load_prog("tests/cuda/horizontal.stir");
	plan = stir_cuda_plan_alloc(p.k, 0);
	ck_assert_ptr_nonnull(plan);
	b = stir_bindings_alloc();
	size(b, "m", 100);
	size(b, "n", 300);
	expect_dims(plan, 0, b, 2 + 3, 1, 1, 128, 1, 1);
	ck_assert(stir_cuda_plan_launch_is_horizontal(plan, 0));
	ck_assert_int_eq(stir_cuda_plan_n_extents(plan, 0, STIR_BLOCK_X), 2);
	ck_assert_int_eq(stir_cuda_plan_n_extents(plan, 0, STIR_THREAD_X), 2);
	size(b, "m", 0);
	expect_dims(plan, 0, b, 3, 1, 1, 128, 1, 1);
	stir_bindings_free(b);
	stir_cuda_plan_free(plan);
	free_prog(&p);

	/* the largest of several extents bound to one index */
	p = read_prog("kernel k(m: i32, n: i32) stage 3 {\n"
		"  buffer A: f32[m] = A;\n"
		"  buffer B: f32[n] = B;\n"
		"  block root() {\n"
		"    for i in [0, m) bind(threadIdx.x) {\n"
		"      A[i] = 1.0;\n"
		"    }\n"
		"    for j in [0, n * 2) bind(threadIdx.x) {\n"
		"      block c(vj: S = j) {\n"
		"        if (vj < n) {\n"
		"          B[vj] = 2.0;\n"
		"        }\n"
		"      }\n"
		"    }\n"
		"  }\n"
		"}\n");
	plan = stir_cuda_plan_alloc(p.k, 0);
	ck_assert_ptr_nonnull(plan);
	b = stir_bindings_alloc();
	size(b, "m", 100);
	size(b, "n", 30);
	expect_dims(plan, 0, b, 1, 1, 1, 100, 1, 1);
	size(b, "n", 300);
	expect_dims(plan, 0, b, 1, 1, 1, 600, 1, 1);
	/* both loops are guarded: the block is larger than either may be */
	ck_assert_ptr_nonnull(strstr(stir_cuda_plan_get_source(plan),
		"if (i < m) {"));
	ck_assert_ptr_nonnull(strstr(stir_cuda_plan_get_source(plan),
		"if (j < n * 2) {"));
	stir_bindings_free(b);
	stir_cuda_plan_free(plan);
	free_prog(&p);
}
END_TEST

/* ---- the programs of tests/cuda ---------------------------------------------- */

START_TEST(test_programs_match_references)
{
	/* every tests/cuda/NAME.stir: kernel NAME (stage III) on the stage
	 * III interpreter agrees with NAME_ref (stage I) on random data */
	DIR *dir = opendir(test_path("tests/cuda"));
	ck_assert_ptr_nonnull(dir);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".stir"))
			continue;
		char file[512], name[256], ref[300];
		snprintf(file, sizeof(file), "tests/cuda/%s", de->d_name);
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		snprintf(ref, sizeof(ref), "%s_ref", name);
		prog p = load_prog(file);
		stir_kernel *k = stir_module_find_kernel(p.m, name);
		stir_kernel *r = stir_module_find_kernel(p.m, ref);
		ck_assert_msg(k && r, "%s holds kernels %s and %s", file, name, ref);
		ck_assert_int_eq(stir_kernel_get_stage(k), STIR_STAGE_3);
		for (uint64_t seed = 1; seed <= 3; seed++) {
			stir_bindings *b = stir_bindings_alloc();
			if (stir_kernel_bind_random(r, b, seed) < 0)
				stir_ctx_print_diagnostics(p.ctx, stderr);
			ck_assert_int_eq(stir_kernel_bind_random(r, b, seed), 0);
			stir_bindings *want = stir_bindings_copy(b);
			int rc = stir_kernel_interpret(k, b);
			if (rc < 0)
				stir_ctx_print_diagnostics(p.ctx, stderr);
			ck_assert_int_eq(rc, 0);
			ck_assert_int_eq(stir_kernel_interpret(r, want), 0);
			test_compare_tensors(r, b, want, file);
			stir_bindings_free(b);
			stir_bindings_free(want);
		}
		free_prog(&p);
		n++;
	}
	closedir(dir);
	ck_assert_int_ge(n, 10);
}
END_TEST

/* ---- preparing kernels ------------------------------------------------------- */

START_TEST(test_prepare)
{
	/* a stage III kernel with nothing to rewrite is left as it is */
	prog p = load_prog("tests/cuda/spmv_warp.stir");
	char *before = stir_kernel_to_str(p.k);
	ck_assert_int_eq(stir_kernel_prepare_for_gpu(p.k), 0);
	char *after = stir_kernel_to_str(p.k);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	free_prog(&p);
	/* a stage I kernel reaches stage III under the default schedule */
	p = load_prog("examples/csrmm.stir");
	ck_assert_int_eq(stir_kernel_prepare_for_gpu(p.k), 0);
	ck_assert_int_eq(stir_kernel_get_stage(p.k), STIR_STAGE_3);
	char *src = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(strstr(src, "blockIdx.x"));
	free(src);
	free_prog(&p);
	ck_assert_int_eq(stir_kernel_prepare_for_gpu(NULL), -1);
}
END_TEST

/* ---- runs against the fake driver --------------------------------------------- */

/* The fake driver's path in the build tree. */
static const char *fake_path(void)
{
	static char path[4096];
	const char *b = getenv("STIR_BUILDDIR");
	snprintf(path, sizeof(path), "%s/tests/.libs/libfakecuda.so",
		b ? b : ".");
	return path;
}

/* The fake driver's counters (once the runtime has loaded it). */
static fake_cuda_stats *fake(void)
{
	void *h = dlopen(fake_path(), RTLD_NOW | RTLD_NOLOAD);
	ck_assert_ptr_nonnull(h);
	fake_cuda_stats *(*get)(void);
	void *f = dlsym(h, "fake_cuda_stats_get");
	ck_assert_ptr_nonnull(f);
	memcpy(&get, &f, sizeof(f));
	dlclose(h);
	return get();
}

/* ctx: the fake device. */
static stir_device *open_fake(stir_ctx *ctx)
{
	ck_assert_int_eq(access(fake_path(), R_OK), 0);
	setenv("STIR_LIBCUDA", fake_path(), 1);
	unsetenv("FAKE_CUDA_NO_DEVICE");
	unsetenv("FAKE_CUDA_NO_PROC");
	stir_device *dev = stir_device_alloc(ctx, 0);
	if (!dev)
		stir_ctx_print_diagnostics(ctx, stderr);
	ck_assert_ptr_nonnull(dev);
	return dev;
}

/* p: the kernel of p with fake "PTX" in place of NVRTC's. */
static stir_gpu_kernel *fake_kernel(prog *p)
{
	static const char ptx[] = ".version 8.0\n";
	stir_gpu_code *code = stir_gpu_code_alloc(p->ctx, "twostep.ptx",
		"compute_90", ptx, sizeof(ptx) - 1);
	ck_assert_ptr_nonnull(code);
	stir_gpu_kernel *gk = stir_gpu_kernel_alloc(p->k, code);
	ck_assert_ptr_nonnull(gk);
	ck_assert_ptr_eq(stir_gpu_kernel_get_code(gk), code);
	ck_assert_ptr_nonnull(stir_gpu_kernel_get_plan(gk));
	return gk;
}

/* b, n: X = 0.25 i, Y poisoned with NaN. */
static void bind_twostep(stir_bindings *b, int64_t n)
{
	size(b, "n", n);
	stir_array *x = stir_array_alloc(NULL, STIR_F32, 1, &n);
	stir_array *y = stir_array_alloc(NULL, STIR_F32, 1, &n);
	for (int64_t i = 0; i < n; i++)
		stir_array_set_double(x, i, 0.25 * (double)i);
	stir_array_fill(y, NAN);
	ck_assert_int_eq(stir_bindings_set_array(b, "X", x), 0);
	ck_assert_int_eq(stir_bindings_set_array(b, "Y", y), 0);
}

/* dev, n, x, y: device arrays X (= 0.25 i) and Y (NaN) of n floats. */
static void device_twostep(stir_device *dev, int64_t n, stir_gpu_buf **x,
	stir_gpu_buf **y)
{
	float *h = calloc((size_t)n + 1, sizeof(float));
	ck_assert_ptr_nonnull(h);
	*x = stir_gpu_buf_alloc(dev, (size_t)n * sizeof(float));
	*y = stir_gpu_buf_alloc(dev, (size_t)n * sizeof(float));
	ck_assert(*x && *y);
	for (int64_t i = 0; i < n; i++)
		h[i] = 0.25f * (float)i;
	ck_assert_int_eq(stir_gpu_buf_copy_from_host(*x, 0, h,
		(size_t)n * sizeof(float)), 0);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(*y, 0, (size_t)n, 0x7fc00000u),
		0);
	free(h);
}

/* r, ctx, want: binding the arrays e[0..n-1] at n = 100 fails with the
 * diagnostic "want". */
static void bind_refused(stir_gpu_run *r, stir_ctx *ctx, int n,
	const stir_gpu_extern *e, const char *want)
{
	stir_bindings *sizes = stir_bindings_alloc();
	size(sizes, "n", 100);
	ck_assert_int_eq(stir_gpu_run_bind_device(r, sizes, n, e), -1);
	char *d = test_diags_to_str(ctx);
	ck_assert_msg(strstr(d, want), "got: %s", d);
	free(d);
	stir_ctx_clear_diagnostics(ctx);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), -1);
	stir_ctx_clear_diagnostics(ctx);
	stir_bindings_free(sizes);
}

START_TEST(test_fake_bind_device)
{
	/* twostep on device arrays the caller owns, on the caller's stream:
	 * no allocation but the kernel's own buffer T, no copy, the stream
	 * passed to every launch */
	prog p = load_prog("tests/cuda/twostep.stir");
	stir_device *dev = open_fake(p.ctx);
	stir_gpu_kernel *gk = fake_kernel(&p);
	stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
	ck_assert_ptr_nonnull(r);
	stir_gpu_buf *x, *y;
	device_twostep(dev, 100, &x, &y);
	stir_stream *own = stir_stream_alloc(dev);
	ck_assert_ptr_nonnull(own);
	stir_stream *caller = stir_stream_wrap(dev, own->s);
	ck_assert_ptr_nonnull(caller);
	ck_assert_int_eq(stir_gpu_run_set_stream(r, caller), 0);

	stir_gpu_extern e[2] = {
		{ "X", stir_gpu_buf_get_ptr(x), 100 * sizeof(float), STIR_F32 },
		{ "Y", stir_gpu_buf_get_ptr(y), 100 * sizeof(float), STIR_F32 },
	};
	stir_bindings *sizes = stir_bindings_alloc();
	size(sizes, "n", 100);
	int allocs = fake()->live_allocs, copies = fake()->htod_copies;
	int launches = fake()->launches;
	ck_assert_int_eq(stir_gpu_run_bind_device(r, sizes, 2, e), 0);
	ck_assert_int_eq(fake()->live_allocs, allocs + 1);  /* T */
	ck_assert_int_eq(stir_gpu_run_launch(r, STIR_GPU_RUN_ASYNC), 0);
	ck_assert_int_eq(fake()->launches, launches + 2);
	ck_assert_ptr_eq(fake()->last_stream, (void *)own->s);
	ck_assert_int_eq(fake()->htod_copies, copies);
	ck_assert_int_eq(stir_stream_synchronize(caller), 0);
	float h[100];
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(y, 0, h, sizeof(h)), 0);
	for (int i = 0; i < 100; i++)
		ck_assert(h[i] == 0.5f * (float)i + 1);
	/* again: nothing more allocated; synchronous this time */
	ck_assert_int_eq(stir_gpu_run_bind_device(r, sizes, 2, e), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), 0);
	ck_assert_int_eq(fake()->live_allocs, allocs + 1);
	ck_assert_int_eq(fake()->htod_copies, copies);
	/* the results are in the caller's memory, not downloaded */
	stir_bindings *b = stir_bindings_alloc();
	bind_twostep(b, 100);
	ck_assert_int_eq(stir_gpu_run_download(r, b), -1);
	stir_ctx_clear_diagnostics(p.ctx);
	/* a timed run cannot be asynchronous */
	ck_assert_int_eq(stir_gpu_run_launch(r, STIR_GPU_RUN_TIME |
		STIR_GPU_RUN_ASYNC), -1);
	stir_ctx_clear_diagnostics(p.ctx);
	/* back to the run's own stream */
	ck_assert_int_eq(stir_gpu_run_set_stream(r, NULL), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), 0);
	ck_assert_ptr_ne(fake()->last_stream, (void *)own->s);

	/* refusals: each leaves the run unable to launch */
	stir_gpu_extern bad[2];
	memcpy(bad, e, sizeof(e));
	bad[1].bytes = 99 * sizeof(float);
	bind_refused(r, p.ctx, 2, bad, "device array 'Y' has 396 bytes; 100 "
		"elements of f32 (400 bytes) are needed");
	memcpy(bad, e, sizeof(e));
	bad[0].dtype = STIR_F64;
	bind_refused(r, p.ctx, 2, bad, "device array 'X' holds f64; the kernel "
		"takes f32");
	memcpy(bad, e, sizeof(e));
	bad[1].ptr += 2;  /* (the checks come before any access) */
	bind_refused(r, p.ctx, 2, bad, "is not aligned to 4 bytes");
	memcpy(bad, e, sizeof(e));
	bad[0].ptr = 0;
	bind_refused(r, p.ctx, 2, bad, "device array 'X' has address 0");
	bind_refused(r, p.ctx, 1, e, "device array 'Y' of kernel 'twostep' is "
		"not given");
	memcpy(bad, e, sizeof(e));
	bad[1].name = "X";
	bind_refused(r, p.ctx, 2, bad, "device array 'X' given twice");
	memcpy(bad, e, sizeof(e));
	bad[1].name = "T";
	bind_refused(r, p.ctx, 2, bad, "kernel 'twostep' takes no array 'T'");
	/* a size missing */
	stir_bindings *none = stir_bindings_alloc();
	ck_assert_int_eq(stir_gpu_run_bind_device(r, none, 2, e), -1);
	ck_assert_int_ge(stir_ctx_n_errors(p.ctx), 1);
	stir_ctx_clear_diagnostics(p.ctx);
	stir_bindings_free(none);
	/* an upload after a binding works as before */
	ck_assert_int_eq(stir_gpu_run_upload(r, b), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), 0);
	ck_assert_int_eq(stir_gpu_run_download(r, b), 0);
	ck_assert(stir_array_get_double(stir_bindings_get_array(b, "Y"), 99) ==
		0.5 * 99 + 1);

	stir_bindings_free(b);
	stir_bindings_free(sizes);
	stir_gpu_run_free(r);
	stir_stream_free(caller);
	stir_stream_free(own);
	stir_gpu_buf_free(x);
	stir_gpu_buf_free(y);
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	free_prog(&p);
}
END_TEST

/* r, ctx, e, want: rebinding the array e fails with the diagnostic
 * "want". */
static void rebind_refused(stir_gpu_run *r, stir_ctx *ctx,
	const stir_gpu_extern *e, const char *want)
{
	ck_assert_int_eq(stir_gpu_run_rebind_device(r, 1, e), -1);
	char *d = test_diags_to_str(ctx);
	ck_assert_msg(strstr(d, want), "got: %s", d);
	free(d);
	stir_ctx_clear_diagnostics(ctx);
}

START_TEST(test_fake_rebind_device)
{
	/* twostep bound to the caller's X and Y, then Y rebound to a second
	 * buffer: the next launch writes there, the first Y keeps its
	 * result; refusals leave the binding as it was */
	prog p = load_prog("tests/cuda/twostep.stir");
	stir_device *dev = open_fake(p.ctx);
	stir_gpu_kernel *gk = fake_kernel(&p);
	stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
	ck_assert_ptr_nonnull(r);
	stir_gpu_buf *x, *y, *y2;
	device_twostep(dev, 100, &x, &y);
	y2 = stir_gpu_buf_alloc(dev, 100 * sizeof(float));
	ck_assert_ptr_nonnull(y2);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(y2, 0, 100, 0x7fc00000u), 0);
	stir_gpu_extern e[2] = {
		{ "X", stir_gpu_buf_get_ptr(x), 100 * sizeof(float), STIR_F32 },
		{ "Y", stir_gpu_buf_get_ptr(y), 100 * sizeof(float), STIR_F32 },
	};
	stir_gpu_extern e2 = { "Y", stir_gpu_buf_get_ptr(y2),
		100 * sizeof(float), STIR_F32 };
	/* nothing bound yet */
	rebind_refused(r, p.ctx, &e2, "no device arrays bound to rebind");
	stir_bindings *sizes = stir_bindings_alloc();
	size(sizes, "n", 100);
	ck_assert_int_eq(stir_gpu_run_bind_device(r, sizes, 2, e), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), 0);
	int allocs = fake()->live_allocs, copies = fake()->htod_copies;
	int launches = fake()->launches;
	ck_assert_int_eq(stir_gpu_buf_fill_u32(y, 0, 100, 0), 0);
	ck_assert_int_eq(stir_gpu_run_rebind_device(r, 1, &e2), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), 0);
	ck_assert_int_eq(fake()->launches, launches + 2);
	ck_assert_int_eq(fake()->live_allocs, allocs);
	ck_assert_int_eq(fake()->htod_copies, copies);
	float h[100], h2[100];
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(y, 0, h, sizeof(h)), 0);
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(y2, 0, h2, sizeof(h2)), 0);
	for (int i = 0; i < 100; i++)
		ck_assert(h2[i] == 0.5f * (float)i + 1 && h[i] == 0);
	/* refusals: the binding stays (the launch still writes y2) */
	stir_gpu_extern bad = e2;
	bad.bytes = 99 * sizeof(float);
	rebind_refused(r, p.ctx, &bad, "device array 'Y' has 396 bytes; 400 "
		"are needed");
	bad = e2;
	bad.dtype = STIR_F64;
	rebind_refused(r, p.ctx, &bad, "device array 'Y' holds f64");
	bad = e2;
	bad.ptr += 2;
	rebind_refused(r, p.ctx, &bad, "is not aligned to 4 bytes");
	bad = e2;
	bad.ptr = 0;
	rebind_refused(r, p.ctx, &bad, "device array 'Y' has address 0");
	bad = e2;
	bad.name = "T";   /* the kernel's own buffer */
	rebind_refused(r, p.ctx, &bad, "has no device array 'T' bound");
	stir_gpu_extern two[2] = { e2, e2 };
	two[1].name = "Q";
	ck_assert_int_eq(stir_gpu_run_rebind_device(r, 2, two), -1);
	stir_ctx_clear_diagnostics(p.ctx);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(y2, 0, 100, 0), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), 0);
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(y2, 0, h2, sizeof(h2)), 0);
	ck_assert(h2[99] == 0.5f * 99 + 1);
	/* rebinding again at once, both arrays */
	ck_assert_int_eq(stir_gpu_run_rebind_device(r, 2, e), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), 0);
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(y, 0, h, sizeof(h)), 0);
	ck_assert(h[99] == 0.5f * 99 + 1);
	/* rebind and launch in one call: writes y2 again; a refused rebind
	 * launches nothing */
	ck_assert_int_eq(stir_gpu_buf_fill_u32(y2, 0, 100, 0), 0);
	launches = fake()->launches;
	ck_assert_int_eq(stir_gpu_run_rebind_launch(r, 1, &e2, 0), 0);
	ck_assert_int_eq(fake()->launches, launches + 2);
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(y2, 0, h2, sizeof(h2)), 0);
	ck_assert(h2[99] == 0.5f * 99 + 1 && h2[0] == 1);
	bad = e2;
	bad.bytes = 4;
	ck_assert_int_eq(stir_gpu_run_rebind_launch(r, 1, &bad, 0), -1);
	ck_assert_int_eq(fake()->launches, launches + 2);
	stir_ctx_clear_diagnostics(p.ctx);
	ck_assert_int_eq(stir_gpu_run_rebind_launch(NULL, 0, NULL, 0), -1);
	/* relaunch: the refused rebind above left nothing to relaunch with;
	 * after a rebind, an address written into its array is the next
	 * launch's, checked as the rebind checks it */
	ck_assert_int_eq(stir_gpu_run_relaunch(r, 0), -1);
	char *d = test_diags_to_str(p.ctx);
	ck_assert_msg(strstr(d, "no arrays to relaunch with"), "got: %s", d);
	free(d);
	stir_ctx_clear_diagnostics(p.ctx);
	stir_gpu_extern re = e2;
	ck_assert_int_eq(stir_gpu_run_rebind_device(r, 1, &re), 0);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(y, 0, 100, 0), 0);
	re.ptr = stir_gpu_buf_get_ptr(y);
	launches = fake()->launches;
	ck_assert_int_eq(stir_gpu_run_relaunch(r, 0), 0);
	ck_assert_int_eq(fake()->launches, launches + 2);
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(y, 0, h, sizeof(h)), 0);
	ck_assert(h[99] == 0.5f * 99 + 1 && h[0] == 1);
	re.ptr += 2;
	ck_assert_int_eq(stir_gpu_run_relaunch(r, 0), -1);
	ck_assert_int_eq(fake()->launches, launches + 2);
	d = test_diags_to_str(p.ctx);
	ck_assert_msg(strstr(d, "is not aligned to 4 bytes"), "got: %s", d);
	free(d);
	stir_ctx_clear_diagnostics(p.ctx);
	/* a refused relaunch forgets the array until the next rebind */
	re.ptr -= 2;
	ck_assert_int_eq(stir_gpu_run_relaunch(r, 0), -1);
	stir_ctx_clear_diagnostics(p.ctx);
	ck_assert_int_eq(stir_gpu_run_relaunch(NULL, 0), -1);
	ck_assert_int_eq(stir_gpu_run_rebind_device(r, 2, e), 0);
	/* after an upload, the run holds no caller's arrays */
	stir_bindings *b = stir_bindings_alloc();
	bind_twostep(b, 100);
	ck_assert_int_eq(stir_gpu_run_upload(r, b), 0);
	rebind_refused(r, p.ctx, &e2, "no device arrays bound to rebind");
	ck_assert_int_eq(stir_gpu_run_relaunch(r, 0), -1);
	stir_ctx_clear_diagnostics(p.ctx);
	ck_assert_int_eq(stir_gpu_run_rebind_device(NULL, 0, NULL), -1);

	stir_bindings_free(b);
	stir_bindings_free(sizes);
	stir_gpu_run_free(r);
	stir_gpu_buf_free(x);
	stir_gpu_buf_free(y);
	stir_gpu_buf_free(y2);
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	free_prog(&p);
}
END_TEST

/* ctx: make "ctx" (the primary context or NULL) current in the fake as the
 * CUDA runtime does on a PyTorch thread (cuCtxSetCurrent). */
static void fake_set_current(void *ctx)
{
	void *h = dlopen(fake_path(), RTLD_NOW | RTLD_NOLOAD);
	ck_assert_ptr_nonnull(h);
	int (*set)(void *);
	void *f = dlsym(h, "cuCtxSetCurrent");
	ck_assert_ptr_nonnull(f);
	memcpy(&set, &f, sizeof(f));
	dlclose(h);
	ck_assert_int_eq(set(ctx), 0);
}

/* The fake's current context of the thread (cuCtxGetCurrent). */
static void *fake_current(void)
{
	void *h = dlopen(fake_path(), RTLD_NOW | RTLD_NOLOAD);
	ck_assert_ptr_nonnull(h);
	int (*get)(void **);
	void *f = dlsym(h, "cuCtxGetCurrent"), *cur = NULL;
	ck_assert_ptr_nonnull(f);
	memcpy(&get, &f, sizeof(f));
	dlclose(h);
	ck_assert_int_eq(get(&cur), 0);
	return cur;
}

START_TEST(test_fake_hot_context)
{
	/* a launch pushes the primary context only when it is not current
	 * already: on a thread that has it current (PyTorch's), the rebind
	 * and launch (with the memset of the kernel's own buffer T) push
	 * nothing and still write the result; on one that has none, the
	 * memset and each launch push and pop, and the thread is left as it
	 * was */
	prog p = load_prog("tests/cuda/twostep.stir");
	stir_device *dev = open_fake(p.ctx);
	stir_gpu_kernel *gk = fake_kernel(&p);
	stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
	ck_assert_ptr_nonnull(r);
	stir_gpu_buf *x, *y;
	device_twostep(dev, 100, &x, &y);
	stir_gpu_extern e[2] = {
		{ "X", stir_gpu_buf_get_ptr(x), 100 * sizeof(float), STIR_F32 },
		{ "Y", stir_gpu_buf_get_ptr(y), 100 * sizeof(float), STIR_F32 },
	};
	stir_bindings *sizes = stir_bindings_alloc();
	size(sizes, "n", 100);
	ck_assert_int_eq(stir_gpu_run_bind_device(r, sizes, 2, e), 0);
	float h[100];

	fake_set_current(dev->pctx);
	int pushes = fake()->ctx_pushes, launches = fake()->launches;
	ck_assert_int_eq(stir_gpu_run_rebind_launch(r, 2, e,
		STIR_GPU_RUN_ASYNC), 0);
	ck_assert_int_eq(fake()->launches, launches + 2);
	ck_assert_int_eq(fake()->ctx_pushes, pushes);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	ck_assert_ptr_eq(fake_current(), dev->pctx);
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(y, 0, h, sizeof(h)), 0);
	ck_assert(h[99] == 0.5f * 99 + 1 && h[0] == 1);
	/* other calls still push (and pop) as before */
	ck_assert_int_gt(fake()->ctx_pushes, pushes);
	ck_assert_int_eq(fake()->ctx_depth, 0);

	fake_set_current(NULL);
	ck_assert_int_eq(stir_gpu_buf_fill_u32(y, 0, 100, 0), 0);
	pushes = fake()->ctx_pushes;
	ck_assert_int_eq(stir_gpu_run_rebind_launch(r, 2, e,
		STIR_GPU_RUN_ASYNC), 0);
	ck_assert_int_eq(fake()->launches, launches + 4);
	ck_assert_int_eq(fake()->ctx_pushes, pushes + 3);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	ck_assert_ptr_null(fake_current());
	ck_assert_int_eq(stir_gpu_buf_copy_to_host(y, 0, h, sizeof(h)), 0);
	ck_assert(h[99] == 0.5f * 99 + 1 && h[0] == 1);


	stir_bindings_free(sizes);
	stir_gpu_run_free(r);
	stir_gpu_buf_free(x);
	stir_gpu_buf_free(y);
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	free_prog(&p);
}
END_TEST

START_TEST(test_fake_overlap)
{
	/* twostep with overlapping launches: the second launched through
	 * cuLaunchKernelEx allowing the overlap (the fake's device is
	 * sm_90); its CUDA waits for the first (griddepcontrol); the run is
	 * timed as a whole, by two events (one tick of the fake clock) */
	prog p = load_prog("tests/cuda/twostep.stir");
	ck_assert_int_eq(stir_kernel_set_overlap_launches(p.k, true), 0);
	ck_assert(stir_kernel_get_overlap_launches(p.k));
	/* the schedule log says so (a file that makes the same kernel) */
	char *log = stir_kernel_schedule_to_str(p.k, NULL);
	ck_assert_ptr_nonnull(log);
	ck_assert_ptr_nonnull(strstr(log, "\noverlap_launches: true\n"));
	free(log);
	stir_device *dev = open_fake(p.ctx);
	stir_gpu_kernel *gk = fake_kernel(&p);
	const char *src = stir_cuda_plan_get_source(stir_gpu_kernel_get_plan(gk));
	ck_assert_ptr_nonnull(strstr(src, "{\n#if __CUDA_ARCH__ >= 900\n"
		"  asm volatile(\"griddepcontrol.launch_dependents;\");\n#endif\n"));
	ck_assert_ptr_nonnull(strstr(src, "{\n#if __CUDA_ARCH__ >= 900\n"
		"  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n#endif\n"));
	stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
	ck_assert_ptr_nonnull(r);
	int launches = fake()->launches, overlaps = fake()->overlap_launches;
	stir_bindings *b = stir_bindings_alloc();
	bind_twostep(b, 100);
	ck_assert_int_eq(stir_gpu_run_upload(r, b), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, STIR_GPU_RUN_TIME), 0);
	ck_assert_int_eq(fake()->launches, launches + 2);
	ck_assert_int_eq(fake()->overlap_launches, overlaps + 1);
	ck_assert(stir_gpu_run_get_ms(r) == 0.5);
	ck_assert(stir_gpu_run_get_launch_ms(r, 0) < 0);
	ck_assert(stir_gpu_run_get_launch_ms(r, 1) < 0);
	ck_assert_int_eq(stir_gpu_run_download(r, b), 0);
	stir_array *y = stir_bindings_get_array(b, "Y");
	for (int i = 0; i < 100; i++)
		ck_assert(stir_array_get_double(y, i) == 0.5 * i + 1);
	/* without the flag: ordinary launches */
	stir_bindings_free(b);
	stir_gpu_run_free(r);
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	ck_assert_int_eq(stir_kernel_set_overlap_launches(p.k, false), 0);
	stir_cuda_plan *plain = stir_cuda_plan_alloc(p.k, 0);
	ck_assert_ptr_nonnull(plain);
	ck_assert_ptr_null(strstr(stir_cuda_plan_get_source(plain), "griddep"));
	stir_cuda_plan_free(plain);
	free_prog(&p);
}
END_TEST

START_TEST(test_fake_run)
{
	/* two launches through a buffer the kernel owns: T = 2 X, Y = T + 1
	 * (the fake driver knows these two functions) */
	prog p = load_prog("tests/cuda/twostep.stir");
	stir_device *dev = open_fake(p.ctx);
	stir_gpu_kernel *gk = fake_kernel(&p);
	stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
	ck_assert_ptr_nonnull(r);
	int launches = fake()->launches, flushes = fake()->memset32_async;

	/* nothing uploaded yet */
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), -1);
	char *d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "0:0: error: kernel 'twostep' cannot run: its "
		"arrays were not uploaded\n");
	free(d);
	stir_ctx_clear_diagnostics(p.ctx);

	stir_bindings *b = stir_bindings_alloc();
	bind_twostep(b, 100);
	ck_assert_int_eq(stir_gpu_run_upload(r, b), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), 0);
	ck_assert(stir_gpu_run_get_ms(r) < 0);
	ck_assert_int_eq(fake()->launches, launches + 2);
	ck_assert_uint_eq(fake()->last_grid[0], 2);
	ck_assert_uint_eq(fake()->last_block[0], 64);
	ck_assert_uint_eq(fake()->last_block[1], 1);
	ck_assert_int_eq(stir_gpu_run_download(r, b), 0);
	stir_array *y = stir_bindings_get_array(b, "Y");
	for (int i = 0; i < 100; i++)
		ck_assert(stir_array_get_double(y, i) == 0.5 * i + 1);

	/* timed: each launch between two events, half a millisecond per
	 * tick of the fake clock; the run spans all four events, the gap
	 * between the launches included; the owned buffer is zeroed again
	 * (the fake checks) */
	ck_assert_int_eq(stir_gpu_run_launch(r, STIR_GPU_RUN_TIME), 0);
	ck_assert(stir_gpu_run_get_ms(r) == 1.5);
	ck_assert(stir_gpu_run_get_launch_ms(r, 0) == 0.5);
	ck_assert(stir_gpu_run_get_launch_ms(r, 1) == 0.5);
	ck_assert(stir_gpu_run_get_launch_ms(r, 2) < 0);
	ck_assert_int_eq(fake()->memset32_async, flushes);
	/* the L2 flushed once, before the run */
	ck_assert_int_eq(stir_gpu_run_launch(r, STIR_GPU_RUN_FLUSH_L2), 0);
	ck_assert_int_eq(fake()->memset32_async, flushes + 1);
	ck_assert(stir_gpu_run_get_ms(r) == 1.5);
	/* as a benchmark times it: 2 warm-ups (no flush), then 3 runs each
	 * after a flush; the fake clock makes every run 1.5 ms */
	stir_gpu_timing t;
	ck_assert_int_eq(stir_gpu_run_time(r, 2, 3, &t), 0);
	ck_assert_int_eq(fake()->memset32_async, flushes + 4);
	ck_assert(t.median_ms == 1.5 && t.min_ms == 1.5 && t.max_ms == 1.5);
	ck_assert(t.warmups == 2 && t.reps == 3);
	ck_assert_int_eq(stir_gpu_run_time(r, 0, 0, &t), -1);
	d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "0:0: error: cannot time kernel 'twostep': 0 "
		"warm-up runs and 0 timed runs (at least 0 and 1)\n");
	free(d);
	stir_ctx_clear_diagnostics(p.ctx);

	/* other data, other sizes */
	stir_bindings *b2 = stir_bindings_alloc();
	bind_twostep(b2, 300);
	ck_assert_int_eq(stir_gpu_run_upload(r, b2), 0);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), 0);
	ck_assert_uint_eq(fake()->last_grid[0], 5);
	ck_assert_int_eq(stir_gpu_run_download(r, b2), 0);
	ck_assert(stir_array_get_double(stir_bindings_get_array(b2, "Y"), 299) ==
		0.5 * 299 + 1);
	/* downloading into arrays of the wrong size */
	ck_assert_int_eq(stir_gpu_run_download(r, b), -1);
	d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "0:0: error: cannot download 'Y': the bindings have "
		"no array of the uploaded size\n");
	free(d);
	stir_ctx_clear_diagnostics(p.ctx);
	/* bad bindings are refused before anything is copied */
	stir_bindings *bad = stir_bindings_alloc();
	bind_twostep(bad, 10);
	size(bad, "n", 11);
	ck_assert_int_eq(stir_gpu_run_upload(r, bad), -1);
	ck_assert_int_eq(stir_gpu_run_launch(r, 0), -1);
	stir_ctx_clear_diagnostics(p.ctx);
	stir_bindings_free(bad);
	stir_bindings_free(b2);

	/* the one-call form */
	stir_bindings *b3 = stir_bindings_alloc();
	bind_twostep(b3, 64);
	double ms = 0;
	ck_assert_int_eq(stir_gpu_kernel_run(gk, dev, b3, STIR_GPU_RUN_TIME, &ms),
		0);
	ck_assert(ms == 1.5);
	ck_assert(stir_array_get_double(stir_bindings_get_array(b3, "Y"), 63) ==
		0.5 * 63 + 1);
	stir_bindings_free(b3);

	/* sizes that leave both launches empty: nothing is launched (the
	 * grid would be (n + 63) / 64 = 0 blocks), and the time is 0 */
	stir_bindings *b0 = stir_bindings_alloc();
	bind_twostep(b0, 0);
	launches = fake()->launches;
	ms = -1;
	ck_assert_int_eq(stir_gpu_kernel_run(gk, dev, b0, STIR_GPU_RUN_TIME, &ms),
		0);
	ck_assert_int_eq(fake()->launches, launches);
	ck_assert(ms == 0);
	stir_bindings_free(b0);

	stir_bindings_free(b);
	stir_gpu_run_free(r);
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	/* everything given back */
	ck_assert_int_eq(fake()->live_allocs, 0);
	ck_assert_int_eq(fake()->live_modules, 0);
	ck_assert_int_eq(fake()->live_streams, 0);
	ck_assert_int_eq(fake()->live_events, 0);
	ck_assert_int_eq(fake()->ctx_depth, 0);
	free_prog(&p);
}
END_TEST

START_TEST(test_fake_errors)
{
	/* a buffer larger than its 32-bit indices can address */
	prog p = read_prog("kernel twostep(n: i32) stage 3 {\n"
		"  buffer X_data: f32[n] = X;\n"
		"  buffer T: f32[i64(n) * 100000];\n"
		"  buffer Y_data: f32[n] = Y;\n"
		"  for i in [0, n) bind(blockIdx.x) {\n"
		"    T[i * 100000] = X_data[i];\n"
		"  }\n"
		"  for i in [0, n) bind(blockIdx.x) {\n"
		"    Y_data[i] = T[i * 100000];\n"
		"  }\n"
		"}\n");
	stir_ctx *dctx = stir_ctx_alloc(); /* the device's, outliving p */
	stir_device *dev = open_fake(dctx);
	stir_gpu_kernel *gk = fake_kernel(&p);
	stir_gpu_run *r = stir_gpu_run_alloc(gk, dev);
	ck_assert_ptr_nonnull(r);
	stir_bindings *b = stir_bindings_alloc();
	bind_twostep(b, 30000);
	ck_assert_int_eq(stir_gpu_run_upload(r, b), -1);
	char *d = test_diags_to_str(dctx);
	ck_assert_str_eq(d, "3:10: error: buffer 'T' has 3000000000 elements; "
		"32-bit indices cannot address it\n");
	free(d);
	ck_assert_int_eq(fake()->live_allocs, 0);
	stir_bindings_free(b);
	stir_gpu_run_free(r);
	stir_gpu_kernel_free(gk);
	/* the same extent in i32 (its offsets would wrap): refused by the
	 * binding check, before anything is allocated on the device */
	free_prog(&p);
	p = read_prog("kernel twostep(n: i32) stage 3 {\n"
		"  buffer X_data: f32[n] = X;\n"
		"  buffer T: f32[n * 100000];\n"
		"  buffer Y_data: f32[n] = Y;\n"
		"  for i in [0, n) bind(blockIdx.x) {\n"
		"    T[i * 100000] = X_data[i];\n"
		"  }\n"
		"  for i in [0, n) bind(blockIdx.x) {\n"
		"    Y_data[i] = T[i * 100000];\n"
		"  }\n"
		"}\n");
	gk = fake_kernel(&p);
	r = stir_gpu_run_alloc(gk, dev);
	ck_assert_ptr_nonnull(r);
	b = stir_bindings_alloc();
	bind_twostep(b, 30000);
	ck_assert_int_eq(stir_gpu_run_upload(r, b), -1);
	d = test_diags_to_str(p.ctx);
	ck_assert_str_eq(d, "3:19: error: size expression 'n * 100000' of T is "
		"3000000000, which does not fit in its type i32 (declare the "
		"sizes it uses i64)\n");
	free(d);
	ck_assert_int_eq(fake()->live_allocs, 0);
	stir_bindings_free(b);
	stir_gpu_run_free(r);
	stir_gpu_kernel_free(gk);
	/* a kernel whose functions the module does not hold */
	free_prog(&p);
	p = load_prog("tests/cuda/spmv_warp.stir");
	gk = fake_kernel(&p);
	stir_ctx_clear_diagnostics(dctx);
	ck_assert_ptr_null(stir_gpu_run_alloc(gk, dev));
	d = test_diags_to_str(dctx);
	ck_assert_ptr_nonnull(strstr(d, "spmv_warp_k0"));
	free(d);
	stir_gpu_kernel_free(gk);
	stir_device_free(dev);
	ck_assert_int_eq(fake()->live_modules, 0);
	ck_assert_int_eq(fake()->live_allocs, 0);
	free_prog(&p);
	stir_ctx_free(dctx);
}
END_TEST

START_TEST(test_compile)
{
	/* NVRTC, when stir has it: a second compilation of the same kernel
	 * comes from the cache */
	prog p = load_placed("tests/cuda/tiled_mv.stir");
	char dir[] = "/tmp/stir-test-cuda-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	stir_compile_options o = { .arch = "sm_90", .cache_dir = dir };
	long before = stir_nvrtc_n_invocations();
	stir_gpu_kernel *a = stir_gpu_kernel_compile(p.k, &o);
	if (!stir_nvrtc_is_available()) {
		ck_assert_ptr_null(a);
	} else {
		if (!a)
			stir_ctx_print_diagnostics(p.ctx, stderr);
		ck_assert_ptr_nonnull(a);
		stir_gpu_kernel *again = stir_gpu_kernel_compile(p.k, &o);
		ck_assert_ptr_nonnull(again);
		ck_assert(stir_gpu_code_is_from_cache(
			stir_gpu_kernel_get_code(again)));
		ck_assert_int_eq(stir_nvrtc_n_invocations(), before + 1);
		ck_assert_str_eq(stir_gpu_code_get_arch(
			stir_gpu_kernel_get_code(a)), "sm_90");
		stir_gpu_kernel_free(again);
	}
	stir_gpu_kernel_free(a);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	free_prog(&p);
}
END_TEST

START_TEST(test_compile_all)
{
	/* several kernels on a pool of threads: each result as one compiled
	 * alone (the same code, from the cache), each error in its own
	 * kernel's context, in order; a NULL kernel and a planning error give
	 * NULL without stopping the others */
	static const char *files[] = { "tests/cuda/tiled_mv.stir",
		"tests/cuda/twostep.stir", "tests/cuda/spmv_warp.stir",
		"tests/cuda/csrmm_rows.stir", "tests/cuda/tiled_mv.stir",
		"tests/cuda/spmv_rows16.stir" };
	enum { N = 7 };
	prog p[N - 1];
	const stir_kernel *ks[N];
	stir_compile_options o[N];
	char dir[] = "/tmp/stir-test-cuda-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	static const char *bogus[] = { "--no-such-nvrtc-option" };
	for (int i = 0; i < N; i++) {
		o[i] = (stir_compile_options){ .arch = "sm_90", .cache_dir = dir };
		ks[i] = NULL;
		if (i < N - 1) {
			p[i] = load_placed(files[i]);
			ks[i] = p[i].k;
		}
	}
	o[4].min_blocks_per_sm = 33;        /* refused before NVRTC */
	o[5].n_extra = 1;                   /* refused by NVRTC */
	o[5].extra = bogus;
	stir_gpu_kernel *gks[N];
	long before = stir_nvrtc_n_invocations();
	int failed = stir_gpu_kernel_compile_all(N, ks, o, 3, gks);
	ck_assert_ptr_null(gks[4]);
	ck_assert_ptr_null(gks[6]);
	ck_assert_int_eq(stir_ctx_n_errors(p[4].ctx), 1);
	ck_assert_ptr_nonnull(strstr(stir_diag_get_message(
		stir_ctx_get_diagnostic(p[4].ctx, 0)),
		"min_blocks_per_sm must be 0 to 32, not 33"));
	if (!stir_nvrtc_is_available()) {
		ck_assert_int_eq(failed, N - 1);
	} else {
		ck_assert_int_eq(failed, 2);
		ck_assert_ptr_null(gks[5]);
		ck_assert_int_ge(stir_ctx_n_errors(p[5].ctx), 1);
		ck_assert_int_eq(stir_nvrtc_n_invocations(), before + 5);
		for (int i = 0; i < 4; i++) {
			if (stir_ctx_n_errors(p[i].ctx))
				stir_ctx_print_diagnostics(p[i].ctx, stderr);
			ck_assert_int_eq(stir_ctx_n_errors(p[i].ctx), 0);
			ck_assert_ptr_nonnull(gks[i]);
			const stir_gpu_code *c = stir_gpu_kernel_get_code(gks[i]);
			ck_assert(!stir_gpu_code_is_from_cache(c));
			stir_gpu_kernel *again = stir_gpu_kernel_compile(ks[i], &o[i]);
			ck_assert_ptr_nonnull(again);
			const stir_gpu_code *c2 = stir_gpu_kernel_get_code(again);
			ck_assert(stir_gpu_code_is_from_cache(c2));
			ck_assert_uint_eq(stir_gpu_code_get_size(c),
				stir_gpu_code_get_size(c2));
			ck_assert(!memcmp(stir_gpu_code_get_data(c),
				stir_gpu_code_get_data(c2), stir_gpu_code_get_size(c)));
			stir_gpu_kernel_free(again);
		}
	}
	ck_assert_int_eq(stir_gpu_kernel_compile_all(-1, ks, o, 1, gks), -1);
	ck_assert_int_eq(stir_gpu_kernel_compile_all(0, NULL, NULL, 0, NULL), 0);
	for (int i = 0; i < N; i++)
		stir_gpu_kernel_free(gks[i]);
	for (int i = 0; i < N - 1; i++)
		free_prog(&p[i]);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_min_blocks)
{
	/* min_blocks_per_sm: __launch_bounds__(threads, N) in every launch
	 * with a literal block size; out of range, an error before NVRTC */
	prog p = load_placed("tests/cuda/tiled_mv.stir");
	char *plain = stir_kernel_to_cuda(p.k);
	ck_assert_ptr_nonnull(plain);
	ck_assert_ptr_nonnull(strstr(plain, "__launch_bounds__("));
	ck_assert_ptr_null(strstr(plain, ", 2) "));
	char dir[] = "/tmp/stir-test-cuda-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	stir_compile_options o = { .arch = "sm_90", .cache_dir = dir,
		.min_blocks_per_sm = 33 };
	ck_assert_ptr_null(stir_gpu_kernel_compile(p.k, &o));
	ck_assert_ptr_nonnull(strstr(stir_diag_get_message(
		stir_ctx_get_diagnostic(p.ctx, stir_ctx_n_diagnostics(p.ctx) - 1)),
		"min_blocks_per_sm must be 0 to 32, not 33"));
	o.min_blocks_per_sm = 2;
	stir_gpu_kernel *gk = stir_gpu_kernel_compile(p.k, &o);
	if (stir_nvrtc_is_available()) {
		ck_assert_ptr_nonnull(gk);
		const char *src = stir_cuda_plan_get_source(
			stir_gpu_kernel_get_plan(gk));
		const char *lb = strstr(plain, "__launch_bounds__(");
		size_t n = (size_t)(strchr(lb, ')') - lb);
		char want[64];
		snprintf(want, sizeof(want), "%.*s, 2) ", (int)n, lb);
		ck_assert_ptr_nonnull(strstr(src, want));
	}
	stir_gpu_kernel_free(gk);
	free(plain);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	free_prog(&p);
}
END_TEST

/* The suite: the emitter, the plan, runs. */
static Suite *cuda_suite(void)
{
	Suite *s = suite_create("cuda");
	TCase *tc = tcase_create("emitter");
	tcase_add_loop_test(tc, test_refusal, 0,
		(int)(sizeof(refusals) / sizeof(refusals[0])));
	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_barriers_placed);
	tcase_add_test(tc, test_barrier_missing);
	tcase_add_test(tc, test_aligned_buffers);
	tcase_add_test(tc, test_vector_plan);
	tcase_add_test(tc, test_vector_plans_match_emitter);
	tcase_add_test(tc, test_emitter_reads_plans);
	tcase_add_test(tc, test_lifted_guards);
	tcase_add_test(tc, test_programs_match_references);
	tcase_add_test(tc, test_prepare);
	suite_add_tcase(s, tc);
	tc = tcase_create("plan");
	tcase_add_test(tc, test_plan_csrmm);
	tcase_add_test(tc, test_plan_poison_outputs);
	tcase_add_test(tc, test_plan_shapes);
	tcase_add_test(tc, test_plan_refusal_located);
	suite_add_tcase(s, tc);
	tc = tcase_create("run");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_fake_run);
	tcase_add_test(tc, test_fake_overlap);
	tcase_add_test(tc, test_fake_bind_device);
	tcase_add_test(tc, test_fake_rebind_device);
	tcase_add_test(tc, test_fake_hot_context);
	tcase_add_test(tc, test_fake_errors);
	tcase_add_test(tc, test_compile);
	tcase_add_test(tc, test_min_blocks);
	tcase_add_test(tc, test_compile_all);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int main(void)
{
	return test_run_suite(cuda_suite());
}
