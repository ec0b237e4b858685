/* stir: a sparse tensor compiler.  This header includes every public one. */
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

#endif
