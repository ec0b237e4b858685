/* A host emulation of the CUDA that stir's emitter generates, so that the
 * generated kernels run, for testing, on a machine without a GPU
 * (tests/test_cuda_emu.c).  It is force-included (g++ -include) before the
 * generated source, which is compiled as C++17 into a shared object that
 * the fake driver (tests/fake_cuda.c) loads as a module.
 *
 * A launch runs its thread blocks one after another.  The threads of a
 * block are coroutines (ucontext), run one at a time from one barrier to
 * the next: each runs alone until it reaches __syncthreads() (or a warp
 * shuffle's exchange), in increasing order of thread index, or decreasing
 * when $STIR_EMU_REVERSE is set.  A missing barrier therefore shows
 * deterministically: a thread reads before the threads after it (or before
 * it) have written.  A barrier that some thread of the block (of the warp)
 * does not reach, or reaches after it has finished, fails the launch, as
 * it would hang a GPU.  Only what the emitter uses is provided.  16-bit
 * floats round to nearest even exactly as the interpreter does. */
#ifndef STIR_TESTS_CUDA_EMU_H
#define STIR_TESTS_CUDA_EMU_H

#include <ucontext.h>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(n)
#define __align__(n) __attribute__((aligned(n)))

struct stir_emu_dim3 {
	unsigned x, y, z;
};

/* The launch's shape (the indices of the running thread are below). */
inline stir_emu_dim3 blockDim, gridDim;

/* ---- synchronization ---- */

/* A cp.async copy of a pipelined loop, in flight until a wait_group
 * completes its group (stir_emu_cp_async). */
struct stir_emu_copy {
	void *dst;
	unsigned char data[16];    /* the source, read when issued */
	unsigned n;                /* bytes */
	long group;                /* its commit group, -1 before the commit */
};

/* A CUDA thread: a coroutine. */
struct stir_emu_thread {
	std::vector<stir_emu_copy> copies; /* its cp.async copies in flight */
	long groups;               /* commit groups it has made */
	ucontext_t uc;
	char *stack;
	stir_emu_dim3 tid, bid;
	unsigned lid;              /* linear index in the block */
	int state;                 /* see below */
	unsigned mask;             /* at a shuffle: the lanes it names */
};
enum { STIR_EMU_RUN, STIR_EMU_BLOCK, STIR_EMU_WARP, STIR_EMU_DONE };

inline ucontext_t stir_emu_sched;           /* the scheduler's context */
inline stir_emu_thread *stir_emu_cur;       /* the running thread */
#define threadIdx (stir_emu_cur->tid)
#define blockIdx (stir_emu_cur->bid)
inline uint64_t stir_emu_slot[1024];        /* shuffled values, by lid */
inline std::mutex stir_emu_atomic_mutex;
/* set when a shuffle's mask differs from the warp's threads, or a
 * kernel takes more dynamic shared memory than its launch gave */
inline int stir_emu_bad_mask;
inline unsigned stir_emu_nthreads;

/* state: block the running thread until the scheduler releases it. */
inline void stir_emu_wait(int state)
{
	stir_emu_cur->state = state;
	swapcontext(&stir_emu_cur->uc, &stir_emu_sched);
}

/* d, s, n: cp.async of a pipelined loop (codegen/cuda_pipeline.c): the n
 * bytes at s reach d only when a wait_group completes their group, so
 * that a wait that lets a group through too early shows as stale data. */
inline void stir_emu_cp_async(void *d, const void *s, unsigned n)
{
	stir_emu_copy c;
	c.dst = d;
	memcpy(c.data, s, n);
	c.n = n;
	c.group = -1;
	stir_emu_cur->copies.push_back(c);
}

/* cp.async.commit_group: the thread's uncommitted copies become a group. */
inline void stir_emu_cp_async_commit(void)
{
	stir_emu_thread *t = stir_emu_cur;
	for (stir_emu_copy &c : t->copies)
		if (c.group < 0)
			c.group = t->groups;
	t->groups++;
}

/* n: cp.async.wait_group n: every group but the newest n lands. */
inline void stir_emu_cp_async_wait(int n)
{
	stir_emu_thread *t = stir_emu_cur;
	std::vector<stir_emu_copy> left;
	for (const stir_emu_copy &c : t->copies) {
		if (c.group >= 0 && c.group < t->groups - n)
			memcpy(c.dst, c.data, c.n);
		else
			left.push_back(c);
	}
	t->copies.swap(left);
}

/* The block barrier: wait until the scheduler releases every thread. */
inline void __syncthreads(void)
{
	stir_emu_wait(STIR_EMU_BLOCK);
}

/* The lanes of the warp of thread "lid". */
inline unsigned stir_emu_lanes(unsigned lid)
{
	unsigned first = lid - lid % 32;
	return stir_emu_nthreads - first < 32 ? stir_emu_nthreads - first : 32;
}

/* A warp shuffle among the lanes of "mask", which must hold the calling
 * lane and only lanes of its warp, and which all must reach a shuffle with
 * the same mask: every lane publishes v, then reads lane "src" of its warp
 * (or keeps its own value when src lies outside its segment of "width"
 * lanes); reading a lane outside the mask is an error too. */
template <typename T>
inline T stir_emu_shfl(unsigned mask, T v, int src, int width)
{
	unsigned lid = stir_emu_cur->lid, lane = lid % 32;
	unsigned lanes = stir_emu_lanes(lid);
	unsigned warp = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
	if ((mask & ~warp) || !(mask >> lane & 1u))
		stir_emu_bad_mask = 1;
	static_assert(sizeof(T) <= 8, "shuffled values are at most 8 bytes");
	stir_emu_cur->mask = mask & warp;
	memcpy(&stir_emu_slot[lid], &v, sizeof(T));
	stir_emu_wait(STIR_EMU_WARP);
	T r = v;
	unsigned base = lane - lane % (unsigned)width;
	if (src >= (int)base && (unsigned)src < base + (unsigned)width &&
	    (unsigned)src < lanes) {
		if (!(mask >> src & 1u))
			stir_emu_bad_mask = 1;
		memcpy(&r, &stir_emu_slot[lid - lane + (unsigned)src], sizeof(T));
	}
	stir_emu_wait(STIR_EMU_WARP);
	return r;
}

/* mask, v, off, width: the value of lane + off within the segment. */
template <typename T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned off, int width = 32)
{
	return stir_emu_shfl(mask, v, (int)(stir_emu_cur->lid % 32 + off),
		width);
}

/* mask, v, m, width: the value of lane (lane ^ m) within the segment. */
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32)
{
	return stir_emu_shfl(mask, v, (int)(stir_emu_cur->lid % 32 ^
		(unsigned)m), width);
}

/* mask, v, src, width: the value of lane src of the segment. */
template <typename T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
	unsigned lane = stir_emu_cur->lid % 32;
	return stir_emu_shfl(mask, v, (int)(lane - lane % width + src), width);
}

/* ---- numbers ---- */

/* a, b: CUDA's integer min and max overloads. */
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }

/* x: truncated toward zero, saturated, NaN to 0 (cvt.rzi). */
inline int __float2int_rz(double x)
{
	if (std::isnan(x))
		return 0;
	if (x >= 2147483648.0)
		return INT_MAX;
	if (x <= -2147483648.0)
		return INT_MIN;
	return (int)x;
}
/* x: the same in 64 bits. */
inline long long __float2ll_rz(double x)
{
	if (std::isnan(x))
		return 0;
	if (x >= 9223372036854775808.0)
		return LLONG_MAX;
	if (x <= -9223372036854775808.0)
		return LLONG_MIN;
	return (long long)x;
}
/* x: the double versions, and reinterpreting bits. */
inline int __double2int_rz(double x) { return __float2int_rz(x); }
inline long long __double2ll_rz(double x) { return __float2ll_rz(x); }
inline float __int_as_float(int b)
{
	float f;
	memcpy(&f, &b, 4);
	return f;
}
inline float __uint_as_float(unsigned b)
{
	float f;
	memcpy(&f, &b, 4);
	return f;
}
inline unsigned __float_as_uint(float f)
{
	unsigned b;
	memcpy(&b, &f, 4);
	return b;
}
inline double __longlong_as_double(long long b)
{
	double d;
	memcpy(&d, &b, 8);
	return d;
}

/* ---- 16-bit floats ---- */

struct __half {
	uint16_t x;
};
struct __nv_bfloat16 {
	uint16_t x;
};

/* x: binary16 nearest to x, ties to even (as ir/dtype.c). */
inline uint16_t stir_emu_f16(double x)
{
	uint16_t sign = std::signbit(x) ? 0x8000 : 0;
	double a = std::fabs(x);
	if (std::isnan(x))
		return 0x7e00;
	if (a >= 65520.0)
		return sign | 0x7c00;
	if (a < 0x1p-14)
		return sign | (uint16_t)std::nearbyint(a * 0x1p24);
	int e;
	double m = std::nearbyint(std::frexp(a, &e) * 2048.0);
	if (m == 2048.0) {
		m = 1024.0;
		e++;
	}
	if (e - 1 + 15 >= 31)
		return sign | 0x7c00;
	return sign | (uint16_t)((e - 1 + 15) << 10) |
		(uint16_t)((uint32_t)m & 0x3ff);
}

/* x: bfloat16 nearest to x, ties to even. */
inline uint16_t stir_emu_bf16(double x)
{
	if (std::isnan(x))
		return 0x7fc0;
	uint16_t sign = std::signbit(x) ? 0x8000 : 0;
	double a = std::fabs(x);
	if (a >= 0x1.ffp127)
		return sign | 0x7f80;
	if (a < 0x1p-126)
		return sign | (uint16_t)std::nearbyint(a * 0x1p133);
	int e;
	double m = std::nearbyint(std::frexp(a, &e) * 256.0);
	if (m == 256.0) {
		m = 128.0;
		e++;
	}
	if (e - 1 + 127 >= 255)
		return sign | 0x7f80;
	return sign | (uint16_t)((e - 1 + 127) << 7) |
		(uint16_t)((uint32_t)m & 0x7f);
}

/* h: the float a binary16 stands for. */
inline float __half2float(__half h)
{
	int e = (h.x >> 10) & 0x1f, m = h.x & 0x3ff;
	double v = e == 0 ? std::ldexp(m, -24) : e == 31 ?
		(m ? NAN : INFINITY) : std::ldexp(m | 0x400, e - 25);
	return (float)(h.x & 0x8000 ? -v : v);
}
/* h: the float a bfloat16 stands for (its upper half). */
inline float __bfloat162float(__nv_bfloat16 h)
{
	uint32_t b = (uint32_t)h.x << 16;
	float f;
	memcpy(&f, &b, 4);
	return f;
}
/* x: conversions to the 16-bit types, rounding to nearest even once;
 * __hneg flips the sign. */
inline __half __float2half_rn(float x) { return __half{ stir_emu_f16(x) }; }
inline __half __double2half(double x) { return __half{ stir_emu_f16(x) }; }
inline __half __int2half_rn(int x) { return __half{ stir_emu_f16(x) }; }
inline __half __ll2half_rn(long long x)
{
	return __half{ stir_emu_f16((double)x) };
}
inline __half __hneg(__half h) { return __half{ (uint16_t)(h.x ^ 0x8000) }; }
inline __nv_bfloat16 __float2bfloat16_rn(float x)
{
	return __nv_bfloat16{ stir_emu_bf16(x) };
}
inline __nv_bfloat16 __double2bfloat16(double x)
{
	return __nv_bfloat16{ stir_emu_bf16(x) };
}
inline __nv_bfloat16 __int2bfloat16_rn(int x)
{
	return __nv_bfloat16{ stir_emu_bf16(x) };
}
inline __nv_bfloat16 __ll2bfloat16_rn(long long x)
{
	return __nv_bfloat16{ stir_emu_bf16((double)x) };
}
inline __nv_bfloat16 __hneg(__nv_bfloat16 h)
{
	return __nv_bfloat16{ (uint16_t)(h.x ^ 0x8000) };
}

/* ---- atomics ---- */

/* p, v: atomic add (the coroutines never run at once; the lock keeps
 * it correct regardless). */
template <typename T>
inline T atomicAdd(T *p, T v)
{
	std::lock_guard<std::mutex> g(stir_emu_atomic_mutex);
	T old = *p;
	*p = old + v;
	return old;
}
/* p, v: atomic subtraction of an int; the 16-bit adds round like the
 * interpreter. */
inline int atomicSub(int *p, int v)
{
	std::lock_guard<std::mutex> g(stir_emu_atomic_mutex);
	int old = *p;
	*p = old - v;
	return old;
}
inline __half atomicAdd(__half *p, __half v)
{
	std::lock_guard<std::mutex> g(stir_emu_atomic_mutex);
	__half old = *p;
	*p = __float2half_rn(__half2float(old) + __half2float(v));
	return old;
}
inline __nv_bfloat16 atomicAdd(__nv_bfloat16 *p, __nv_bfloat16 v)
{
	std::lock_guard<std::mutex> g(stir_emu_atomic_mutex);
	__nv_bfloat16 old = *p;
	*p = __float2bfloat16_rn(__bfloat162float(old) + __bfloat162float(v));
	return old;
}

/* ---- vectors ---- */

struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) double2 { double x, y; };
inline float2 make_float2(float x, float y) { return { x, y }; }
inline float4 make_float4(float x, float y, float z, float w)
{
	return { x, y, z, w };
}

/* ---- launching ---- */

/* Call kernel f with the argument values a[0..] (pointers to each, as
 * cuLaunchKernel takes them). */
template <typename... A, size_t... I>
inline void stir_emu_call_at(void (*f)(A...), void **a,
	std::index_sequence<I...>)
{
	f(*(A *)a[I]...);
}
/* f, a: call f with the values a points to. */
template <typename... A>
inline void stir_emu_call(void (*f)(A...), void **a)
{
	stir_emu_call_at(f, a, std::index_sequence_for<A...>{});
}

/* The parameter sizes of a kernel, as cuFuncGetParamInfo tells them. */
template <typename F>
struct stir_emu_sig;
template <typename... A>
struct stir_emu_sig<void(A...)> {
	static constexpr size_t n = sizeof...(A);
	static constexpr size_t size[sizeof...(A) + 1] = { sizeof(A)..., 0 };
};

inline void (*stir_emu_fn)(void **);
inline void **stir_emu_params;

/* The launch's dynamic shared memory: the size cuLaunchKernel gave, and
 * the memory (128-byte aligned; freed at the launch's end, so that none
 * outlives the module when the fake driver unloads it). */
inline unsigned stir_emu_shared_bytes;
inline unsigned char *stir_emu_shared_mem;
inline size_t stir_emu_shared_cap;

/* n: the kernel's dynamic shared memory, the n bytes of shared arrays it
 * takes from it (codegen/cuda.c); more than the launch gave fails the
 * launch, as it would fault on a GPU. */
inline unsigned char *stir_emu_dynamic_shared(long long n)
{
	if (n > (long long)stir_emu_shared_bytes)
		stir_emu_bad_mask = 1;
	if ((size_t)n > stir_emu_shared_cap) {
		size_t cap = ((size_t)n + 127) / 128 * 128;
		free(stir_emu_shared_mem);
		stir_emu_shared_mem = (unsigned char *)aligned_alloc(128, cap);
		if (!stir_emu_shared_mem)
			abort();
		stir_emu_shared_cap = cap;
	}
	return stir_emu_shared_mem;
}

/* The body of every coroutine. */
inline void stir_emu_thread_main(void)
{
	stir_emu_thread *t = stir_emu_cur;
	stir_emu_fn(stir_emu_params);
	t->state = STIR_EMU_DONE;
}

/* th, n: release the threads waiting at a barrier every thread of its
 * group (the block, or each warp) has reached.  false when some thread
 * waits at a barrier that can never be released. */
inline bool stir_emu_release(stir_emu_thread *th, unsigned n)
{
	bool all_block = true, any = false;
	for (unsigned l = 0; l < n; l++)
		all_block &= th[l].state == STIR_EMU_BLOCK;
	if (all_block) {
		for (unsigned l = 0; l < n; l++)
			th[l].state = STIR_EMU_RUN;
		return true;
	}
	/* a shuffle passes when every lane of its mask waits at one with
	 * the same mask */
	for (unsigned w = 0; w < n; w += 32) {
		unsigned lanes = stir_emu_lanes(w);
		for (unsigned l = w; l < w + lanes; l++) {
			if (th[l].state != STIR_EMU_WARP)
				continue;
			unsigned m = th[l].mask;
			bool all = true;
			for (unsigned i = 0; i < lanes; i++)
				if (m >> i & 1u)
					all &= th[w + i].state == STIR_EMU_WARP &&
						th[w + i].mask == m;
			if (!all)
				continue;
			for (unsigned i = 0; i < lanes; i++)
				if (m >> i & 1u)
					th[w + i].state = STIR_EMU_RUN;
			any = true;
		}
	}
	return any;
}

/* Run fn over the grid with "shared" bytes of dynamic shared memory; 0,
 * or -1 when a barrier cannot be passed by every thread of its group or a
 * shuffle named the wrong threads. */
extern "C" int stir_emu_launch(void (*fn)(void **), const unsigned *grid,
	const unsigned *block, unsigned shared, void **params)
{
	const size_t stack = 256 * 1024;
	unsigned n = block[0] * block[1] * block[2];
	bool reverse = getenv("STIR_EMU_REVERSE") != NULL;
	gridDim = { grid[0], grid[1], grid[2] };
	blockDim = { block[0], block[1], block[2] };
	stir_emu_fn = fn;
	stir_emu_params = params;
	stir_emu_nthreads = n;
	stir_emu_bad_mask = 0;
	stir_emu_shared_bytes = shared;
	if (n > 1024)
		return -1;
	stir_emu_thread *th = new stir_emu_thread[n];
	for (unsigned l = 0; l < n; l++)
		th[l].stack = new char[stack];
	int rc = 0;
	for (unsigned bz = 0; bz < grid[2] && rc == 0; bz++)
	for (unsigned by = 0; by < grid[1] && rc == 0; by++)
	for (unsigned bx = 0; bx < grid[0] && rc == 0; bx++) {
		for (unsigned l = 0; l < n; l++) {
			stir_emu_thread *t = &th[l];
			t->lid = l;
			t->tid = { l % block[0], l / block[0] % block[1],
				l / (block[0] * block[1]) };
			t->bid = { bx, by, bz };
			t->state = STIR_EMU_RUN;
			t->copies.clear();
			t->groups = 0;
			getcontext(&t->uc);
			t->uc.uc_stack.ss_sp = t->stack;
			t->uc.uc_stack.ss_size = stack;
			t->uc.uc_link = &stir_emu_sched;
			makecontext(&t->uc, stir_emu_thread_main, 0);
		}
		for (;;) {
			bool ran = false, done = true;
			for (unsigned i = 0; i < n; i++) {
				stir_emu_thread *t = &th[reverse ? n - 1 - i : i];
				if (t->state == STIR_EMU_RUN) {
					stir_emu_cur = t;
					swapcontext(&stir_emu_sched, &t->uc);
					ran = true;
				}
				done &= t->state == STIR_EMU_DONE;
			}
			if (done)
				break;
			if (!ran && !stir_emu_release(th, n)) {
				rc = -1; /* deadlock: a barrier not every thread reaches */
				break;
			}
		}
	}
	for (unsigned l = 0; l < n; l++)
		delete[] th[l].stack;
	delete[] th;
	free(stir_emu_shared_mem);
	stir_emu_shared_mem = NULL;
	stir_emu_shared_cap = 0;
	return rc == 0 && !stir_emu_bad_mask ? 0 : -1;
}

/* ---- tensor cores (codegen/mma_prelude.c) ---- */

/* The prelude of the intrinsics compiles for the host too: only mma.sync,
 * ldmatrix, cvt.rna.tf32 and cp.async are replaced, by the functions
 * below, and <mma.h> by the nvcuda::wmma below. */
#define STIR_EMU 1

inline unsigned short __half_as_ushort(__half h) { return h.x; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.x; }

/* x: x rounded to tf32 as cvt.rna.tf32.f32 does (to nearest, ties away
 * from zero, 10 mantissa bits kept), as the bits of an f32. */
inline unsigned stir_emu_tf32(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	if ((u & 0x7f800000u) != 0x7f800000u)
		u = (u + 0x1000u) & 0xffffe000u;
	return u;
}

/* The registers of an mma.sync, by thread: A (4), B (2), C (4). */
inline uint32_t stir_emu_mma_regs[1024][10];

/* Publish this lane's registers c, a, b and wait for the whole warp (of 32
 * lanes, all present: else the launch fails); returns every lane's, by
 * lane. */
inline uint32_t (*stir_emu_mma_publish(const float c[4], const unsigned a[4],
	const unsigned b[2]))[10]
{
	unsigned lid = stir_emu_cur->lid;
	if (stir_emu_lanes(lid) != 32)
		stir_emu_bad_mask = 1;
	uint32_t *r = stir_emu_mma_regs[lid];
	memcpy(r, a, 16);
	memcpy(r + 4, b, 8);
	memcpy(r + 6, c, 16);
	stir_emu_cur->mask = 0xffffffffu;
	stir_emu_wait(STIR_EMU_WARP);
	return &stir_emu_mma_regs[lid - lid % 32];
}

/* kk, A, B, regs, c: this lane's four results D = A B + C into c, with
 * K = kk, C decoded from every lane's registers regs with the accumulator
 * layout of the PTX ISA (register i of lane (g, t) = 4 g + t holds row
 * g + 8 (i / 2), column 2 t + i % 2). */
inline void stir_emu_mma_finish(int kk, const float (*A)[16],
	const float (*B)[8], uint32_t (*regs)[10], float c[4])
{
	float C[16][8];
	for (unsigned l = 0; l < 32; l++)
		for (int i = 0; i < 4; i++)
			memcpy(&C[l / 4 + 8 * (i >> 1)][2 * (l % 4) + (i & 1)],
				&regs[l][6 + i], 4);
	unsigned lane = stir_emu_cur->lid % 32, g = lane / 4, t = lane % 4;
	for (int i = 0; i < 4; i++) {
		int row = (int)g + 8 * (i >> 1), col = 2 * (int)t + (i & 1);
		float d = C[row][col];
		for (int k = 0; k < kk; k++)
			d += A[row][k] * B[k][col];
		c[i] = d;
	}
	/* nobody reuses the registers before every lane has read them */
	stir_emu_cur->mask = 0xffffffffu;
	stir_emu_wait(STIR_EMU_WARP);
}

/* c, a, b, bf16: mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}: A
 * (16 x 16) and B (16 x 8) decoded from every lane with the PTX ISA's
 * layouts: A's register i of lane (g, t) holds row g + 8 (i % 2), columns
 * 2 t + 8 (i / 2) and the next (low half first); B's register i holds rows
 * 2 t + 8 i and the next, column g. */
inline void stir_emu_mma_m16n8k16(float c[4], const unsigned a[4],
	const unsigned b[2], int bf16)
{
	uint32_t (*regs)[10] = stir_emu_mma_publish(c, a, b);
	float A[16][16], B[16][8];
	for (unsigned l = 0; l < 32; l++) {
		unsigned g = l / 4, t = l % 4;
		for (int i = 0; i < 8; i++) {
			uint32_t r = i < 4 ? regs[l][i] : regs[l][4 + (i - 4) / 2];
			for (int h = 0; h < 2; h++) {
				uint16_t bits = (uint16_t)(r >> (16 * h));
				float v = bf16 ? __bfloat162float(__nv_bfloat16{ bits }) :
					__half2float(__half{ bits });
				if (i < 4)
					A[g + 8 * (i & 1)][2 * t + h + 8 * (i >> 1)] = v;
				else if (i % 2 == 0)
					B[2 * t + h + 8 * ((i - 4) / 2)][g] = v;
			}
		}
	}
	stir_emu_mma_finish(16, A, B, regs, c);
}

/* c, a, b: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: A's
 * register i of lane (g, t) holds row g + 8 (i % 2), column t + 4 (i / 2);
 * B's register i holds row t + 4 i, column g. */
inline void stir_emu_mma_m16n8k8_tf32(float c[4], const unsigned a[4],
	const unsigned b[2])
{
	uint32_t (*regs)[10] = stir_emu_mma_publish(c, a, b);
	float A[16][16] = { { 0 } }, B[16][8] = { { 0 } };
	for (unsigned l = 0; l < 32; l++) {
		unsigned g = l / 4, t = l % 4;
		for (int i = 0; i < 4; i++)
			memcpy(&A[g + 8 * (i & 1)][t + 4 * (i >> 1)], &regs[l][i], 4);
		for (int i = 0; i < 2; i++)
			memcpy(&B[t + 4 * i][g], &regs[l][4 + i], 4);
	}
	stir_emu_mma_finish(8, A, B, regs, c);
}

/* ---- nvcuda::wmma (codegen/mma_prelude.c, wmma_m16n16k16_f16) ---- */

/* The API's fragments hold, in each lane, num_elements of the tile in an
 * order the API does not tell: here element e of lane l is the tile's
 * element l + 32 e in row-major order (another order than mma.sync's, so
 * that code assuming a layout shows).  Every function is warp-collective:
 * all 32 lanes must call it with the same pointer and row distance (else
 * the launch fails), a pointer 32-byte aligned and rows a multiple of 16
 * bytes apart, as the API requires. */
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

/* Use's tile: M x K for A, K x N for B, M x N for the accumulator. */
template <typename Use, int M, int N, int K>
struct stir_emu_cols {
	enum { value = N };
};
template <int M, int N, int K>
struct stir_emu_cols<matrix_a, M, N, K> {
	enum { value = K };
};
template <typename Use, int M, int N, int K, typename T,
	typename Layout = void>
struct fragment {
	static_assert(M == 16 && N == 16 && K == 16,
		"the emulation knows the m16n16k16 shape (every tile 16 x 16)");
	enum { num_elements = M * N / 32 };
	T x[M * N / 32];
};
} // namespace wmma
} // namespace nvcuda

inline float stir_emu_wmma_float(float x) { return x; }
inline float stir_emu_wmma_float(__half x) { return __half2float(x); }

/* The pointers the lanes of a collective call give, by thread. */
inline const void *stir_emu_wmma_ptr[1024][3];
inline unsigned stir_emu_wmma_ld[1024];

/* a, b, c, ld: publish this lane's pointers and row distance and wait for
 * the whole warp (32 lanes, each giving the same ld and, when same, the
 * same a); returns lane 0's slot. */
inline unsigned stir_emu_wmma_publish(const void *a, const void *b,
	const void *c, unsigned ld, bool same)
{
	unsigned lid = stir_emu_cur->lid, first = lid - lid % 32;
	if (stir_emu_lanes(lid) != 32)
		stir_emu_bad_mask = 1;
	stir_emu_wmma_ptr[lid][0] = a;
	stir_emu_wmma_ptr[lid][1] = b;
	stir_emu_wmma_ptr[lid][2] = c;
	stir_emu_wmma_ld[lid] = ld;
	stir_emu_cur->mask = 0xffffffffu;
	stir_emu_wait(STIR_EMU_WARP);
	for (unsigned l = first; l < first + 32; l++)
		if (stir_emu_wmma_ld[l] != ld ||
		    (same && stir_emu_wmma_ptr[l][0] != a))
			stir_emu_bad_mask = 1;
	return first;
}

/* The end of a collective call: nobody changes what it published before
 * every lane has read it. */
inline void stir_emu_wmma_done(void)
{
	stir_emu_cur->mask = 0xffffffffu;
	stir_emu_wait(STIR_EMU_WARP);
}

/* f, p, ld, cols, colmajor, store: the lane's elements of a tile of
 * "cols" columns at p (element (r, c) at p[r * ld + c], or p[c * ld + r]
 * when colmajor) into f, or from f when store. */
template <typename T>
inline void stir_emu_wmma_move(T *f, int n, T *p, unsigned ld, int cols,
	bool colmajor, bool store)
{
	stir_emu_wmma_publish(p, NULL, NULL, ld, true);
	if ((uintptr_t)p % 32 != 0 || ld * sizeof(T) % 16 != 0)
		stir_emu_bad_mask = 1;
	unsigned lane = stir_emu_cur->lid % 32;
	for (int e = 0; e < n; e++) {
		unsigned i = lane + 32 * (unsigned)e, r = i / (unsigned)cols,
			c = i % (unsigned)cols;
		T *q = &p[colmajor ? c * ld + r : r * ld + c];
		if (store)
			*q = f[e];
		else
			f[e] = *q;
	}
	stir_emu_wmma_done();
}

namespace nvcuda {
namespace wmma {
/* f, p, ldm: load_matrix_sync of A or B, whose layout is its type's. */
template <typename Use, int M, int N, int K, typename T, typename Layout>
inline void load_matrix_sync(fragment<Use, M, N, K, T, Layout> &f,
	const T *p, unsigned ldm)
{
	stir_emu_wmma_move(f.x, M * N / 32, (T *)p, ldm,
		stir_emu_cols<Use, M, N, K>::value,
		std::is_same<Layout, col_major>::value, false);
}
/* f, p, ldm, l: load_matrix_sync of an accumulator. */
template <int M, int N, int K>
inline void load_matrix_sync(fragment<accumulator, M, N, K, float> &f,
	const float *p, unsigned ldm, layout_t l)
{
	stir_emu_wmma_move(f.x, M * N / 32, (float *)p, ldm, N,
		l == mem_col_major, false);
}
/* p, f, ldm, l: store_matrix_sync of an accumulator. */
template <int M, int N, int K>
inline void store_matrix_sync(float *p,
	const fragment<accumulator, M, N, K, float> &f, unsigned ldm, layout_t l)
{
	stir_emu_wmma_move((float *)f.x, M * N / 32, p, ldm, N,
		l == mem_col_major, true);
}
/* d, a, b, c: D = A B + C, every product of f32 values summed in f32 in
 * the order of k, A and B decoded from every lane's fragments. */
template <int M, int N, int K, typename T, typename LA, typename LB>
inline void mma_sync(fragment<accumulator, M, N, K, float> &d,
	const fragment<matrix_a, M, N, K, T, LA> &a,
	const fragment<matrix_b, M, N, K, T, LB> &b,
	const fragment<accumulator, M, N, K, float> &c)
{
	unsigned first = stir_emu_wmma_publish(a.x, b.x, c.x, 0, false);
	unsigned lane = stir_emu_cur->lid % 32;
	/* element (r, c) of a tile of "cols" columns: lane i % 32,
	 * element i / 32 with i = r * cols + c */
	auto at = [&](int which, int r, int col, int cols) {
		unsigned i = (unsigned)(r * cols + col);
		const T *x = (const T *)stir_emu_wmma_ptr[first + i % 32][which];
		return stir_emu_wmma_float(x[i / 32]);
	};
	float out[M * N / 32];
	for (int e = 0; e < M * N / 32; e++) {
		unsigned i = lane + 32 * (unsigned)e;
		int r = (int)(i / N), col = (int)(i % N);
		float v = c.x[e];
		for (int k = 0; k < K; k++)
			v += at(0, r, k, K) * at(1, k, col, N);
		out[e] = v;
	}
	stir_emu_wmma_done();
	for (int e = 0; e < M * N / 32; e++)
		d.x[e] = out[e];
}
} // namespace wmma
} // namespace nvcuda

/* The row addresses of an ldmatrix, by thread. */
inline const unsigned char *stir_emu_ldsm_rows[1024];

/* r, n, p, trans: ldmatrix.sync.aligned.m8n8.{x2,x4}[.trans].shared.b16:
 * every lane publishes p, the address of a row (lanes 8j to 8j + 7 the
 * rows of matrix j, each 16-byte aligned, else the launch fails), and
 * waits for the whole warp; register j of lane (g, t) = 4g + t is then row
 * g, elements 2t and 2t + 1 of matrix j (low half first), or with trans
 * element g of rows 2t and 2t + 1. */
inline void stir_emu_ldmatrix(unsigned *r, int n, const void *p, int trans)
{
	unsigned lid = stir_emu_cur->lid, lane = lid % 32, g = lane / 4,
		t = lane % 4;
	if (stir_emu_lanes(lid) != 32)
		stir_emu_bad_mask = 1;
	stir_emu_ldsm_rows[lid] = (const unsigned char *)p;
	stir_emu_cur->mask = 0xffffffffu;
	stir_emu_wait(STIR_EMU_WARP);
	const unsigned char *const *rows = &stir_emu_ldsm_rows[lid - lane];
	for (int j = 0; j < n; j++) {
		uint16_t h[2];
		for (unsigned e = 0; e < 2; e++) {
			unsigned row = trans ? 2 * t + e : g, col = trans ? g : 2 * t + e;
			const unsigned char *a = rows[8 * j + (int)row];
			if ((uintptr_t)a % 16 != 0) {
				stir_emu_bad_mask = 1;
				h[e] = 0;
				continue;
			}
			memcpy(&h[e], a + 2 * col, 2);
		}
		r[j] = h[0] | (unsigned)h[1] << 16;
	}
	/* nobody publishes another address before every lane has read */
	stir_emu_cur->mask = 0xffffffffu;
	stir_emu_wait(STIR_EMU_WARP);
}

#endif
