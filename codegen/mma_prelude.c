/* The CUDA of the tensor-core intrinsics (ir/intrinsics.h): per
 * intrinsic, its fragment types and device functions, put once before the
 * launches of a kernel that tensorizes with it (docs/cuda.md,
 * "Tensor cores").  tests/emu/cuda_emu.h compiles the same text for the
 * host, with the warp-collective mma.sync replaced by an emulation that
 * decodes every lane's registers with the PTX ISA's fragment layouts. */
#include <string.h>
#include "codegen/cuda_internal.h"

static const char prelude_common[] =
	"// ---- stir: tensor-core intrinsics (codegen/mma_prelude.c) ----\n"
	"// Each intrinsic's fragments and functions; all 32 lanes of a warp call\n"
	"// each function together.  The fragment layouts are the PTX ISA's for\n"
	"// mma.sync (which lane holds which element); the _mma functions and\n"
	"// stir_tf32 are what the host emulation of the tests replaces (STIR_EMU).\n"
	"__device__ __forceinline__ unsigned stir_lane(void)\n"
	"{\n"
	"  return threadIdx.x & 31u;\n"
	"}\n"
	"__device__ __forceinline__ unsigned stir_pack2(unsigned short lo,\n"
	"    unsigned short hi)\n"
	"{\n"
	"  return (unsigned)lo | ((unsigned)hi << 16);\n"
	"}\n"
	"__device__ __forceinline__ unsigned stir_tf32(float x)\n"
	"{\n"
	"#ifdef STIR_EMU\n"
	"  return stir_emu_tf32(x);\n"
	"#else\n"
	"  unsigned r;\n"
	"  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(x));\n"
	"  return r;\n"
	"#endif\n"
	"}\n"
	"\n"
	"// The f32 accumulator of the m16n8 shapes: register i of lane (g, t) =\n"
	"// 4g + t holds row g + 8 (i / 2), column 2t + i % 2 (g = lane / 4,\n"
	"// t = lane % 4).  STIR_ACC16X8(P) defines P_acc and its functions.\n"
	"#define STIR_ACC16X8(P) \\\n"
	"struct P##_acc { float r[4]; }; \\\n"
	"__device__ __forceinline__ void P##_fill(P##_acc &c, float v) \\\n"
	"{ \\\n"
	"  for (int i = 0; i < 4; i++) \\\n"
	"    c.r[i] = v; \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_load_acc(P##_acc &c, const float *p, \\\n"
	"    long long ld) \\\n"
	"{ \\\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u; \\\n"
	"  for (int i = 0; i < 4; i++) \\\n"
	"    c.r[i] = p[(g + 8 * (i >> 1)) * ld + 2 * t + (i & 1)]; \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_store_acc(float *p, long long ld, \\\n"
	"    const P##_acc &c) \\\n"
	"{ \\\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u; \\\n"
	"  for (int i = 0; i < 4; i++) \\\n"
	"    p[(g + 8 * (i >> 1)) * ld + 2 * t + (i & 1)] = c.r[i]; \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_atomic_add_acc(float *p, long long ld, \\\n"
	"    const P##_acc &c) \\\n"
	"{ \\\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u; \\\n"
	"  for (int i = 0; i < 4; i++) \\\n"
	"    atomicAdd(&p[(g + 8 * (i >> 1)) * ld + 2 * t + (i & 1)], c.r[i]); \\\n"
	"}\n"
	"// A (16x16) and B (16x8) of the 16-bit m16n8k16 shapes, elements of type\n"
	"// T whose bits stir_bits(T) gives: register i of lane (g, t) holds A's row\n"
	"// g + 8 (i % 2), columns 2t + 8 (i / 2) and the next (low half first);\n"
	"// B's rows 2t + 8i and the next, column g.  STIR_K16(P, T) defines P_a,\n"
	"// P_b and their loads (_t: the operand stored transposed).\n"
	"#define STIR_K16(P, T) \\\n"
	"struct P##_a { unsigned r[4]; }; \\\n"
	"struct P##_b { unsigned r[2]; }; \\\n"
	"__device__ __forceinline__ void P##_load_a(P##_a &a, const T *p, long long ld) \\\n"
	"{ \\\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u; \\\n"
	"  for (int i = 0; i < 4; i++) { \\\n"
	"    const long long r = g + 8 * (i & 1), c = 2 * t + 8 * (i >> 1); \\\n"
	"    a.r[i] = stir_pack2(stir_bits(p[r * ld + c]), stir_bits(p[r * ld + c + 1])); \\\n"
	"  } \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_load_a_t(P##_a &a, const T *p, long long ld) \\\n"
	"{ \\\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u; \\\n"
	"  for (int i = 0; i < 4; i++) { \\\n"
	"    const long long r = g + 8 * (i & 1), c = 2 * t + 8 * (i >> 1); \\\n"
	"    a.r[i] = stir_pack2(stir_bits(p[c * ld + r]), stir_bits(p[(c + 1) * ld + r])); \\\n"
	"  } \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_load_b(P##_b &b, const T *p, long long ld) \\\n"
	"{ \\\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u; \\\n"
	"  for (int i = 0; i < 2; i++) { \\\n"
	"    const long long k = 2 * t + 8 * i; \\\n"
	"    b.r[i] = stir_pack2(stir_bits(p[k * ld + g]), stir_bits(p[(k + 1) * ld + g])); \\\n"
	"  } \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_load_b_t(P##_b &b, const T *p, long long ld) \\\n"
	"{ \\\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u; \\\n"
	"  for (int i = 0; i < 2; i++) { \\\n"
	"    const long long k = 2 * t + 8 * i; \\\n"
	"    b.r[i] = stir_pack2(stir_bits(p[g * ld + k]), stir_bits(p[g * ld + k + 1])); \\\n"
	"  } \\\n"
	"}\n";

static const char prelude_mma_m16n8k16_f16[] =
	"// mma_m16n8k16_f16: D (16x8, f32) += A (16x16, __half) * B (16x8, __half)\n"
	"__device__ __forceinline__ unsigned short stir_bits(__half x)\n"
	"{\n"
	"  return __half_as_ushort(x);\n"
	"}\n"
	"STIR_ACC16X8(stir_mma_m16n8k16_f16)\n"
	"STIR_K16(stir_mma_m16n8k16_f16, __half)\n"
	"__device__ __forceinline__ void stir_mma_m16n8k16_f16_mma(stir_mma_m16n8k16_f16_acc &c, const stir_mma_m16n8k16_f16_a &a,\n"
	"    const stir_mma_m16n8k16_f16_b &b)\n"
	"{\n"
	"#ifdef STIR_EMU\n"
	"  stir_emu_mma_m16n8k16(c.r, a.r, b.r, 0);\n"
	"#else\n"
	"  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 \"\n"
	"    \"{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\"\n"
	"    : \"+f\"(c.r[0]), \"+f\"(c.r[1]), \"+f\"(c.r[2]), \"+f\"(c.r[3])\n"
	"    : \"r\"(a.r[0]), \"r\"(a.r[1]), \"r\"(a.r[2]), \"r\"(a.r[3]), \"r\"(b.r[0]),\n"
	"      \"r\"(b.r[1]));\n"
	"#endif\n"
	"}\n";

static const char prelude_mma_m16n8k16_bf16[] =
	"// mma_m16n8k16_bf16: D (16x8, f32) += A (16x16, __nv_bfloat16) * B (16x8, __nv_bfloat16)\n"
	"__device__ __forceinline__ unsigned short stir_bits(__nv_bfloat16 x)\n"
	"{\n"
	"  return __bfloat16_as_ushort(x);\n"
	"}\n"
	"STIR_ACC16X8(stir_mma_m16n8k16_bf16)\n"
	"STIR_K16(stir_mma_m16n8k16_bf16, __nv_bfloat16)\n"
	"__device__ __forceinline__ void stir_mma_m16n8k16_bf16_mma(stir_mma_m16n8k16_bf16_acc &c, const stir_mma_m16n8k16_bf16_a &a,\n"
	"    const stir_mma_m16n8k16_bf16_b &b)\n"
	"{\n"
	"#ifdef STIR_EMU\n"
	"  stir_emu_mma_m16n8k16(c.r, a.r, b.r, 1);\n"
	"#else\n"
	"  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 \"\n"
	"    \"{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\"\n"
	"    : \"+f\"(c.r[0]), \"+f\"(c.r[1]), \"+f\"(c.r[2]), \"+f\"(c.r[3])\n"
	"    : \"r\"(a.r[0]), \"r\"(a.r[1]), \"r\"(a.r[2]), \"r\"(a.r[3]), \"r\"(b.r[0]),\n"
	"      \"r\"(b.r[1]));\n"
	"#endif\n"
	"}\n";

static const char prelude_mma_m16n8k8_tf32[] =
	"// mma_m16n8k8_tf32: D (16x8, f32) += A (16x8) * B (8x8), f32 inputs rounded\n"
	"// to tf32 (cvt.rna: to nearest, ties away from zero); register i of lane\n"
	"// (g, t) holds A's row g + 8 (i % 2), column t + 4 (i / 2), B's row t + 4i,\n"
	"// column g; the accumulator as the other m16n8 shapes\n"
	"STIR_ACC16X8(stir_mma_m16n8k8_tf32)\n"
	"struct stir_mma_m16n8k8_tf32_a { unsigned r[4]; };\n"
	"struct stir_mma_m16n8k8_tf32_b { unsigned r[2]; };\n"
	"__device__ __forceinline__ void stir_mma_m16n8k8_tf32_load_a(stir_mma_m16n8k8_tf32_a &a, const float *p,\n"
	"    long long ld)\n"
	"{\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u;\n"
	"  for (int i = 0; i < 4; i++)\n"
	"    a.r[i] = stir_tf32(p[(g + 8 * (i & 1)) * ld + t + 4 * (i >> 1)]);\n"
	"}\n"
	"__device__ __forceinline__ void stir_mma_m16n8k8_tf32_load_a_t(stir_mma_m16n8k8_tf32_a &a,\n"
	"    const float *p, long long ld)\n"
	"{\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u;\n"
	"  for (int i = 0; i < 4; i++)\n"
	"    a.r[i] = stir_tf32(p[(t + 4 * (i >> 1)) * ld + g + 8 * (i & 1)]);\n"
	"}\n"
	"__device__ __forceinline__ void stir_mma_m16n8k8_tf32_load_b(stir_mma_m16n8k8_tf32_b &b, const float *p,\n"
	"    long long ld)\n"
	"{\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u;\n"
	"  for (int i = 0; i < 2; i++)\n"
	"    b.r[i] = stir_tf32(p[(t + 4 * i) * ld + g]);\n"
	"}\n"
	"__device__ __forceinline__ void stir_mma_m16n8k8_tf32_load_b_t(stir_mma_m16n8k8_tf32_b &b,\n"
	"    const float *p, long long ld)\n"
	"{\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u;\n"
	"  for (int i = 0; i < 2; i++)\n"
	"    b.r[i] = stir_tf32(p[g * ld + t + 4 * i]);\n"
	"}\n"
	"__device__ __forceinline__ void stir_mma_m16n8k8_tf32_mma(stir_mma_m16n8k8_tf32_acc &c, const stir_mma_m16n8k8_tf32_a &a,\n"
	"    const stir_mma_m16n8k8_tf32_b &b)\n"
	"{\n"
	"#ifdef STIR_EMU\n"
	"  stir_emu_mma_m16n8k8_tf32(c.r, a.r, b.r);\n"
	"#else\n"
	"  asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 \"\n"
	"    \"{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\"\n"
	"    : \"+f\"(c.r[0]), \"+f\"(c.r[1]), \"+f\"(c.r[2]), \"+f\"(c.r[3])\n"
	"    : \"r\"(a.r[0]), \"r\"(a.r[1]), \"r\"(a.r[2]), \"r\"(a.r[3]), \"r\"(b.r[0]),\n"
	"      \"r\"(b.r[1]));\n"
	"#endif\n"
	"}\n";

static const char prelude_ldsm[] =
	"// ldmatrix: 8x8 matrices of 16-bit elements from shared memory (the\n"
	"// _ldsm loads, for an operand in a shared buffer whose rows are 16-byte\n"
	"// aligned).  Lane l gives the address of row l % 8 of matrix l / 8\n"
	"// (lanes 0 to 15 for x2); register j of lane (g, t) receives row g,\n"
	"// columns 2t and 2t + 1 of matrix j, or with .trans column g, rows 2t\n"
	"// and 2t + 1.  The host emulation of the tests replaces them (STIR_EMU).\n"
	"// The place of element e of a swizzled buffer of pieces of vec elements:\n"
	"// piece c at c ^ (c / 8 % 8) (cuda_mma.c, cuda_mma_scan).\n"
	"__device__ __forceinline__ long long stir_swz(long long e, int vec)\n"
	"{\n"
	"  const long long c = e / vec;\n"
	"  return (c ^ ((c >> 3) & 7)) * vec + e % vec;\n"
	"}\n"
	"__device__ __forceinline__ void stir_ldsm_x4(unsigned *r, const void *p,\n"
	"    int trans)\n"
	"{\n"
	"#ifdef STIR_EMU\n"
	"  stir_emu_ldmatrix(r, 4, p, trans);\n"
	"#else\n"
	"  const unsigned s = (unsigned)__cvta_generic_to_shared(p);\n"
	"  if (trans)\n"
	"    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 \"\n"
	"      \"{%0, %1, %2, %3}, [%4];\"\n"
	"      : \"=r\"(r[0]), \"=r\"(r[1]), \"=r\"(r[2]), \"=r\"(r[3]) : \"r\"(s));\n"
	"  else\n"
	"    asm volatile(\"ldmatrix.sync.aligned.m8n8.x4.shared.b16 \"\n"
	"      \"{%0, %1, %2, %3}, [%4];\"\n"
	"      : \"=r\"(r[0]), \"=r\"(r[1]), \"=r\"(r[2]), \"=r\"(r[3]) : \"r\"(s));\n"
	"#endif\n"
	"}\n"
	"__device__ __forceinline__ void stir_ldsm_x2(unsigned *r, const void *p,\n"
	"    int trans)\n"
	"{\n"
	"#ifdef STIR_EMU\n"
	"  stir_emu_ldmatrix(r, 2, p, trans);\n"
	"#else\n"
	"  const unsigned s = (unsigned)__cvta_generic_to_shared(p);\n"
	"  if (trans)\n"
	"    asm volatile(\"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 \"\n"
	"      \"{%0, %1}, [%2];\" : \"=r\"(r[0]), \"=r\"(r[1]) : \"r\"(s));\n"
	"  else\n"
	"    asm volatile(\"ldmatrix.sync.aligned.m8n8.x2.shared.b16 \"\n"
	"      \"{%0, %1}, [%2];\" : \"=r\"(r[0]), \"=r\"(r[1]) : \"r\"(s));\n"
	"#endif\n"
	"}\n"
	"// The 16-bit m16n8k16 operands by ldmatrix (P_a and P_b of STIR_K16):\n"
	"// A's registers 0 to 3 are its 8x8 quarters (rows 0-7, 8-15) x\n"
	"// (columns 0-7, 8-15), row block first; B's are its rows 0-7 and 8-15,\n"
	"// transposed (_t: the operand stored transposed, the other ldmatrix).\n"
	"// The tile's element (r, c) is s[o + r * ld + c], at its place\n"
	"// stir_swz(.., 8) in a swizzled buffer (sw).\n"
	"#define STIR_K16_LDSM(P, T) \\\n"
	"__device__ __forceinline__ const T *P##_row(const T *s, long long e, int sw) \\\n"
	"{ \\\n"
	"  return s + (sw ? stir_swz(e, 8) : e); \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_ldsm_a(P##_a &a, const T *s, long long o, \\\n"
	"    long long ld, int sw) \\\n"
	"{ \\\n"
	"  const unsigned l = stir_lane(); \\\n"
	"  stir_ldsm_x4(a.r, P##_row(s, o + ((l & 7u) + 8u * ((l >> 3) & 1u)) * ld + \\\n"
	"    8u * (l >> 4), sw), 0); \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_ldsm_a_t(P##_a &a, const T *s, long long o, \\\n"
	"    long long ld, int sw) \\\n"
	"{ \\\n"
	"  const unsigned l = stir_lane(); \\\n"
	"  stir_ldsm_x4(a.r, P##_row(s, o + ((l & 7u) + 8u * (l >> 4)) * ld + \\\n"
	"    8u * ((l >> 3) & 1u), sw), 1); \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_ldsm_b(P##_b &b, const T *s, long long o, \\\n"
	"    long long ld, int sw) \\\n"
	"{ \\\n"
	"  stir_ldsm_x2(b.r, P##_row(s, o + (stir_lane() & 15u) * ld, sw), 1); \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_ldsm_b_t(P##_b &b, const T *s, long long o, \\\n"
	"    long long ld, int sw) \\\n"
	"{ \\\n"
	"  const unsigned l = stir_lane(); \\\n"
	"  stir_ldsm_x2(b.r, P##_row(s, o + (l & 7u) * ld + 8u * ((l >> 3) & 1u), sw), \\\n"
	"    0); \\\n"
	"}\n";

static const char prelude_cp_async_16[] =
	"// cp_async_16: a tile copied from global into shared memory in pieces of\n"
	"// 16 bytes (cp.async.cg: through L2, not L1), which the lanes of a warp\n"
	"// take in turn; stir_cp_async_wait waits for the lane's own pieces (a\n"
	"// barrier then shows them to the others).  A swizzled shared buffer\n"
	"// keeps its piece c (of vec elements) at piece c ^ (c / 8 % 8): the\n"
	"// rows an ldmatrix reads fall in distinct banks (stir_swz, put with the\n"
	"// ldmatrix loads).\n"
	"__device__ __forceinline__ void stir_cp_async_16(void *d, const void *s)\n"
	"{\n"
	"#ifdef STIR_EMU\n"
	"  memcpy(d, s, 16);\n"
	"#else\n"
	"  const unsigned a = (unsigned)__cvta_generic_to_shared(d);\n"
	"  asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\"\n"
	"    :: \"r\"(a), \"l\"(s) : \"memory\");\n"
	"#endif\n"
	"}\n"
	"__device__ __forceinline__ void stir_cp_async_wait(void)\n"
	"{\n"
	"#ifndef STIR_EMU\n"
	"  asm volatile(\"cp.async.commit_group;\\n\\tcp.async.wait_group 0;\"\n"
	"    ::: \"memory\");\n"
	"#endif\n"
	"}\n";

static const char prelude_rows[] =
	"// Rows one by one, for a row guard or the gathered rows of C\n"
	"// (ir/intrinsics.h): half h of lane (g, t)'s m16n8 accumulator is row\n"
	"// g + 8h, columns 2t and 2t + 1 (registers 2h and 2h + 1); p points at\n"
	"// the row's column 0.  A's register i of every m16n8 shape (loaded or\n"
	"// by ldmatrix) is in row g + 8 (i % 2): ok[i % 2] says whether its row\n"
	"// is read, or zero.\n"
	"template <class C> __device__ __forceinline__ void stir_rows_store(float *p,\n"
	"    const C &c, int h)\n"
	"{\n"
	"  const unsigned t = stir_lane() & 3u;\n"
	"  p[2 * t] = c.r[2 * h];\n"
	"  p[2 * t + 1] = c.r[2 * h + 1];\n"
	"}\n"
	"template <class C> __device__ __forceinline__ void stir_rows_add(float *p,\n"
	"    const C &c, int h)\n"
	"{\n"
	"  const unsigned t = stir_lane() & 3u;\n"
	"  p[2 * t] += c.r[2 * h];\n"
	"  p[2 * t + 1] += c.r[2 * h + 1];\n"
	"}\n"
	"template <class C> __device__ __forceinline__ void stir_rows_atomic_add(float *p,\n"
	"    const C &c, int h)\n"
	"{\n"
	"  const unsigned t = stir_lane() & 3u;\n"
	"  atomicAdd(&p[2 * t], c.r[2 * h]);\n"
	"  atomicAdd(&p[2 * t + 1], c.r[2 * h + 1]);\n"
	"}\n"
	"__device__ __forceinline__ void stir_rows_zero_a(unsigned *r, const bool *ok)\n"
	"{\n"
	"  for (int i = 0; i < 4; i++)\n"
	"    if (!ok[i & 1])\n"
	"      r[i] = 0u;\n"
	"}\n";

static const char prelude_rows_k16[] =
	"// A of the 16-bit m16n8k16 shapes with rows guarded (P_load_a of\n"
	"// STIR_K16; the rows where ok is false are zeros, not read).\n"
	"#define STIR_K16_ROWS(P, T) \\\n"
	"__device__ __forceinline__ void P##_load_a_rows(P##_a &a, const T *p, \\\n"
	"    long long ld, const bool *ok) \\\n"
	"{ \\\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u; \\\n"
	"  for (int i = 0; i < 4; i++) { \\\n"
	"    const long long r = g + 8 * (i & 1), c = 2 * t + 8 * (i >> 1); \\\n"
	"    a.r[i] = ok[i & 1] ? stir_pack2(stir_bits(p[r * ld + c]), \\\n"
	"      stir_bits(p[r * ld + c + 1])) : 0u; \\\n"
	"  } \\\n"
	"} \\\n"
	"__device__ __forceinline__ void P##_load_a_t_rows(P##_a &a, const T *p, \\\n"
	"    long long ld, const bool *ok) \\\n"
	"{ \\\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u; \\\n"
	"  for (int i = 0; i < 4; i++) { \\\n"
	"    const long long r = g + 8 * (i & 1), c = 2 * t + 8 * (i >> 1); \\\n"
	"    a.r[i] = ok[i & 1] ? stir_pack2(stir_bits(p[c * ld + r]), \\\n"
	"      stir_bits(p[(c + 1) * ld + r])) : 0u; \\\n"
	"  } \\\n"
	"}\n";

static const char prelude_rows_tf32[] =
	"// A of mma_m16n8k8_tf32 with rows guarded (the rows where ok is false\n"
	"// are zeros, not read)\n"
	"__device__ __forceinline__ void stir_mma_m16n8k8_tf32_load_a_rows(stir_mma_m16n8k8_tf32_a &a,\n"
	"    const float *p, long long ld, const bool *ok)\n"
	"{\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u;\n"
	"  for (int i = 0; i < 4; i++)\n"
	"    a.r[i] = ok[i & 1] ? stir_tf32(p[(g + 8 * (i & 1)) * ld + t + 4 * (i >> 1)]) : 0u;\n"
	"}\n"
	"__device__ __forceinline__ void stir_mma_m16n8k8_tf32_load_a_t_rows(stir_mma_m16n8k8_tf32_a &a,\n"
	"    const float *p, long long ld, const bool *ok)\n"
	"{\n"
	"  const unsigned g = stir_lane() >> 2, t = stir_lane() & 3u;\n"
	"  for (int i = 0; i < 4; i++)\n"
	"    a.r[i] = ok[i & 1] ? stir_tf32(p[(t + 4 * (i >> 1)) * ld + g + 8 * (i & 1)]) : 0u;\n"
	"}\n";

/* The rows' common text (stir_rows_*), put after the intrinsics' own
 * text when a nest is tensorized with a row guard or gathered rows. */
const char *cuda_mma_prelude_rows_common(void)
{
	return prelude_rows;
}

/* in: the text of intrinsic in's guarded loads of A (_load_a_rows), or
 * NULL for a copy. */
const char *cuda_mma_prelude_rows(const stir_intrinsic *in)
{
	if (!in)
		return NULL;
	if (!strcmp(in->name, "mma_m16n8k16_f16"))
		return prelude_rows_k16;
	if (!strcmp(in->name, "mma_m16n8k16_bf16"))
		return prelude_rows_k16;
	if (!strcmp(in->name, "mma_m16n8k8_tf32"))
		return prelude_rows_tf32;
	return NULL;
}

/* in: the line that instantiates the K16 guarded loads for intrinsic in,
 * or NULL when its text defines them itself. */
const char *cuda_mma_prelude_rows_inst(const stir_intrinsic *in)
{
	if (!in)
		return NULL;
	if (!strcmp(in->name, "mma_m16n8k16_f16"))
		return "STIR_K16_ROWS(stir_mma_m16n8k16_f16, __half)\n";
	if (!strcmp(in->name, "mma_m16n8k16_bf16"))
		return "STIR_K16_ROWS(stir_mma_m16n8k16_bf16, __nv_bfloat16)\n";
	return NULL;
}

/* The text every intrinsic needs first. */
const char *cuda_mma_prelude_common(void)
{
	return prelude_common;
}

/* in: the text of intrinsic "in", or NULL. */
const char *cuda_mma_prelude(const stir_intrinsic *in)
{
	if (!in)
		return NULL;
	if (!strcmp(in->name, "mma_m16n8k16_f16"))
		return prelude_mma_m16n8k16_f16;
	if (!strcmp(in->name, "mma_m16n8k16_bf16"))
		return prelude_mma_m16n8k16_bf16;
	if (!strcmp(in->name, "mma_m16n8k8_tf32"))
		return prelude_mma_m16n8k8_tf32;
	if (!strcmp(in->name, "cp_async_16"))
		return prelude_cp_async_16;
	return NULL;
}

/* The ldmatrix loads' common text, put after the intrinsics' own. */
const char *cuda_mma_prelude_ldsm_common(void)
{
	return prelude_ldsm;
}

/* in: the text of intrinsic "in"'s ldmatrix loads, or NULL when its
 * operands are not 16-bit. */
const char *cuda_mma_prelude_ldsm(const stir_intrinsic *in)
{
	if (!in)
		return NULL;
	if (!strcmp(in->name, "mma_m16n8k16_f16"))
		return "STIR_K16_LDSM(stir_mma_m16n8k16_f16, __half)\n";
	if (!strcmp(in->name, "mma_m16n8k16_bf16"))
		return "STIR_K16_LDSM(stir_mma_m16n8k16_bf16, __nv_bfloat16)\n";
	return NULL;
}
