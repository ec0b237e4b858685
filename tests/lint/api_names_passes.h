/* A sample for tests/lint/api_names.sh, read as a header of passes: a pass
 * is stir_<pass>(k, ..), never stir_kernel_<pass>.  Not compiled. */
#define STIR_EXPORT
STIR_EXPORT int stir_kernel_lift_guards(__stir_keep stir_kernel *k);
/* kept */
STIR_EXPORT int stir_lift_guards(__stir_keep stir_kernel *k);
