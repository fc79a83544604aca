/*
 * The layer's entry points: loader negotiation (the only exported symbol) and the
 * proc-address lookups, generated from the command list in commands.h.
 */
#include <string.h>

#include "loader.h"
#include "report/report.h"
#include "state/state.h"

#define HESPER_NOTHING(name)
#define HESPER_LOOKUP(name)                 \
	if (strcmp(pname, "vk" #name) == 0) \
		return (PFN_vkVoidFunction)hesper_##name;

#define HESPER_HOOK_LOOKUP(ret, name, params) HESPER_LOOKUP(name)
#define HESPER_WORK_LOOKUP(name, params, args) HESPER_LOOKUP(name)
#define HESPER_STAMP_LOOKUP(name, params, args, ...) HESPER_LOOKUP(name)
#define HESPER_MEMORY_LOOKUP(name, params, args, kind, size) HESPER_LOOKUP(name)

/* Hesper's hook for device command @pname, or NULL when it has none. */
static PFN_vkVoidFunction device_hook(const char *pname)
{
	HESPER_DEVICE_COMMANDS(HESPER_HOOK_LOOKUP, HESPER_NOTHING)
	HESPER_WORK_COMMANDS(HESPER_WORK_LOOKUP)
	HESPER_STAMP_COMMANDS(HESPER_STAMP_LOOKUP)
	HESPER_BARRIER_COMMANDS(HESPER_STAMP_LOOKUP)
	HESPER_MEMORY_COMMANDS(HESPER_MEMORY_LOOKUP)
	return NULL;
}

/* Hesper's hook for instance command @pname (device commands excluded), or NULL. */
static PFN_vkVoidFunction instance_hook(const char *pname)
{
	if (strcmp(pname, "vkCreateInstance") == 0)
		return (PFN_vkVoidFunction)hesper_CreateInstance;
	HESPER_INSTANCE_COMMANDS(HESPER_HOOK_LOOKUP, HESPER_NOTHING)
	return NULL;
}

/*
 * VK_EXT_debug_utils is an instance extension the loader always offers: programs fetch its
 * device commands with vkGetInstanceProcAddr and call them whether or not they enabled it
 * (libplacebo 4.208 in ffmpeg 5.1 does). Below a layer, the loader's terminator answers NULL
 * for them when the extension is not enabled, and the loader's trampoline then calls NULL.
 * Like the validation layer, answer with a hook that forwards only when there is a next
 * (Hesper's), or a no-op.
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

static VKAPI_ATTR void VKAPI_CALL noop_QueueLabelEXT(VkQueue q, const VkDebugUtilsLabelEXT *l)
{
	(void)q;
	(void)l;
}

static VKAPI_ATTR void VKAPI_CALL noop_QueueEndLabelEXT(VkQueue q)
{
	(void)q;
}

static PFN_vkVoidFunction debug_utils_fallback(const char *pname)
{
	static const struct {
		const char *name;
		PFN_vkVoidFunction fn;
	} table[] = {
		{"vkSetDebugUtilsObjectNameEXT", (PFN_vkVoidFunction)hesper_SetDebugUtilsObjectNameEXT},
		{"vkCmdBeginDebugUtilsLabelEXT", (PFN_vkVoidFunction)hesper_CmdBeginDebugUtilsLabelEXT},
		{"vkCmdEndDebugUtilsLabelEXT", (PFN_vkVoidFunction)hesper_CmdEndDebugUtilsLabelEXT},
		{"vkSetDebugUtilsObjectTagEXT", (PFN_vkVoidFunction)noop_SetDebugUtilsObjectTagEXT},
		{"vkCmdInsertDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_CmdLabelEXT},
		{"vkQueueBeginDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_QueueLabelEXT},
		{"vkQueueInsertDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_QueueLabelEXT},
		{"vkQueueEndDebugUtilsLabelEXT", (PFN_vkVoidFunction)noop_QueueEndLabelEXT},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(pname, table[i].name) == 0)
			return table[i].fn;
	return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hesper_GetDeviceProcAddr(VkDevice device, const char *pname);

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hesper_GetInstanceProcAddr(VkInstance instance, const char *pname)
{
	if (!pname)
		return NULL;
	if (strcmp(pname, "vkGetInstanceProcAddr") == 0)
		return (PFN_vkVoidFunction)hesper_GetInstanceProcAddr;
	if (strcmp(pname, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)hesper_GetDeviceProcAddr;
	if (strcmp(pname, "vkCreateInstance") == 0)
		return (PFN_vkVoidFunction)hesper_CreateInstance;
	if (!instance)
		return NULL;
	struct hesper_instance *inst = hesper_instance_from(instance);
	if (!inst)
		return NULL;
	PFN_vkVoidFunction next = inst->next.GetInstanceProcAddr(instance, pname);
	if (!next)
		return NULL; /* not supported below: neither are we */
	PFN_vkVoidFunction hook = instance_hook(pname);
	if (!hook && !hesper_process()->settings.disabled)
		hook = device_hook(pname);
	return hook ? hook : next;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hesper_GetDeviceProcAddr(VkDevice device, const char *pname)
{
	if (!pname || !device)
		return NULL;
	if (strcmp(pname, "vkGetDeviceProcAddr") == 0)
		return (PFN_vkVoidFunction)hesper_GetDeviceProcAddr;
	struct hesper_device *dev = hesper_device_from(device);
	if (!dev)
		return NULL;
	PFN_vkVoidFunction next = dev->next.GetDeviceProcAddr(device, pname);
	if (!next) /* debug-utils commands: never NULL (see debug_utils_fallback) */
		return debug_utils_fallback(pname);
	if (hesper_process()->settings.disabled && strcmp(pname, "vkDestroyDevice") != 0)
		return next;
	PFN_vkVoidFunction hook = device_hook(pname);
	return hook ? hook : next;
}

HESPER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *iface)
{
	if (!iface || iface->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (iface->loaderLayerInterfaceVersion < 2)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (iface->loaderLayerInterfaceVersion > CURRENT_LOADER_LAYER_INTERFACE_VERSION)
		iface->loaderLayerInterfaceVersion = CURRENT_LOADER_LAYER_INTERFACE_VERSION;
	iface->pfnGetInstanceProcAddr = hesper_GetInstanceProcAddr;
	iface->pfnGetDeviceProcAddr = hesper_GetDeviceProcAddr;
	iface->pfnGetPhysicalDeviceProcAddr = NULL;
	return VK_SUCCESS;
}
