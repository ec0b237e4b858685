/* Kernel arguments bound by name.
 *
 * cuLaunchKernel takes an array of pointers to the argument values in
 * parameter order and trusts it blindly: a missing, misplaced or mistyped
 * argument is a wrong result or a crash on the GPU.  The pack holds the
 * signature (names and types in order, as the code generator emitted
 * them), lets callers set values by name, and refuses to produce the array
 * until every parameter has a value of its declared type. */
#include <stdlib.h>
#include <string.h>
#include "ir/diag.h"
#include "runtime/internal.h"

/* One parameter and its value. */
typedef struct arg_slot {
	char *name;            /* owned */
	stir_arg_type type;    /* declared type */
	bool set;              /* a value was set since the last clear */
	union {                /* the value, at offset 0 whatever its type */
		uint64_t u64;
		int64_t i64;
		uint32_t u32;
		int32_t i32;
		float f32;
		double f64;
	} v;
} arg_slot;

struct stir_arg_pack {
	stir_ctx *ctx;         /* borrowed: receives errors of set and check */
	int n;                 /* number of parameters */
	arg_slot *slots;       /* owned, n entries */
	void **kparams;        /* owned, n pointers into slots[i].v */
	bool bad;              /* sticky: a set failed since the last clear */
};

/* The names and sizes of the types, indexed by stir_arg_type. */
static const struct {
	const char *name;
	size_t size;
} arg_types[] = {
	[STIR_ARG_NONE] = { "none", 0 },
	[STIR_ARG_PTR] = { "ptr", 8 },
	[STIR_ARG_I32] = { "i32", 4 },
	[STIR_ARG_U32] = { "u32", 4 },
	[STIR_ARG_I64] = { "i64", 8 },
	[STIR_ARG_U64] = { "u64", 8 },
	[STIR_ARG_F32] = { "f32", 4 },
	[STIR_ARG_F64] = { "f64", 8 },
};

#define N_ARG_TYPES (int)(sizeof(arg_types) / sizeof(arg_types[0]))

/* t: a type; is it one of the parameter types? */
static bool type_is_valid(stir_arg_type t)
{
	return (int)t > STIR_ARG_NONE && (int)t < N_ARG_TYPES;
}

/* t: the type to name. */
const char *stir_arg_type_get_name(stir_arg_type t)
{
	return type_is_valid(t) ? arg_types[t].name : "?";
}

/* t: the type to measure. */
size_t stir_arg_type_size(stir_arg_type t)
{
	return type_is_valid(t) ? arg_types[t].size : 0;
}

/* pack: the pack to free with its names and values. */
void stir_arg_pack_free(stir_arg_pack *pack)
{
	if (!pack)
		return;
	for (int i = 0; i < pack->n; i++)
		free(pack->slots[i].name);
	free(pack->slots);
	free(pack->kparams);
	free(pack);
}

/* ctx, n_params, params: the signature, checked then copied. */
stir_arg_pack *stir_arg_pack_alloc(stir_ctx *ctx,
	int n_params, const stir_gpu_param *params)
{
	if (n_params < 0 || (n_params > 0 && !params)) {
		stir_error(ctx, stir_loc_none(),
			"invalid kernel signature of %d parameters", n_params);
		return NULL;
	}
	for (int i = 0; i < n_params; i++) {
		if (!params[i].name || !params[i].name[0]) {
			stir_error(ctx, stir_loc_none(),
				"kernel parameter %d has no name", i);
			return NULL;
		}
		if (!type_is_valid(params[i].type)) {
			stir_error(ctx, stir_loc_none(),
				"kernel parameter '%s' has no valid type",
				params[i].name);
			return NULL;
		}
		for (int j = 0; j < i; j++) {
			if (!strcmp(params[i].name, params[j].name)) {
				stir_error(ctx, stir_loc_none(),
					"kernel parameter '%s' is declared "
					"twice", params[i].name);
				return NULL;
			}
		}
	}
	stir_arg_pack *pack = calloc(1, sizeof(*pack));
	if (!pack)
		return stir_error_oom(ctx);
	pack->ctx = ctx;
	/* calloc(0) may return NULL: allocate at least one slot */
	pack->slots = calloc((size_t)n_params + 1, sizeof(*pack->slots));
	pack->kparams = calloc((size_t)n_params + 1, sizeof(*pack->kparams));
	if (!pack->slots || !pack->kparams) {
		stir_arg_pack_free(pack);
		return stir_error_oom(ctx);
	}
	for (int i = 0; i < n_params; i++) {
		pack->slots[i].name = strdup(params[i].name);
		if (!pack->slots[i].name) {
			stir_arg_pack_free(pack);
			return stir_error_oom(ctx);
		}
		pack->n = i + 1;
		pack->slots[i].type = params[i].type;
		pack->kparams[i] = &pack->slots[i].v;
	}
	return pack;
}

/* pack: the pack; its number of parameters. */
int stir_arg_pack_n_params(const stir_arg_pack *pack)
{
	return pack ? pack->n : 0;
}

/* pack, i: the name of parameter i, or NULL. */
const char *stir_arg_pack_get_param_name(const stir_arg_pack *pack, int i)
{
	return pack && i >= 0 && i < pack->n ? pack->slots[i].name : NULL;
}

/* pack, i: the type of parameter i, or STIR_ARG_NONE. */
stir_arg_type stir_arg_pack_get_param_type(const stir_arg_pack *pack, int i)
{
	return pack && i >= 0 && i < pack->n ? pack->slots[i].type :
		STIR_ARG_NONE;
}

/* pack, d: attach the pack's signature to d as a note. */
static void note_signature(const stir_arg_pack *pack, stir_diag *d)
{
	size_t len = 3;
	for (int i = 0; i < pack->n; i++)
		len += strlen(pack->slots[i].name) + 8;
	char *s = malloc(len);
	if (!s)
		return;
	char *p = s;
	*p++ = '(';
	for (int i = 0; i < pack->n; i++)
		p += sprintf(p, "%s%s %s", i ? ", " : "",
			stir_arg_type_get_name(pack->slots[i].type),
			pack->slots[i].name);
	*p++ = ')';
	*p = '\0';
	stir_diag_add_note(d, stir_loc_none(), "the kernel's parameters are %s",
		s);
	free(s);
}

/* pack, name, type: the slot that a value of "type" for "name" goes to,
 * or NULL (with an error, and the pack marked bad) when there is no such
 * parameter or it has another type. */
static arg_slot *find_slot(stir_arg_pack *pack, const char *name,
	stir_arg_type type)
{
	if (!pack)
		return NULL;
	for (int i = 0; name && i < pack->n; i++) {
		arg_slot *s = &pack->slots[i];
		if (strcmp(s->name, name))
			continue;
		if (s->type == type)
			return s;
		/* unset it too, so that the stale value cannot be used */
		s->set = false;
		pack->bad = true;
		stir_error(pack->ctx, stir_loc_none(),
			"kernel argument '%s' is %s, not %s", name,
			stir_arg_type_get_name(s->type), stir_arg_type_get_name(type));
		return NULL;
	}
	pack->bad = true;
	stir_diag *d = stir_error(pack->ctx, stir_loc_none(),
		"no kernel parameter named '%s'", name ? name : "(null)");
	note_signature(pack, d);
	return NULL;
}

/* The setters: find the slot, store the value at the union's start. */
#define DEFINE_SETTER(suffix, ctype, type, field) \
	int stir_arg_pack_set_##suffix(stir_arg_pack *pack, \
		const char *name, ctype v) \
	{ \
		arg_slot *s = find_slot(pack, name, type); \
		if (!s) \
			return -1; \
		memset(&s->v, 0, sizeof(s->v)); \
		s->v.field = v; \
		s->set = true; \
		return 0; \
	}

/* pack, name, v: set pointer parameter "name" to the address v. */
DEFINE_SETTER(ptr, uint64_t, STIR_ARG_PTR, u64)
/* pack, name, v: set int parameter "name". */
DEFINE_SETTER(i32, int32_t, STIR_ARG_I32, i32)
/* pack, name, v: set unsigned int parameter "name". */
DEFINE_SETTER(u32, uint32_t, STIR_ARG_U32, u32)
/* pack, name, v: set 64-bit integer parameter "name". */
DEFINE_SETTER(i64, int64_t, STIR_ARG_I64, i64)
/* pack, name, v: set unsigned 64-bit parameter "name". */
DEFINE_SETTER(u64, uint64_t, STIR_ARG_U64, u64)
/* pack, name, v: set float parameter "name". */
DEFINE_SETTER(f32, float, STIR_ARG_F32, f32)
/* pack, name, v: set double parameter "name". */
DEFINE_SETTER(f64, double, STIR_ARG_F64, f64)

/* pack, name, buf: set pointer parameter "name" to buf's address. */
int stir_arg_pack_set_buf(stir_arg_pack *pack, const char *name,
	const stir_gpu_buf *buf)
{
	if (!pack)
		return -1;
	if (!buf) {
		pack->bad = true;
		stir_error(pack->ctx, stir_loc_none(),
			"kernel argument '%s' set to a NULL buffer",
			name ? name : "(null)");
		return -1;
	}
	return stir_arg_pack_set_ptr(pack, name, stir_gpu_buf_get_ptr(buf));
}

/* pack: forget every value and the failed sets. */
void stir_arg_pack_clear(stir_arg_pack *pack)
{
	if (!pack)
		return;
	for (int i = 0; i < pack->n; i++)
		pack->slots[i].set = false;
	pack->bad = false;
}

/* pack, ctx, kernel: see internal.h. */
int stir_arg_pack_check_for(const stir_arg_pack *pack, stir_ctx *ctx,
	const char *kernel)
{
	int r = 0;
	if (pack->bad) {
		if (kernel)
			stir_error(ctx, stir_loc_none(), "cannot launch '%s': "
				"setting one of its arguments failed", kernel);
		else
			stir_error(ctx, stir_loc_none(), "setting one of the "
				"kernel arguments failed");
		r = -1;
	}
	for (int i = 0; i < pack->n; i++) {
		const arg_slot *s = &pack->slots[i];
		if (s->set)
			continue;
		if (kernel)
			stir_error(ctx, stir_loc_none(), "cannot launch '%s': "
				"argument '%s' (%s) is not set", kernel,
				s->name, stir_arg_type_get_name(s->type));
		else
			stir_error(ctx, stir_loc_none(), "kernel argument "
				"'%s' (%s) is not set", s->name,
				stir_arg_type_get_name(s->type));
		r = -1;
	}
	return r;
}

/* pack: the pack to check, reporting into its own context. */
int stir_arg_pack_verify(const stir_arg_pack *pack)
{
	if (!pack)
		return -1;
	return stir_arg_pack_check_for(pack, pack->ctx, NULL);
}

/* pack: whose value pointers cuLaunchKernel receives. */
void **stir_arg_pack_get_kernel_params(const stir_arg_pack *pack)
{
	return pack->kparams;
}

/* pack, i, v: set pointer parameter i (in signature order) to address v,
 * without looking its name up (see runtime.h). */
int stir_arg_pack_set_ptr_at(stir_arg_pack *pack, int i, uint64_t v)
{
	if (!pack)
		return -1;
	if (i < 0 || i >= pack->n || pack->slots[i].type != STIR_ARG_PTR) {
		/* as find_slot: a failed set marks the pack and unsets the
		 * parameter, so that a stale value cannot be used */
		if (i >= 0 && i < pack->n)
			pack->slots[i].set = false;
		pack->bad = true;
		if (i < 0 || i >= pack->n)
			stir_error(pack->ctx, stir_loc_none(), "no kernel "
				"parameter %d (the kernel has %d)", i, pack->n);
		else
			stir_error(pack->ctx, stir_loc_none(), "kernel argument "
				"'%s' is %s, not ptr", pack->slots[i].name,
				stir_arg_type_get_name(pack->slots[i].type));
		return -1;
	}
	arg_slot *s = &pack->slots[i];
	memset(&s->v, 0, sizeof(s->v));
	s->v.u64 = v;
	s->set = true;
	return 0;
}
