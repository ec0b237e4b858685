/* Modules, their functions, and launches. */
#include <stdlib.h>
#include <string.h>
#include "ir/diag.h"
#include "runtime/internal.h"

/* Dynamic shared memory a block gets without opting in. */
#define DEFAULT_SHARED_LIMIT (48u << 10)

/* The most parameters asked of cuFuncGetParamInfo: kernel parameters take
 * at most 32764 bytes, so at most 8191 of 4 bytes. */
#define MAX_KPARAMS 8192

/* dev, code: load the code's cubin or PTX. */
stir_gpu_module *stir_gpu_module_load(stir_device *dev,
	const stir_gpu_code *code)
{
	if (!dev || !code)
		return NULL;
	stir_gpu_module *mod = calloc(1, sizeof(*mod));
	if (!mod)
		return stir_error_oom(dev->ctx);
	mod->name = strdup(stir_gpu_code_get_name(code));
	if (!mod->name) {
		free(mod);
		return stir_error_oom(dev->ctx);
	}
	if (stir_device_enter(dev) < 0) {
		free(mod->name);
		free(mod);
		return NULL;
	}
	cu_result r = stir_cu.ModuleLoadData(&mod->mod,
		stir_gpu_code_get_data(code));
	stir_device_leave(dev);
	if (r != CU_SUCCESS) {
		stir_diag *d = stir_cu_error(dev->ctx, r, "cuModuleLoadData");
		stir_diag_add_note(d, stir_loc_none(),
			"loading '%s' (%s) on device %d (%s, %s)", mod->name,
			stir_gpu_code_get_arch(code), dev->ordinal, dev->name,
			dev->arch);
		free(mod->name);
		free(mod);
		return NULL;
	}
	mod->dev = stir_device_ref(dev);
	return mod;
}

/* f: a function whose memory is released (the driver handle belongs to
 * the module). */
static void func_free(stir_gpu_func *f)
{
	if (!f)
		return;
	free(f->kparam_size);
	free(f->name);
	free(f);
}

/* mod: the module to unload with its functions. */
void stir_gpu_module_free(stir_gpu_module *mod)
{
	if (!mod)
		return;
	stir_device *dev = mod->dev;
	if (stir_device_enter(dev) == 0) {
		stir_cu_check(dev->ctx, stir_cu.ModuleUnload(mod->mod),
			"cuModuleUnload");
		stir_device_leave(dev);
	}
	for (int i = 0; i < mod->n_funcs; i++)
		func_free(mod->funcs[i]);
	free(mod->funcs);
	free(mod->name);
	free(mod);
	stir_device_free(dev);
}

/* mod, name: find (or look up and remember) the kernel "name". */
stir_gpu_func *stir_gpu_module_get_func(stir_gpu_module *mod,
	const char *name)
{
	if (!mod)
		return NULL;
	stir_ctx *ctx = mod->dev->ctx;
	if (!name) {
		stir_error(ctx, stir_loc_none(), "no kernel name given");
		return NULL;
	}
	for (int i = 0; i < mod->n_funcs; i++)
		if (!strcmp(mod->funcs[i]->name, name))
			return mod->funcs[i];
	cu_function f;
	if (stir_device_enter(mod->dev) < 0)
		return NULL;
	cu_result r = stir_cu.ModuleGetFunction(&f, mod->mod, name);
	stir_device_leave(mod->dev);
	if (r == CU_ERROR_NOT_FOUND) {
		stir_diag *d = stir_error(ctx, stir_loc_none(),
			"module '%s' has no kernel '%s'", mod->name, name);
		stir_diag_add_note(d, stir_loc_none(),
			"kernels are found by their extern \"C\" names");
		return NULL;
	}
	if (stir_cu_check(ctx, r, "cuModuleGetFunction"))
		return NULL;
	stir_gpu_func **v = realloc(mod->funcs,
		(size_t)(mod->n_funcs + 1) * sizeof(*v));
	if (!v)
		return stir_error_oom(ctx);
	mod->funcs = v;
	stir_gpu_func *fn = calloc(1, sizeof(*fn));
	if (!fn || !(fn->name = strdup(name))) {
		free(fn);
		return stir_error_oom(ctx);
	}
	fn->mod = mod;
	fn->f = f;
	fn->n_kparams = -2;
	mod->funcs[mod->n_funcs++] = fn;
	return fn;
}

/* func: the function; its name. */
const char *stir_gpu_func_get_name(const stir_gpu_func *func)
{
	return func ? func->name : NULL;
}

/* func: learn the sizes of the kernel's parameters from the driver, once.
 * Must run inside stir_device_enter.  Leaves n_kparams at -1 when the
 * driver cannot tell (no cuFuncGetParamInfo, or an unexpected error). */
static void query_kparams(stir_gpu_func *func)
{
	if (func->n_kparams != -2)
		return;
	func->n_kparams = -1;
	if (!stir_cu.FuncGetParamInfo)
		return;
	size_t cap = 0, *sizes = NULL;
	for (size_t i = 0; i < MAX_KPARAMS; i++) {
		size_t offset, size;
		cu_result r = stir_cu.FuncGetParamInfo(func->f, i, &offset,
			&size);
		/* an index past the last parameter is an invalid value:
		 * that is how the count is learnt */
		if (r == CU_ERROR_INVALID_VALUE) {
			func->kparam_size = sizes;
			func->n_kparams = (int)i;
			return;
		}
		if (r != CU_SUCCESS)
			break;
		if (i == cap) {
			cap = cap ? 2 * cap : 8;
			size_t *v = realloc(sizes, cap * sizeof(*v));
			if (!v)
				break;
			sizes = v;
		}
		sizes[i] = size;
	}
	free(sizes);
}

/* func, args: compare the pack's signature with the kernel's parameters as
 * the driver describes them.  0 when they agree or the driver cannot tell,
 * -1 with an error otherwise. */
static int check_kparams(stir_gpu_func *func, const stir_arg_pack *args)
{
	stir_ctx *ctx = func->mod->dev->ctx;
	query_kparams(func);
	if (func->n_kparams < 0)
		return 0;
	int n = args ? stir_arg_pack_n_params(args) : 0;
	if (n != func->n_kparams) {
		stir_error(ctx, stir_loc_none(), "cannot launch '%s': the "
			"kernel takes %d parameters, the arguments are for %d",
			func->name, func->n_kparams, n);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		stir_arg_type t = stir_arg_pack_get_param_type(args, i);
		if (stir_arg_type_size(t) == func->kparam_size[i])
			continue;
		stir_error(ctx, stir_loc_none(), "cannot launch '%s': "
			"parameter %d takes %zu bytes, but argument '%s' is %s",
			func->name, i, func->kparam_size[i],
			stir_arg_pack_get_param_name(args, i),
			stir_arg_type_get_name(t));
		return -1;
	}
	return 0;
}

/* func, cfg: check the launch shape; dims receives grid then block with
 * zeros in y and z made 1.  0 or -1. */
static int launch_dims(stir_gpu_func *func, const stir_launch_config *cfg,
	unsigned dims[6])
{
	for (int i = 0; i < 3; i++) {
		dims[i] = cfg->grid[i];
		dims[3 + i] = cfg->block[i];
		if (i > 0 && dims[i] == 0)
			dims[i] = 1;
		if (i > 0 && dims[3 + i] == 0)
			dims[3 + i] = 1;
	}
	if (dims[0] == 0 || dims[3] == 0) {
		stir_error(func->mod->dev->ctx, stir_loc_none(),
			"cannot launch '%s' with %s of 0 in x", func->name,
			dims[0] == 0 ? "a grid" : "a block");
		return -1;
	}
	return 0;
}

/* func, shared: opt the function in to "shared" bytes of dynamic shared
 * memory when that is above the default limit.  Inside enter.  0 or -1. */
static int opt_in_shared(stir_gpu_func *func, unsigned shared)
{
	stir_device *dev = func->mod->dev;
	if (shared <= DEFAULT_SHARED_LIMIT || shared <= func->shared_optin)
		return 0;
	if (dev->max_shared_optin >= 0 &&
	    shared > (unsigned)dev->max_shared_optin) {
		stir_error(dev->ctx, stir_loc_none(), "cannot launch '%s' "
			"with %u bytes of dynamic shared memory: %s allows %d",
			func->name, shared, dev->name, dev->max_shared_optin);
		return -1;
	}
	if (stir_cu_check(dev->ctx, stir_cu.FuncSetAttribute(func->f,
			CU_FUNC_ATTR_MAX_DYNAMIC_SHARED, (int)shared),
			"cuFuncSetAttribute"))
		return -1;
	func->shared_optin = shared;
	return 0;
}

/* func, cfg, args: check everything, then queue the kernel. */
int stir_gpu_func_launch(stir_gpu_func *func, const stir_launch_config *cfg,
	const stir_arg_pack *args)
{
	if (!func)
		return -1;
	stir_device *dev = func->mod->dev;
	unsigned d[6];
	if (!cfg) {
		stir_error(dev->ctx, stir_loc_none(),
			"cannot launch '%s' without a launch configuration",
			func->name);
		return -1;
	}
	if (launch_dims(func, cfg, d) < 0)
		return -1;
	if (args && stir_arg_pack_check_for(args, dev->ctx, func->name) < 0)
		return -1;
	cu_stream s = NULL;
	if (cfg->stream) {
		if (cfg->stream->dev->cudev != dev->cudev) {
			stir_error(dev->ctx, stir_loc_none(), "cannot launch "
				"'%s' on a stream of another device",
				func->name);
			return -1;
		}
		s = cfg->stream->s;
	}
	int entered = stir_device_enter_hot(dev);
	if (entered < 0)
		return -1;
	int r = check_kparams(func, args);
	if (r == 0)
		r = opt_in_shared(func, cfg->shared_bytes);
	if (r == 0) {
		void **params = args ? stir_arg_pack_get_kernel_params(args) :
			NULL;
		stir_diag *e = NULL;
		cu_result cr;
		if (cfg->overlap && dev->cc_major >= 9 && stir_cu.LaunchKernelEx) {
			cu_launch_attr at = {
				.id = CU_LAUNCH_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION };
			at.value.i = 1;
			cu_launch_config lc = { { d[0], d[1], d[2] },
				{ d[3], d[4], d[5] }, cfg->shared_bytes, s, &at, 1 };
			cr = stir_cu.LaunchKernelEx(&lc, func->f, params, NULL);
		} else {
			cr = stir_cu.LaunchKernel(func->f, d[0], d[1], d[2], d[3],
				d[4], d[5], cfg->shared_bytes, s, params, NULL);
		}
		if (cr != CU_SUCCESS) {
			e = stir_cu_error(dev->ctx, cr, "cuLaunchKernel");
			stir_diag_add_note(e, stir_loc_none(), "launching '%s' "
				"with grid (%u, %u, %u), block (%u, %u, %u) and "
				"%u bytes of dynamic shared memory",
				func->name, d[0], d[1], d[2], d[3], d[4], d[5],
				cfg->shared_bytes);
			r = -1;
		}
	}
	stir_device_leave_hot(dev, entered);
	return r;
}
