/* vkCreateInstance / vkDestroyInstance: the instance dispatch table. */
#include <stdlib.h>

#include "loader.h"
#include "report/report.h"
#include "state/state.h"

/* The loader's link to the next layer in @info's chain, or NULL. */
static VkLayerInstanceCreateInfo *find_link_info(const VkInstanceCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		if (s->sType != VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO)
			continue;
		VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)s;
		if (link->function == VK_LAYER_LINK_INFO)
			return link;
	}
	return NULL;
}

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateInstance(const VkInstanceCreateInfo *info,
						     const VkAllocationCallbacks *allocator, VkInstance *out)
{
	VkLayerInstanceCreateInfo *link = find_link_info(info);
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	/* Advance the chain for the next layer before calling down. */
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	VkResult result = create(info, allocator, out);
	if (result != VK_SUCCESS)
		return result;

	struct hesper_process *proc = hesper_process();
	hesper_report_open();
	struct hesper_instance *inst = calloc(1, sizeof(*inst));
	if (!inst)
		goto fail;
	inst->handle = *out;
	inst->next.GetInstanceProcAddr = gipa;
#define LOAD(name) inst->next.name = (PFN_vk##name)gipa(*out, "vk" #name);
#define LOAD_HOOKED(ret, name, params) LOAD(name)
	HESPER_INSTANCE_COMMANDS(LOAD_HOOKED, LOAD)
#undef LOAD_HOOKED
#undef LOAD
	inst->api_version = info->pApplicationInfo && info->pApplicationInfo->apiVersion
				    ? info->pApplicationInfo->apiVersion
				    : VK_API_VERSION_1_0;
	if (hesper_map_put(&proc->instances, hesper_dispatch_key(*out), inst) != 0)
		goto fail;
	return VK_SUCCESS;
fail:
	/* Without its state Hesper cannot pass calls on: undo the instance. */
	free(inst);
	PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(*out, "vkDestroyInstance");
	if (destroy)
		destroy(*out, allocator);
	*out = VK_NULL_HANDLE;
	return VK_ERROR_OUT_OF_HOST_MEMORY;
}

VKAPI_ATTR void VKAPI_CALL hesper_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *allocator)
{
	if (!instance)
		return;
	struct hesper_instance *inst = hesper_map_remove(&hesper_process()->instances, hesper_dispatch_key(instance));
	if (!inst)
		return;
	inst->next.DestroyInstance(instance, allocator);
	free(inst);
}
