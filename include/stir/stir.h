/* stir: a sparse tensor compiler.  This header includes every public one.
 *
 * Naming convention of the public API (every header follows it):
 *
 * Nouns.  A name is stir_<object>_<verb>: the object is the type the
 *   function works on and takes first (stir_kernel_add_param(k, ..)).
 *   One word means one thing:
 *   - a size parameter is a stir_var of a kernel (stir_kernel_get_param);
 *     a parameter of a compiled GPU function is a stir_gpu_param, and a
 *     value given to one is an argument (stir_arg_pack);
 *   - a recipe's configuration is a candidate (stir_spmm_hybrid_candidate,
 *     stir_sddmm_get_candidate), never "params";
 *   - a format rule (stir_format_rule, made by stir_format_rule_ell ..)
 *     tells stir_decompose_format how to rewrite a kernel; a host format
 *     (stir_host_format, made by stir_csr_to_ell ..) is the arrays of a
 *     format built on the host and bound into a stir_bindings.
 * Verbs.
 *   - Lifecycle: an object the caller owns (__stir_give) is made by
 *     _alloc, or by a verb that says how it is made (_copy, _compile,
 *     _load, _read_from_*, stir_csr_to_*), and always released by _free;
 *     there is no create/destroy or open/close.
 *   - A node the caller does not own (__stir_keep: it belongs to its
 *     module or its parent) is made by _add (stir_module_add_kernel,
 *     stir_kernel_add_tensor) or by a constructor named for the node
 *     (stir_expr_int, stir_stmt_store ..), never by _alloc.
 *   - Readers: _read_from_file(ctx, path) and _read_from_mem(ctx, name,
 *     data, len), "name" naming the text in diagnostics; writers _write
 *     to a path (stir_npy_write), _print to a FILE *
 *     (stir_kernel_print_schedule).
 *   - Accessors: _get_ and _set_, _is_ for a bool, _n_ for a count with
 *     _get_ for item i (stir_kernel_n_params, stir_kernel_get_param),
 *     _find_ for a lookup by name that may give NULL, _to_str for text the
 *     caller frees (_to_cuda for its CUDA C), _verify for a check that
 *     reports (stir_kernel_verify_bindings).  The functions of an enum
 *     value are accessors too (stir_dtype_get_size).
 *   - Passes and schedule primitives are stir_<pass>(k, ..) and take the
 *     kernel they rewrite (stir_split, stir_lower_sparse_iter,
 *     stir_insert_barriers), never stir_kernel_<pass>; the form that runs
 *     one over every kernel of a module is stir_module_<pass>.
 * Argument order.  The object first (or the context, for functions that
 *   make an object from nothing).  A counted array of elements comes as
 *   its count then the array, (n, array), as in stir_split(k, block,
 *   loop, n, factors) and stir_csr_to_hybrid(.., c, nbuckets, buckets,
 *   ..); a span of bytes or text comes as the pointer then its length,
 *   (data, len), as the C library's fwrite and memcpy take it.
 */
#ifndef STIR_STIR_H
#define STIR_STIR_H

#include <stir/ctx.h>
#include <stir/array.h>
#include <stir/ir.h>
#include <stir/lang.h>
#include <stir/io.h>
#include <stir/formats.h>
#include <stir/interp.h>
#include <stir/passes.h>
#include <stir/pipeline.h>
#include <stir/runtime.h>
#include <stir/schedule.h>
#include <stir/codegen.h>
#include <stir/recipes.h>
#include <stir/tune.h>

#endif
