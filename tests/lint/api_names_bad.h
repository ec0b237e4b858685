/* A sample for tests/lint/api_names.sh: every declaration below breaks one
 * rule of the naming convention (include/stir/stir.h), the one its comment
 * names, except the last three, which keep them.  Not compiled. */
#define STIR_EXPORT
/* lifecycle */
STIR_EXPORT __stir_give stir_thing *stir_thing_create(stir_ctx *ctx);
/* alloc-borrowed */
STIR_EXPORT __stir_keep stir_node *stir_kernel_alloc_node(stir_kernel *k);
/* get-owned */
STIR_EXPORT __stir_give stir_thing *stir_thing_get_copy(
	__stir_keep const stir_thing *t);
/* reader */
STIR_EXPORT __stir_give stir_module *stir_module_from_str(stir_ctx *ctx,
	const char *text);
/* count */
STIR_EXPORT int stir_thing_count(__stir_keep const stir_thing *t);
/* check */
STIR_EXPORT int stir_thing_check(__stir_keep const stir_thing *t);
/* bool */
STIR_EXPORT bool stir_thing_similar(const stir_thing *a,
	const stir_thing *b);
/* params */
typedef struct stir_thing_params {
	int n;
} stir_thing_params;
/* array-count */
STIR_EXPORT int stir_thing_fill(__stir_keep stir_thing *t,
	const int64_t *values, int n, bool last);
/* kept: an array and a count whose own array follows */
STIR_EXPORT int stir_thing_pair(__stir_keep stir_thing *t, int n,
	const int64_t *keys, int nv, const int64_t *values);
/* kept: a bool accessor, a predicate */
STIR_EXPORT bool stir_thing_is_empty(__stir_keep const stir_thing *t);
STIR_EXPORT bool stir_thing_fits(__stir_keep const stir_thing *t, int n);
