/* Devices, device memory, streams and events.
 *
 * Every public function that calls the driver brackets the calls with
 * stir_device_enter/leave, which push and pop the device's primary
 * context: the calling thread's current context is the same before and
 * after, whatever it was, so stir can share a process with the CUDA
 * runtime (PyTorch, CuPy) without disturbing it.  A launch brackets with
 * stir_device_enter_hot/leave_hot, which push nothing when the primary
 * context is current already (as it is on a PyTorch thread). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ir/diag.h"
#include "runtime/internal.h"

/* The size of the buffer written to evict the L2 cache: several times the
 * 50 to 60 MB L2 of an H100 or H200. */
#define L2_FLUSH_BYTES ((size_t)256 << 20)

/* ctx: receives the error.  The number of devices, or -1. */
int stir_ctx_n_devices(stir_ctx *ctx)
{
	if (stir_cu_load(ctx) < 0)
		return -1;
	int n = 0;
	if (stir_cu_check(ctx, stir_cu.DeviceGetCount(&n), "cuDeviceGetCount"))
		return -1;
	return n;
}

/* dev: the device whose properties are read into its fields.  0 or -1. */
static int query_properties(stir_device *dev)
{
	stir_ctx *ctx = dev->ctx;
	if (stir_cu_check(ctx, stir_cu.DeviceGetName(dev->name,
			(int)sizeof(dev->name), dev->cudev), "cuDeviceGetName") ||
	    stir_cu_check(ctx, stir_cu.DeviceGetAttribute(&dev->cc_major,
			CU_ATTR_CC_MAJOR, dev->cudev), "cuDeviceGetAttribute") ||
	    stir_cu_check(ctx, stir_cu.DeviceGetAttribute(&dev->cc_minor,
			CU_ATTR_CC_MINOR, dev->cudev), "cuDeviceGetAttribute") ||
	    stir_cu_check(ctx, stir_cu.DeviceGetAttribute(
			&dev->max_shared_optin,
			CU_ATTR_MAX_SHARED_PER_BLOCK_OPTIN, dev->cudev),
			"cuDeviceGetAttribute") ||
	    stir_cu_check(ctx, stir_cu.DeviceTotalMem(&dev->total_mem,
			dev->cudev), "cuDeviceTotalMem"))
		return -1;
	dev->name[sizeof(dev->name) - 1] = '\0';
	snprintf(dev->arch, sizeof(dev->arch), "sm_%d%d", dev->cc_major,
		dev->cc_minor);
	return 0;
}

/* ctx: receives every diagnostic about the device; ordinal: which one. */
stir_device *stir_device_alloc(stir_ctx *ctx, int ordinal)
{
	if (stir_cu_load(ctx) < 0)
		return NULL;
	stir_device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return stir_error_oom(ctx);
	dev->refs = 1;
	dev->ctx = ctx;
	dev->ordinal = ordinal;
	if (stir_cu_check(ctx, stir_cu.DeviceGet(&dev->cudev, ordinal),
			"cuDeviceGet") ||
	    query_properties(dev) < 0 ||
	    stir_cu_check(ctx, stir_cu.DevicePrimaryCtxRetain(&dev->pctx,
			dev->cudev), "cuDevicePrimaryCtxRetain")) {
		free(dev);
		return NULL;
	}
	return dev;
}

/* ctx: receives the error; ordinal: which device; buf, size: receive its
 * name.  The driver's calls only, no context: what a tuning record's key
 * needs, without the time a context takes to make. */
int stir_ctx_get_device_name(stir_ctx *ctx, int ordinal, char *buf, size_t size)
{
	cu_device cudev;
	if (!buf || size < 2 || size > 0x7fffffff)
		return -1;
	if (stir_cu_load(ctx) < 0 ||
	    stir_cu_check(ctx, stir_cu.DeviceGet(&cudev, ordinal),
			"cuDeviceGet") ||
	    stir_cu_check(ctx, stir_cu.DeviceGetName(buf, (int)size, cudev),
			"cuDeviceGetName"))
		return -1;
	buf[size - 1] = '\0';
	return 0;
}

/* dev: the device to keep alive once more. */
stir_device *stir_device_ref(stir_device *dev)
{
	dev->refs++;
	return dev;
}

/* dev: drop one reference; the last one frees the flush buffer and
 * releases the primary context. */
void stir_device_free(stir_device *dev)
{
	if (!dev || --dev->refs > 0)
		return;
	if (dev->l2_buf && stir_device_enter(dev) == 0) {
		stir_cu_check(dev->ctx, stir_cu.MemFree(dev->l2_buf),
			"cuMemFree");
		stir_device_leave(dev);
	}
	stir_cu_check(dev->ctx, stir_cu.DevicePrimaryCtxRelease(dev->cudev),
		"cuDevicePrimaryCtxRelease");
	free(dev);
}

/* dev: the device whose primary context becomes current. */
int stir_device_enter(stir_device *dev)
{
	return stir_cu_check(dev->ctx, stir_cu.CtxPushCurrent(dev->pctx),
		"cuCtxPushCurrent");
}

/* dev: the device entered last. */
void stir_device_leave(stir_device *dev)
{
	cu_context popped;
	stir_cu_check(dev->ctx, stir_cu.CtxPopCurrent(&popped),
		"cuCtxPopCurrent");
}

/* dev: see internal.h.  cuCtxGetCurrent reads the thread's current
 * context without changing it: far less than a push and a pop. */
int stir_device_enter_hot(stir_device *dev)
{
	cu_context cur = NULL;
	if (stir_cu.CtxGetCurrent && stir_cu.CtxGetCurrent(&cur) ==
	    CU_SUCCESS && cur && cur == dev->pctx)
		return 0;
	return stir_device_enter(dev) < 0 ? -1 : 1;
}

/* dev, entered: see internal.h. */
void stir_device_leave_hot(stir_device *dev, int entered)
{
	if (entered > 0)
		stir_device_leave(dev);
}

/* dev: the device (NULL gives NULL: failures propagate through getters
 * as through every function here); its diagnostic context. */
stir_ctx *stir_device_get_ctx(const stir_device *dev)
{
	return dev ? dev->ctx : NULL;
}

/* dev: the device; its name as the driver gives it. */
const char *stir_device_get_name(const stir_device *dev)
{
	return dev ? dev->name : NULL;
}

/* dev: the device; its compute capability as "sm_XY". */
const char *stir_device_get_arch(const stir_device *dev)
{
	return dev ? dev->arch : NULL;
}

/* dev: the device; major, minor: receive its compute capability. */
void stir_device_get_compute_capability(const stir_device *dev, int *major,
	int *minor)
{
	if (major)
		*major = dev ? dev->cc_major : 0;
	if (minor)
		*minor = dev ? dev->cc_minor : 0;
}

/* dev: the device; its global memory in bytes. */
size_t stir_device_get_total_mem(const stir_device *dev)
{
	return dev ? dev->total_mem : 0;
}

/* dev: a device, proof that the driver is loaded; the driver's version. */
int stir_device_get_driver_version(const stir_device *dev)
{
	return dev ? stir_cu.driver_version : 0;
}

/* dev: the device to wait for. */
int stir_device_synchronize(stir_device *dev)
{
	if (!dev || stir_device_enter(dev) < 0)
		return -1;
	int r = stir_cu_check(dev->ctx, stir_cu.CtxSynchronize(),
		"cuCtxSynchronize");
	stir_device_leave(dev);
	return r;
}

/* dev, stream: check that "stream" (NULL for the default) belongs to
 * "dev"; returns the driver's stream handle through *s.  0 or -1. */
static int stream_of(stir_device *dev, stir_stream *stream, cu_stream *s)
{
	*s = NULL;
	if (!stream)
		return 0;
	if (stream->dev->cudev != dev->cudev) {
		stir_error(dev->ctx, stir_loc_none(),
			"a stream of device %d used on device %d",
			stream->dev->ordinal, dev->ordinal);
		return -1;
	}
	*s = stream->s;
	return 0;
}

/* dev, stream: write the flush buffer, allocating it the first time. */
int stir_device_flush_l2(stir_device *dev, stir_stream *stream)
{
	cu_stream s;
	if (!dev || stream_of(dev, stream, &s) < 0 ||
	    stir_device_enter(dev) < 0)
		return -1;
	int r = 0;
	if (!dev->l2_buf) {
		r = stir_cu_check(dev->ctx, stir_cu.MemAlloc(&dev->l2_buf,
			L2_FLUSH_BYTES), "cuMemAlloc");
		if (r == 0)
			dev->l2_size = L2_FLUSH_BYTES;
		else
			dev->l2_buf = 0;
	}
	/* a new value each time, so that no layer can skip the write as
	 * redundant */
	if (r == 0)
		r = stir_cu_check(dev->ctx, stir_cu.MemsetD32Async(dev->l2_buf,
			++dev->l2_counter, dev->l2_size / 4, s),
			"cuMemsetD32Async");
	stir_device_leave(dev);
	return r;
}

/* ---- memory ----------------------------------------------------------- */

/* dev: where; size: bytes. */
stir_gpu_buf *stir_gpu_buf_alloc(stir_device *dev, size_t size)
{
	if (!dev)
		return NULL;
	stir_gpu_buf *buf = calloc(1, sizeof(*buf));
	if (!buf)
		return stir_error_oom(dev->ctx);
	buf->size = size;
	if (size > 0) {
		if (stir_device_enter(dev) < 0) {
			free(buf);
			return NULL;
		}
		stir_diag *d = NULL;
		cu_result r = stir_cu.MemAlloc(&buf->ptr, size);
		if (r != CU_SUCCESS)
			d = stir_cu_error(dev->ctx, r, "cuMemAlloc");
		stir_device_leave(dev);
		if (r != CU_SUCCESS) {
			stir_diag_add_note(d, stir_loc_none(),
				"allocating %zu bytes on device %d (%s)", size,
				dev->ordinal, dev->name);
			free(buf);
			return NULL;
		}
	}
	buf->dev = stir_device_ref(dev);
	return buf;
}

/* buf: the memory to release. */
void stir_gpu_buf_free(stir_gpu_buf *buf)
{
	if (!buf)
		return;
	stir_device *dev = buf->dev;
	if (buf->ptr && stir_device_enter(dev) == 0) {
		stir_cu_check(dev->ctx, stir_cu.MemFree(buf->ptr), "cuMemFree");
		stir_device_leave(dev);
	}
	free(buf);
	stir_device_free(dev);
}

/* buf: the buffer; its device address (0 for NULL). */
uint64_t stir_gpu_buf_get_ptr(const stir_gpu_buf *buf)
{
	return buf ? buf->ptr : 0;
}

/* buf: the buffer; its size in bytes (0 for NULL). */
size_t stir_gpu_buf_get_size(const stir_gpu_buf *buf)
{
	return buf ? buf->size : 0;
}

/* buf, offset, n, what: check that n bytes at offset lie inside buf (a
 * NULL buffer fails silently: its failure was reported).  0 or -1 with an
 * error saying which operation ("what") was refused. */
static int check_range(const stir_gpu_buf *buf, size_t offset, size_t n,
	const char *what)
{
	if (!buf)
		return -1;
	if (offset <= buf->size && n <= buf->size - offset)
		return 0;
	stir_error(buf->dev->ctx, stir_loc_none(),
		"%s of %zu bytes at offset %zu is outside a device buffer of "
		"%zu bytes", what, n, offset, buf->size);
	return -1;
}

/* buf, offset, src, n: copy n bytes from the host. */
int stir_gpu_buf_copy_from_host(stir_gpu_buf *buf, size_t offset,
	const void *src, size_t n)
{
	if (check_range(buf, offset, n, "copy to the device") < 0)
		return -1;
	if (n == 0)
		return 0;
	if (stir_device_enter(buf->dev) < 0)
		return -1;
	int r = stir_cu_check(buf->dev->ctx,
		stir_cu.MemcpyHtoD(buf->ptr + offset, src, n), "cuMemcpyHtoD");
	stir_device_leave(buf->dev);
	return r;
}

/* buf, offset, dst, n: copy n bytes to the host. */
int stir_gpu_buf_copy_to_host(const stir_gpu_buf *buf, size_t offset,
	void *dst, size_t n)
{
	if (check_range(buf, offset, n, "copy to the host") < 0)
		return -1;
	if (n == 0)
		return 0;
	if (stir_device_enter(buf->dev) < 0)
		return -1;
	int r = stir_cu_check(buf->dev->ctx,
		stir_cu.MemcpyDtoH(dst, buf->ptr + offset, n), "cuMemcpyDtoH");
	stir_device_leave(buf->dev);
	return r;
}

/* dst, dst_offset, src, src_offset, n: copy n bytes between buffers. */
int stir_gpu_buf_copy(stir_gpu_buf *dst, size_t dst_offset,
	const stir_gpu_buf *src, size_t src_offset, size_t n)
{
	if (check_range(dst, dst_offset, n, "copy") < 0 ||
	    check_range(src, src_offset, n, "copy") < 0)
		return -1;
	if (dst->dev->cudev != src->dev->cudev) {
		stir_error(dst->dev->ctx, stir_loc_none(),
			"copy between devices %d and %d", src->dev->ordinal,
			dst->dev->ordinal);
		return -1;
	}
	if (n == 0)
		return 0;
	if (stir_device_enter(dst->dev) < 0)
		return -1;
	int r = stir_cu_check(dst->dev->ctx, stir_cu.MemcpyDtoD(
		dst->ptr + dst_offset, src->ptr + src_offset, n),
		"cuMemcpyDtoD");
	stir_device_leave(dst->dev);
	return r;
}

/* buf, offset, n, byte: set n bytes. */
int stir_gpu_buf_memset(stir_gpu_buf *buf, size_t offset, size_t n,
	uint8_t byte)
{
	if (check_range(buf, offset, n, "memset") < 0)
		return -1;
	if (n == 0)
		return 0;
	/* on a run's path of every call (zero_owned): a hot enter */
	int entered = stir_device_enter_hot(buf->dev);
	if (entered < 0)
		return -1;
	int r = stir_cu_check(buf->dev->ctx,
		stir_cu.MemsetD8(buf->ptr + offset, byte, n), "cuMemsetD8");
	stir_device_leave_hot(buf->dev, entered);
	return r;
}

/* buf, offset, count, word: set count words. */
int stir_gpu_buf_fill_u32(stir_gpu_buf *buf, size_t offset, size_t count,
	uint32_t word)
{
	if (!buf)
		return -1;
	if (offset % 4 != 0) {
		stir_error(buf->dev->ctx, stir_loc_none(),
			"fill of 32-bit words at offset %zu, not a multiple "
			"of 4", offset);
		return -1;
	}
	if (count > SIZE_MAX / 4) {
		stir_error(buf->dev->ctx, stir_loc_none(),
			"fill of %zu 32-bit words overflows", count);
		return -1;
	}
	if (check_range(buf, offset, count * 4, "fill") < 0)
		return -1;
	if (count == 0)
		return 0;
	if (stir_device_enter(buf->dev) < 0)
		return -1;
	int r = stir_cu_check(buf->dev->ctx,
		stir_cu.MemsetD32(buf->ptr + offset, word, count),
		"cuMemsetD32");
	stir_device_leave(buf->dev);
	return r;
}

/* ---- streams ---------------------------------------------------------- */

/* dev: the device of the new stream.  The stream is a blocking one: it
 * synchronises with the default stream, so the synchronous copies above
 * (which run there) wait for kernels queued on it. */
stir_stream *stir_stream_alloc(stir_device *dev)
{
	if (!dev)
		return NULL;
	stir_stream *st = calloc(1, sizeof(*st));
	if (!st)
		return stir_error_oom(dev->ctx);
	if (stir_device_enter(dev) < 0) {
		free(st);
		return NULL;
	}
	int r = stir_cu_check(dev->ctx, stir_cu.StreamCreate(&st->s, 0),
		"cuStreamCreate");
	stir_device_leave(dev);
	if (r < 0) {
		free(st);
		return NULL;
	}
	st->dev = stir_device_ref(dev);
	return st;
}

/* dev, driver_stream: a stir_stream over the caller's driver stream. */
stir_stream *stir_stream_wrap(stir_device *dev, void *driver_stream)
{
	if (!dev)
		return NULL;
	stir_stream *st = calloc(1, sizeof(*st));
	if (!st)
		return stir_error_oom(dev->ctx);
	st->s = (cu_stream)driver_stream;
	st->borrowed = true;
	st->dev = stir_device_ref(dev);
	return st;
}

/* stream: the stream to destroy. */
void stir_stream_free(stir_stream *stream)
{
	if (!stream)
		return;
	stir_device *dev = stream->dev;
	if (!stream->borrowed && stir_device_enter(dev) == 0) {
		stir_cu_check(dev->ctx, stir_cu.StreamDestroy(stream->s),
			"cuStreamDestroy");
		stir_device_leave(dev);
	}
	free(stream);
	stir_device_free(dev);
}

/* stream: the stream to wait for. */
int stir_stream_synchronize(stir_stream *stream)
{
	if (!stream || stir_device_enter(stream->dev) < 0)
		return -1;
	int r = stir_cu_check(stream->dev->ctx,
		stir_cu.StreamSynchronize(stream->s), "cuStreamSynchronize");
	stir_device_leave(stream->dev);
	return r;
}

/* ---- events ----------------------------------------------------------- */

/* dev: the device of the new event. */
stir_event *stir_event_alloc(stir_device *dev)
{
	if (!dev)
		return NULL;
	stir_event *ev = calloc(1, sizeof(*ev));
	if (!ev)
		return stir_error_oom(dev->ctx);
	if (stir_device_enter(dev) < 0) {
		free(ev);
		return NULL;
	}
	int r = stir_cu_check(dev->ctx,
		stir_cu.EventCreate(&ev->e, CU_EVENT_DEFAULT_FLAG),
		"cuEventCreate");
	stir_device_leave(dev);
	if (r < 0) {
		free(ev);
		return NULL;
	}
	ev->dev = stir_device_ref(dev);
	return ev;
}

/* ev: the event to destroy. */
void stir_event_free(stir_event *ev)
{
	if (!ev)
		return;
	stir_device *dev = ev->dev;
	if (stir_device_enter(dev) == 0) {
		stir_cu_check(dev->ctx, stir_cu.EventDestroy(ev->e),
			"cuEventDestroy");
		stir_device_leave(dev);
	}
	free(ev);
	stir_device_free(dev);
}

/* ev, stream: record ev on stream (NULL: the default stream). */
int stir_event_record(stir_event *ev, stir_stream *stream)
{
	cu_stream s;
	if (!ev || stream_of(ev->dev, stream, &s) < 0 ||
	    stir_device_enter(ev->dev) < 0)
		return -1;
	int r = stir_cu_check(ev->dev->ctx, stir_cu.EventRecord(ev->e, s),
		"cuEventRecord");
	stir_device_leave(ev->dev);
	return r;
}

/* ev: the event to wait for. */
int stir_event_synchronize(stir_event *ev)
{
	if (!ev || stir_device_enter(ev->dev) < 0)
		return -1;
	int r = stir_cu_check(ev->dev->ctx, stir_cu.EventSynchronize(ev->e),
		"cuEventSynchronize");
	stir_device_leave(ev->dev);
	return r;
}

/* start, end: two recorded events; ms: receives the time between them. */
int stir_event_elapsed_ms(stir_event *start, stir_event *end, float *ms)
{
	if (!start || !end || !ms)
		return -1;
	if (start->dev->cudev != end->dev->cudev) {
		stir_error(end->dev->ctx, stir_loc_none(),
			"elapsed time between events of devices %d and %d",
			start->dev->ordinal, end->dev->ordinal);
		return -1;
	}
	if (stir_device_enter(end->dev) < 0)
		return -1;
	int r = stir_cu_check(end->dev->ctx, stir_cu.EventSynchronize(end->e),
		"cuEventSynchronize");
	if (r == 0)
		r = stir_cu_check(end->dev->ctx,
			stir_cu.EventElapsedTime(ms, start->e, end->e),
			"cuEventElapsedTime");
	stir_device_leave(end->dev);
	return r;
}
