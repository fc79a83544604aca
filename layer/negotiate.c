/*
 * The layer's entry points: loader negotiation (the only exported symbol) and the
 * proc-address lookups, generated from the command list in commands.h.
 */
#include <string.h>

#include "layer.h"

#define HESPER_NOTHING(name)
#define HESPER_LOOKUP(name)                                   \
	if (strcmp(pname, "vk" #name) == 0)                   \
		return (PFN_vkVoidFunction)hesper_##name;

/* Hesper's hook for device command @pname, or NULL when it has none. */
static PFN_vkVoidFunction device_hook(const char *pname)
{
	HESPER_DEVICE_COMMANDS(HESPER_LOOKUP, HESPER_NOTHING)
	return NULL;
}

/* Hesper's hook for instance command @pname (device commands excluded), or NULL. */
static PFN_vkVoidFunction instance_hook(const char *pname)
{
	if (strcmp(pname, "vkCreateInstance") == 0)
		return (PFN_vkVoidFunction)hesper_CreateInstance;
	HESPER_INSTANCE_COMMANDS(HESPER_LOOKUP, HESPER_NOTHING)
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
	if (!next)
		return NULL;
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
