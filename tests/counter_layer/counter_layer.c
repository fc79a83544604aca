/*
 * counter_layer: an independent ground truth for Hesper's dispatch counts.
 *
 * A minimal Vulkan layer (VK_LAYER_HESPERTEST_dispatch_counter) that shares no code with
 * Hesper. It counts, per compute kernel, how many dispatches were *submitted*:
 *
 *   - at record time, each command buffer keeps the list of its vkCmdDispatch,
 *     vkCmdDispatchIndirect and vkCmdDispatchBase(KHR) calls (with the compute pipeline
 *     bound at that moment) and of the secondaries it executes (vkCmdExecuteCommands);
 *     vkBeginCommandBuffer starts the list afresh;
 *   - at vkQueueSubmit / vkQueueSubmit2(KHR), every submitted command buffer's list is
 *     added to the per-pipeline counters, secondaries expanded recursively. A command
 *     buffer submitted N times counts N times.
 *
 * Kernels are keyed the way Hesper groups them, but computed independently:
 *   - the pipeline's VK_EXT_debug_utils object name, when one was set ("name:<name>");
 *   - otherwise "spv:<16 hex>", FNV-1a 64 over the SPIR-V words and the entry point name,
 *     so pipelines built from the same SPIR-V and entry point are one kernel.
 *
 * At vkDestroyDevice, vkDestroyInstance and process exit it writes the counts to the file
 * named by DISPATCH_COUNTER_OUT ("%p" becomes the pid), as JSON:
 *   {"schema": "hesper-counter/1", "pid": N, "total": N, "unbound": N,
 *    "kernels": {"<key>": count, ...}}
 * "unbound" counts dispatches recorded with no compute pipeline bound (0 in a valid program).
 *
 * One mutex guards everything: this is a test instrument, not a fast path.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))
#define LAYER_NAME "VK_LAYER_HESPERTEST_dispatch_counter"

/* ---------------------------------------------------------------- small containers */

/* An open-addressing map from a 64-bit handle (never 0) to a pointer. */
struct map {
	uint64_t *keys;
	void **vals;
	size_t cap, len; /* cap is a power of two, or 0 */
};

static size_t map_slot(const struct map *m, uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull;
	size_t i = (size_t)(h >> 17) & (m->cap - 1);
	while (m->keys[i] != 0 && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void *map_get(const struct map *m, uint64_t key)
{
	if (m->cap == 0)
		return NULL;
	size_t i = map_slot(m, key);
	return m->keys[i] == key ? m->vals[i] : NULL;
}

static void map_put(struct map *m, uint64_t key, void *val);

static void map_grow(struct map *m)
{
	struct map old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->len = 0;
	m->keys = calloc(m->cap, sizeof *m->keys);
	m->vals = calloc(m->cap, sizeof *m->vals);
	if (!m->keys || !m->vals)
		abort();
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i] != 0 && old.vals[i] != NULL)
			map_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
}

/* Sets key -> val; val NULL removes it (the slot stays as a tombstone with a NULL value). */
static void map_put(struct map *m, uint64_t key, void *val)
{
	if ((m->len + 1) * 2 > m->cap)
		map_grow(m);
	size_t i = map_slot(m, key);
	if (m->keys[i] == 0) {
		m->keys[i] = key;
		m->len++;
	}
	m->vals[i] = val;
}

/* ---------------------------------------------------------------- state */

struct kernel_src { /* one shader module: the hash of its SPIR-V */
	uint64_t spirv_hash;
};

struct pipeline {          /* one compute pipeline, kept after destruction */
	uint64_t key_hash; /* SPIR-V + entry point */
	char *debug_name;  /* last debug-utils name, or NULL */
	uint64_t count;    /* dispatches submitted */
	struct pipeline *next_all;
};

enum item_kind { ITEM_DISPATCH, ITEM_EXECUTE };

struct item {
	enum item_kind kind;
	struct pipeline *pipeline; /* ITEM_DISPATCH: bound compute pipeline, or NULL */
	uint64_t secondary;        /* ITEM_EXECUTE: the secondary's handle */
};

struct cmdbuf {
	struct item *items;
	size_t len, cap;
	struct pipeline *bound; /* compute pipeline bound now, while recording */
};

struct device {
	VkDevice handle;
	PFN_vkGetDeviceProcAddr gdpa;
	PFN_vkDestroyDevice DestroyDevice;
	PFN_vkCreateShaderModule CreateShaderModule;
	PFN_vkDestroyShaderModule DestroyShaderModule;
	PFN_vkCreateComputePipelines CreateComputePipelines;
	PFN_vkDestroyPipeline DestroyPipeline;
	PFN_vkSetDebugUtilsObjectNameEXT SetDebugUtilsObjectNameEXT;
	PFN_vkBeginCommandBuffer BeginCommandBuffer;
	PFN_vkFreeCommandBuffers FreeCommandBuffers;
	PFN_vkCmdBindPipeline CmdBindPipeline;
	PFN_vkCmdDispatch CmdDispatch;
	PFN_vkCmdDispatchIndirect CmdDispatchIndirect;
	PFN_vkCmdDispatchBase CmdDispatchBase;
	PFN_vkCmdDispatchBase CmdDispatchBaseKHR;
	PFN_vkCmdExecuteCommands CmdExecuteCommands;
	PFN_vkQueueSubmit QueueSubmit;
	PFN_vkQueueSubmit2 QueueSubmit2;
	PFN_vkQueueSubmit2 QueueSubmit2KHR;
};

struct instance {
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkDestroyInstance DestroyInstance;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct map g_instances; /* dispatch key -> struct instance */
static struct map g_devices;   /* dispatch key -> struct device (device, queues, cmdbufs) */
static struct map g_modules;   /* VkShaderModule -> struct kernel_src */
static struct map g_pipelines; /* VkPipeline -> struct pipeline (live ones) */
static struct map g_cmdbufs;   /* VkCommandBuffer -> struct cmdbuf */
static struct pipeline *g_all; /* every pipeline ever created */
static uint64_t g_unbound;     /* dispatches submitted with no compute pipeline bound */

static uint64_t dkey(const void *dispatchable)
{
	return (uint64_t)(uintptr_t)(*(void *const *)dispatchable);
}

static uint64_t hkey(uint64_t handle)
{
	return handle;
}

static struct device *device_of(const void *dispatchable)
{
	pthread_mutex_lock(&g_lock);
	struct device *d = map_get(&g_devices, dkey(dispatchable));
	pthread_mutex_unlock(&g_lock);
	return d;
}

/* FNV-1a 64 over @len bytes, continuing from @h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ull

/* ---------------------------------------------------------------- output */

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Writes every kernel's count (grouped by key) to DISPATCH_COUNTER_OUT; caller holds g_lock. */
static void write_counts_locked(void)
{
	const char *pattern = getenv("DISPATCH_COUNTER_OUT");
	if (!pattern || !*pattern)
		return;
	char path[4096];
	size_t o = 0;
	for (const char *p = pattern; *p && o + 32 < sizeof path; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += (size_t)snprintf(path + o, sizeof path - o, "%ld", (long)getpid());
			p++;
		} else {
			path[o++] = *p;
		}
	}
	path[o] = '\0';

	/* Group pipelines by key: a name, or the SPIR-V hash. Quadratic, fine for a test. */
	size_t n = 0;
	for (struct pipeline *p = g_all; p; p = p->next_all)
		n++;
	char **keys = calloc(n + 1, sizeof *keys);
	uint64_t *counts = calloc(n + 1, sizeof *counts);
	if (!keys || !counts)
		abort();
	size_t nk = 0;
	uint64_t total = g_unbound;
	for (struct pipeline *p = g_all; p; p = p->next_all) {
		char key[1024];
		if (p->debug_name)
			snprintf(key, sizeof key, "name:%s", p->debug_name);
		else
			snprintf(key, sizeof key, "spv:%016" PRIx64, p->key_hash);
		total += p->count;
		size_t i = 0;
		while (i < nk && strcmp(keys[i], key) != 0)
			i++;
		if (i == nk) {
			if (p->count == 0)
				continue; /* a kernel that never ran has no row */
			keys[nk++] = strdup(key);
		}
		counts[i] += p->count;
	}

	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "counter_layer: cannot write %s\n", tmp);
	} else {
		fprintf(f,
			"{\"schema\": \"hesper-counter/1\", \"pid\": %ld, \"total\": %" PRIu64 ", \"unbound\": %" PRIu64
			", \"kernels\": {",
			(long)getpid(), total, g_unbound);
		for (size_t i = 0; i < nk; i++) {
			fputs(i ? ", " : "", f);
			json_string(f, keys[i]);
			fprintf(f, ": %" PRIu64, counts[i]);
		}
		fputs("}}\n", f);
		if (fclose(f) != 0 || rename(tmp, path) != 0)
			fprintf(stderr, "counter_layer: cannot write %s\n", path);
	}
	for (size_t i = 0; i < nk; i++)
		free(keys[i]);
	free(keys);
	free(counts);
}

static void write_counts(void)
{
	pthread_mutex_lock(&g_lock);
	write_counts_locked();
	pthread_mutex_unlock(&g_lock);
}

__attribute__((destructor)) static void at_exit_write(void)
{
	write_counts();
}

/* ---------------------------------------------------------------- instance */

static VKAPI_ATTR VkResult VKAPI_CALL counter_CreateInstance(const VkInstanceCreateInfo *info,
							     const VkAllocationCallbacks *alloc, VkInstance *out)
{
	VkLayerInstanceCreateInfo *chain = (VkLayerInstanceCreateInfo *)info->pNext;
	while (chain && !(chain->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
			  chain->function == VK_LAYER_LINK_INFO))
		chain = (VkLayerInstanceCreateInfo *)chain->pNext;
	if (!chain)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	VkResult r = create(info, alloc, out);
	if (r != VK_SUCCESS)
		return r;
	struct instance *in = calloc(1, sizeof *in);
	if (!in)
		abort();
	in->gipa = gipa;
	in->DestroyInstance = (PFN_vkDestroyInstance)gipa(*out, "vkDestroyInstance");
	pthread_mutex_lock(&g_lock);
	map_put(&g_instances, dkey(*out), in);
	pthread_mutex_unlock(&g_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL counter_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc)
{
	if (!instance)
		return;
	pthread_mutex_lock(&g_lock);
	struct instance *in = map_get(&g_instances, dkey(instance));
	map_put(&g_instances, dkey(instance), NULL);
	write_counts_locked();
	pthread_mutex_unlock(&g_lock);
	if (in) {
		in->DestroyInstance(instance, alloc);
		free(in);
	}
}

/* ---------------------------------------------------------------- device */

static VKAPI_ATTR VkResult VKAPI_CALL counter_CreateDevice(VkPhysicalDevice phys, const VkDeviceCreateInfo *info,
							   const VkAllocationCallbacks *alloc, VkDevice *out)
{
	VkLayerDeviceCreateInfo *chain = (VkLayerDeviceCreateInfo *)info->pNext;
	while (chain &&
	       !(chain->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
		chain = (VkLayerDeviceCreateInfo *)chain->pNext;
	if (!chain)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = chain->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr gdpa = chain->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	chain->u.pLayerInfo = chain->u.pLayerInfo->pNext;
	PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(VK_NULL_HANDLE, "vkCreateDevice");
	VkResult r = create(phys, info, alloc, out);
	if (r != VK_SUCCESS)
		return r;
	struct device *d = calloc(1, sizeof *d);
	if (!d)
		abort();
	VkDevice dev = *out;
	d->handle = dev;
	d->gdpa = gdpa;
#define GET(fn) d->fn = (PFN_vk##fn)gdpa(dev, "vk" #fn)
	GET(DestroyDevice);
	GET(CreateShaderModule);
	GET(DestroyShaderModule);
	GET(CreateComputePipelines);
	GET(DestroyPipeline);
	GET(SetDebugUtilsObjectNameEXT);
	GET(BeginCommandBuffer);
	GET(FreeCommandBuffers);
	GET(CmdBindPipeline);
	GET(CmdDispatch);
	GET(CmdDispatchIndirect);
	GET(CmdDispatchBase);
	GET(CmdExecuteCommands);
	GET(QueueSubmit);
	GET(QueueSubmit2);
#undef GET
	d->CmdDispatchBaseKHR = (PFN_vkCmdDispatchBase)gdpa(dev, "vkCmdDispatchBaseKHR");
	d->QueueSubmit2KHR = (PFN_vkQueueSubmit2)gdpa(dev, "vkQueueSubmit2KHR");
	pthread_mutex_lock(&g_lock);
	map_put(&g_devices, dkey(dev), d);
	pthread_mutex_unlock(&g_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL counter_DestroyDevice(VkDevice dev, const VkAllocationCallbacks *alloc)
{
	if (!dev)
		return;
	pthread_mutex_lock(&g_lock);
	struct device *d = map_get(&g_devices, dkey(dev));
	map_put(&g_devices, dkey(dev), NULL);
	write_counts_locked();
	pthread_mutex_unlock(&g_lock);
	if (d) {
		d->DestroyDevice(dev, alloc);
		free(d);
	}
}

/* ---------------------------------------------------------------- shaders, pipelines, names */

static VKAPI_ATTR VkResult VKAPI_CALL counter_CreateShaderModule(VkDevice dev, const VkShaderModuleCreateInfo *info,
								 const VkAllocationCallbacks *alloc,
								 VkShaderModule *out)
{
	struct device *d = device_of(dev);
	VkResult r = d->CreateShaderModule(dev, info, alloc, out);
	if (r != VK_SUCCESS)
		return r;
	struct kernel_src *k = malloc(sizeof *k);
	if (!k)
		abort();
	k->spirv_hash = fnv1a(FNV_OFFSET, info->pCode, info->codeSize);
	pthread_mutex_lock(&g_lock);
	free(map_get(&g_modules, hkey((uint64_t)*out)));
	map_put(&g_modules, hkey((uint64_t)*out), k);
	pthread_mutex_unlock(&g_lock);
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL counter_DestroyShaderModule(VkDevice dev, VkShaderModule module,
							      const VkAllocationCallbacks *alloc)
{
	struct device *d = device_of(dev);
	pthread_mutex_lock(&g_lock);
	free(map_get(&g_modules, hkey((uint64_t)module)));
	map_put(&g_modules, hkey((uint64_t)module), NULL);
	pthread_mutex_unlock(&g_lock);
	d->DestroyShaderModule(dev, module, alloc);
}

/* The SPIR-V hash of a compute stage: its module, or a VkShaderModuleCreateInfo in pNext. */
static uint64_t stage_hash_locked(const VkPipelineShaderStageCreateInfo *st)
{
	uint64_t h = 0;
	if (st->module != VK_NULL_HANDLE) {
		struct kernel_src *k = map_get(&g_modules, hkey((uint64_t)st->module));
		h = k ? k->spirv_hash : 0;
	} else {
		for (const VkBaseInStructure *s = st->pNext; s; s = s->pNext)
			if (s->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO) {
				const VkShaderModuleCreateInfo *mi = (const VkShaderModuleCreateInfo *)s;
				h = fnv1a(FNV_OFFSET, mi->pCode, mi->codeSize);
			}
	}
	const char *entry = st->pName ? st->pName : "";
	h = fnv1a(h, "\0", 1);
	return fnv1a(h, entry, strlen(entry));
}

static VKAPI_ATTR VkResult VKAPI_CALL counter_CreateComputePipelines(VkDevice dev, VkPipelineCache cache, uint32_t n,
								     const VkComputePipelineCreateInfo *infos,
								     const VkAllocationCallbacks *alloc,
								     VkPipeline *out)
{
	struct device *d = device_of(dev);
	VkResult r = d->CreateComputePipelines(dev, cache, n, infos, alloc, out);
	pthread_mutex_lock(&g_lock);
	for (uint32_t i = 0; i < n; i++) {
		if (out[i] == VK_NULL_HANDLE)
			continue;
		struct pipeline *p = calloc(1, sizeof *p);
		if (!p)
			abort();
		p->key_hash = stage_hash_locked(&infos[i].stage);
		p->next_all = g_all;
		g_all = p;
		map_put(&g_pipelines, hkey((uint64_t)out[i]), p);
	}
	pthread_mutex_unlock(&g_lock);
	return r;
}

static VKAPI_ATTR void VKAPI_CALL counter_DestroyPipeline(VkDevice dev, VkPipeline pipeline,
							  const VkAllocationCallbacks *alloc)
{
	struct device *d = device_of(dev);
	pthread_mutex_lock(&g_lock);
	map_put(&g_pipelines, hkey((uint64_t)pipeline), NULL); /* its counts stay in g_all */
	pthread_mutex_unlock(&g_lock);
	d->DestroyPipeline(dev, pipeline, alloc);
}

static VKAPI_ATTR VkResult VKAPI_CALL counter_SetDebugUtilsObjectNameEXT(VkDevice dev,
									 const VkDebugUtilsObjectNameInfoEXT *info)
{
	struct device *d = device_of(dev);
	if (info->objectType == VK_OBJECT_TYPE_PIPELINE) {
		pthread_mutex_lock(&g_lock);
		struct pipeline *p = map_get(&g_pipelines, hkey(info->objectHandle));
		if (p) {
			free(p->debug_name);
			p->debug_name = info->pObjectName && *info->pObjectName ? strdup(info->pObjectName) : NULL;
		}
		pthread_mutex_unlock(&g_lock);
	}
	return d->SetDebugUtilsObjectNameEXT ? d->SetDebugUtilsObjectNameEXT(dev, info) : VK_SUCCESS;
}

/*
 * VK_EXT_debug_utils is an instance extension the loader always offers: programs fetch its
 * device commands with vkGetInstanceProcAddr and call them whether or not they enabled it
 * (libplacebo 4.208 does). Below a layer the loader answers NULL for them when the
 * extension is not enabled, and its trampoline then calls NULL. Like the validation layer,
 * this layer answers with a hook (forwarding only when there is a next) or a no-op.
 */
static VKAPI_ATTR VkResult VKAPI_CALL noop_SetDebugUtilsObjectTagEXT(VkDevice d, const VkDebugUtilsObjectTagInfoEXT *i)
{
	(void)d;
	(void)i;
	return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL noop_CmdLabelEXT(VkCommandBuffer cb, const VkDebugUtilsLabelEXT *l)
{
	(void)cb;
	(void)l;
}

static VKAPI_ATTR void VKAPI_CALL noop_CmdEndLabelEXT(VkCommandBuffer cb)
{
	(void)cb;
}

static VKAPI_ATTR void VKAPI_CALL noop_QueueLabelEXT(VkQueue q, const VkDebugUtilsLabelEXT *l)
{
	(void)q;
	(void)l;
}

static VKAPI_ATTR void VKAPI_CALL noop_QueueEndLabelEXT(VkQueue q)
{
	(void)q;
}

static PFN_vkVoidFunction debug_utils_fallback(const char *name)
{
	static const struct {
		const char *name;
		PFN_vkVoidFunction fn;
	} table[] = {
		{"vkSetDebugUtilsObjectNameEXT", (PFN_vkVoidFunction)counter_SetDebugUtilsObjectNameEXT},
		{"vkSetDebugUtilsObjectTagEXT", (PFN_vkVoidFunction)noop_SetDebugUtilsObjectTagEXT},
		{"vkCmdBeginDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_CmdLabelEXT},
		{"vkCmdInsertDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_CmdLabelEXT},
		{"vkCmdEndDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_CmdEndLabelEXT},
		{"vkQueueBeginDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_QueueLabelEXT},
		{"vkQueueInsertDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_QueueLabelEXT},
		{"vkQueueEndDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_QueueEndLabelEXT},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(name, table[i].name) == 0)
			return table[i].fn;
	return NULL;
}

/* ---------------------------------------------------------------- recording */

static struct cmdbuf *cmdbuf_locked(VkCommandBuffer cb)
{
	struct cmdbuf *c = map_get(&g_cmdbufs, hkey((uint64_t)(uintptr_t)cb));
	if (!c) {
		c = calloc(1, sizeof *c);
		if (!c)
			abort();
		map_put(&g_cmdbufs, hkey((uint64_t)(uintptr_t)cb), c);
	}
	return c;
}

static void push_item(VkCommandBuffer cb, struct item it)
{
	pthread_mutex_lock(&g_lock);
	struct cmdbuf *c = cmdbuf_locked(cb);
	if (it.kind == ITEM_DISPATCH)
		it.pipeline = c->bound;
	if (c->len == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->items = realloc(c->items, c->cap * sizeof *c->items);
		if (!c->items)
			abort();
	}
	c->items[c->len++] = it;
	pthread_mutex_unlock(&g_lock);
}

static VKAPI_ATTR VkResult VKAPI_CALL counter_BeginCommandBuffer(VkCommandBuffer cb,
								 const VkCommandBufferBeginInfo *info)
{
	struct device *d = device_of(cb);
	pthread_mutex_lock(&g_lock);
	struct cmdbuf *c = cmdbuf_locked(cb);
	c->len = 0;
	c->bound = NULL;
	pthread_mutex_unlock(&g_lock);
	return d->BeginCommandBuffer(cb, info);
}

static VKAPI_ATTR void VKAPI_CALL counter_FreeCommandBuffers(VkDevice dev, VkCommandPool pool, uint32_t n,
							     const VkCommandBuffer *cbs)
{
	struct device *d = device_of(dev);
	pthread_mutex_lock(&g_lock);
	for (uint32_t i = 0; i < n; i++) {
		struct cmdbuf *c = map_get(&g_cmdbufs, hkey((uint64_t)(uintptr_t)cbs[i]));
		if (c)
			c->len = 0; /* kept: a handle may come back from the next allocation */
	}
	pthread_mutex_unlock(&g_lock);
	d->FreeCommandBuffers(dev, pool, n, cbs);
}

static VKAPI_ATTR void VKAPI_CALL counter_CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint point,
							  VkPipeline pipeline)
{
	struct device *d = device_of(cb);
	if (point == VK_PIPELINE_BIND_POINT_COMPUTE) {
		pthread_mutex_lock(&g_lock);
		cmdbuf_locked(cb)->bound = map_get(&g_pipelines, hkey((uint64_t)pipeline));
		pthread_mutex_unlock(&g_lock);
	}
	d->CmdBindPipeline(cb, point, pipeline);
}

static VKAPI_ATTR void VKAPI_CALL counter_CmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z)
{
	push_item(cb, (struct item){.kind = ITEM_DISPATCH});
	device_of(cb)->CmdDispatch(cb, x, y, z);
}

static VKAPI_ATTR void VKAPI_CALL counter_CmdDispatchIndirect(VkCommandBuffer cb, VkBuffer buf, VkDeviceSize off)
{
	push_item(cb, (struct item){.kind = ITEM_DISPATCH});
	device_of(cb)->CmdDispatchIndirect(cb, buf, off);
}

static VKAPI_ATTR void VKAPI_CALL counter_CmdDispatchBase(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz,
							  uint32_t x, uint32_t y, uint32_t z)
{
	push_item(cb, (struct item){.kind = ITEM_DISPATCH});
	device_of(cb)->CmdDispatchBase(cb, bx, by, bz, x, y, z);
}

static VKAPI_ATTR void VKAPI_CALL counter_CmdDispatchBaseKHR(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz,
							     uint32_t x, uint32_t y, uint32_t z)
{
	push_item(cb, (struct item){.kind = ITEM_DISPATCH});
	device_of(cb)->CmdDispatchBaseKHR(cb, bx, by, bz, x, y, z);
}

static VKAPI_ATTR void VKAPI_CALL counter_CmdExecuteCommands(VkCommandBuffer cb, uint32_t n,
							     const VkCommandBuffer *secs)
{
	for (uint32_t i = 0; i < n; i++)
		push_item(cb, (struct item){.kind = ITEM_EXECUTE, .secondary = (uint64_t)(uintptr_t)secs[i]});
	device_of(cb)->CmdExecuteCommands(cb, n, secs);
}

/* ---------------------------------------------------------------- submission */

/* Adds @cb's dispatches (secondaries expanded) to the counters; caller holds g_lock. */
static void count_cmdbuf_locked(uint64_t cb, int depth)
{
	struct cmdbuf *c = map_get(&g_cmdbufs, hkey(cb));
	if (!c || depth > 8)
		return;
	for (size_t i = 0; i < c->len; i++) {
		const struct item *it = &c->items[i];
		if (it->kind == ITEM_EXECUTE)
			count_cmdbuf_locked(it->secondary, depth + 1);
		else if (it->pipeline)
			it->pipeline->count++;
		else
			g_unbound++;
	}
}

static VKAPI_ATTR VkResult VKAPI_CALL counter_QueueSubmit(VkQueue q, uint32_t n, const VkSubmitInfo *submits,
							  VkFence fence)
{
	struct device *d = device_of(q);
	VkResult r = d->QueueSubmit(q, n, submits, fence);
	if (r == VK_SUCCESS) {
		pthread_mutex_lock(&g_lock);
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t j = 0; j < submits[i].commandBufferCount; j++)
				count_cmdbuf_locked((uint64_t)(uintptr_t)submits[i].pCommandBuffers[j], 0);
		pthread_mutex_unlock(&g_lock);
	}
	return r;
}

static VkResult submit2(PFN_vkQueueSubmit2 next, VkQueue q, uint32_t n, const VkSubmitInfo2 *submits, VkFence fence)
{
	VkResult r = next(q, n, submits, fence);
	if (r == VK_SUCCESS) {
		pthread_mutex_lock(&g_lock);
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t j = 0; j < submits[i].commandBufferInfoCount; j++)
				count_cmdbuf_locked(
					(uint64_t)(uintptr_t)submits[i].pCommandBufferInfos[j].commandBuffer, 0);
		pthread_mutex_unlock(&g_lock);
	}
	return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL counter_QueueSubmit2(VkQueue q, uint32_t n, const VkSubmitInfo2 *s, VkFence f)
{
	return submit2(device_of(q)->QueueSubmit2, q, n, s, f);
}

static VKAPI_ATTR VkResult VKAPI_CALL counter_QueueSubmit2KHR(VkQueue q, uint32_t n, const VkSubmitInfo2 *s, VkFence f)
{
	return submit2(device_of(q)->QueueSubmit2KHR, q, n, s, f);
}

/* ---------------------------------------------------------------- lookup and negotiation */

static PFN_vkVoidFunction device_hook(const char *name)
{
/* clang-format off */
#define HOOK(fn) if (strcmp(name, "vk" #fn) == 0) return (PFN_vkVoidFunction)counter_##fn
	/* clang-format on */
	HOOK(DestroyDevice);
	HOOK(CreateShaderModule);
	HOOK(DestroyShaderModule);
	HOOK(CreateComputePipelines);
	HOOK(DestroyPipeline);
	HOOK(SetDebugUtilsObjectNameEXT);
	HOOK(BeginCommandBuffer);
	HOOK(FreeCommandBuffers);
	HOOK(CmdBindPipeline);
	HOOK(CmdDispatch);
	HOOK(CmdDispatchIndirect);
	HOOK(CmdDispatchBase);
	HOOK(CmdDispatchBaseKHR);
	HOOK(CmdExecuteCommands);
	HOOK(QueueSubmit);
	HOOK(QueueSubmit2);
	HOOK(QueueSubmit2KHR);
#undef HOOK
	return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL counter_GetDeviceProcAddr(VkDevice dev, const char *name)
{
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)counter_GetDeviceProcAddr;
	struct device *d = device_of(dev);
	if (!d)
		return NULL;
	PFN_vkVoidFunction next = d->gdpa(dev, name);
	if (!next)
		return debug_utils_fallback(name);
	PFN_vkVoidFunction hook = device_hook(name);
	return hook ? hook : next; /* hook only what the chain below provides */
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL counter_GetInstanceProcAddr(VkInstance instance, const char *name)
{
	if (strcmp(name, "vkGetInstanceProcAddr") == 0)
		return (PFN_vkVoidFunction)counter_GetInstanceProcAddr;
	if (strcmp(name, "vkCreateInstance") == 0)
		return (PFN_vkVoidFunction)counter_CreateInstance;
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)counter_GetDeviceProcAddr;
	if (!instance)
		return NULL;
	pthread_mutex_lock(&g_lock);
	struct instance *in = map_get(&g_instances, dkey(instance));
	pthread_mutex_unlock(&g_lock);
	if (!in)
		return NULL;
	if (strcmp(name, "vkDestroyInstance") == 0)
		return (PFN_vkVoidFunction)counter_DestroyInstance;
	if (strcmp(name, "vkCreateDevice") == 0)
		return (PFN_vkVoidFunction)counter_CreateDevice;
	PFN_vkVoidFunction next = in->gipa(instance, name);
	PFN_vkVoidFunction hook = device_hook(name);
	return next && hook ? hook : next;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL counter_NegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v)
{
	if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || v->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	v->loaderLayerInterfaceVersion = 2;
	v->pfnGetInstanceProcAddr = counter_GetInstanceProcAddr;
	v->pfnGetDeviceProcAddr = counter_GetDeviceProcAddr;
	v->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}
