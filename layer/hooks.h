/*
 * The Vulkan commands Hesper implements (hesper_<name>), as the loader and the proc-address
 * lookups see them; the X-macro lists in commands.h generate the recorded ones.
 */
#ifndef HESPER_HOOKS_H
#define HESPER_HOOKS_H

#include <stdint.h>

#include <vulkan/vulkan.h>

#include "commands.h"

#define HESPER_LAYER_NAME "VK_LAYER_HESPER_profiler"
#define HESPER_EXPORT __attribute__((visibility("default")))

/* Host time spent inside Hesper's submit hooks so far, ns. */
uint64_t hesper_submit_hook_ns(void);

VKAPI_ATTR void VKAPI_CALL hesper_DestroyInstance(VkInstance, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateInstance(const VkInstanceCreateInfo *, const VkAllocationCallbacks *,
						     VkInstance *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateDevice(VkPhysicalDevice, const VkDeviceCreateInfo *,
						   const VkAllocationCallbacks *, VkDevice *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyDevice(VkDevice, const VkAllocationCallbacks *);
VKAPI_ATTR void VKAPI_CALL hesper_GetDeviceQueue(VkDevice, uint32_t, uint32_t, VkQueue *);
VKAPI_ATTR void VKAPI_CALL hesper_GetDeviceQueue2(VkDevice, const VkDeviceQueueInfo2 *, VkQueue *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateCommandPool(VkDevice, const VkCommandPoolCreateInfo *,
							const VkAllocationCallbacks *, VkCommandPool *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyCommandPool(VkDevice, VkCommandPool, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_ResetCommandPool(VkDevice, VkCommandPool, VkCommandPoolResetFlags);
VKAPI_ATTR VkResult VKAPI_CALL hesper_AllocateCommandBuffers(VkDevice, const VkCommandBufferAllocateInfo *,
							     VkCommandBuffer *);
VKAPI_ATTR void VKAPI_CALL hesper_FreeCommandBuffers(VkDevice, VkCommandPool, uint32_t, const VkCommandBuffer *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_BeginCommandBuffer(VkCommandBuffer, const VkCommandBufferBeginInfo *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_EndCommandBuffer(VkCommandBuffer);
VKAPI_ATTR VkResult VKAPI_CALL hesper_ResetCommandBuffer(VkCommandBuffer, VkCommandBufferResetFlags);
VKAPI_ATTR void VKAPI_CALL hesper_CmdBindPipeline(VkCommandBuffer, VkPipelineBindPoint, VkPipeline);
VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatch(VkCommandBuffer, uint32_t, uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatchIndirect(VkCommandBuffer, VkBuffer, VkDeviceSize);
VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatchBase(VkCommandBuffer, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
						  uint32_t);
VKAPI_ATTR void VKAPI_CALL hesper_CmdDispatchBaseKHR(VkCommandBuffer, uint32_t, uint32_t, uint32_t, uint32_t,
						     uint32_t, uint32_t);
VKAPI_ATTR void VKAPI_CALL hesper_CmdExecuteCommands(VkCommandBuffer, uint32_t, const VkCommandBuffer *);
VKAPI_ATTR void VKAPI_CALL hesper_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer, const VkDebugUtilsLabelEXT *);
VKAPI_ATTR void VKAPI_CALL hesper_CmdEndDebugUtilsLabelEXT(VkCommandBuffer);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateShaderModule(VkDevice, const VkShaderModuleCreateInfo *,
							 const VkAllocationCallbacks *, VkShaderModule *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyShaderModule(VkDevice, VkShaderModule, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateComputePipelines(VkDevice, VkPipelineCache, uint32_t,
							     const VkComputePipelineCreateInfo *,
							     const VkAllocationCallbacks *, VkPipeline *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyPipeline(VkDevice, VkPipeline, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateBuffer(VkDevice, const VkBufferCreateInfo *, const VkAllocationCallbacks *,
						   VkBuffer *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyBuffer(VkDevice, VkBuffer, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateImage(VkDevice, const VkImageCreateInfo *, const VkAllocationCallbacks *,
						  VkImage *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyImage(VkDevice, VkImage, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_CreatePipelineLayout(VkDevice, const VkPipelineLayoutCreateInfo *,
							   const VkAllocationCallbacks *, VkPipelineLayout *);
VKAPI_ATTR void VKAPI_CALL hesper_DestroyPipelineLayout(VkDevice, VkPipelineLayout, const VkAllocationCallbacks *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_SetDebugUtilsObjectNameEXT(VkDevice, const VkDebugUtilsObjectNameInfoEXT *);
VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit(VkQueue, uint32_t, const VkSubmitInfo *, VkFence);
VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit2(VkQueue, uint32_t, const VkSubmitInfo2 *, VkFence);
VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueSubmit2KHR(VkQueue, uint32_t, const VkSubmitInfo2 *, VkFence);
VKAPI_ATTR VkResult VKAPI_CALL hesper_QueueWaitIdle(VkQueue);
VKAPI_ATTR VkResult VKAPI_CALL hesper_DeviceWaitIdle(VkDevice);
VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitForFences(VkDevice, uint32_t, const VkFence *, VkBool32, uint64_t);
VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitSemaphores(VkDevice, const VkSemaphoreWaitInfo *, uint64_t);
VKAPI_ATTR VkResult VKAPI_CALL hesper_WaitSemaphoresKHR(VkDevice, const VkSemaphoreWaitInfo *, uint64_t);
VKAPI_ATTR VkResult VKAPI_CALL hesper_GetFenceStatus(VkDevice, VkFence);
VKAPI_ATTR VkResult VKAPI_CALL hesper_GetQueryPoolResults(VkDevice, VkQueryPool, uint32_t, uint32_t, size_t, void *,
							  VkDeviceSize, VkQueryResultFlags);

#define HESPER_WORK_PROTOTYPE(name, params, args) VKAPI_ATTR void VKAPI_CALL hesper_##name params;
#define HESPER_STAMP_PROTOTYPE(name, params, args, top) HESPER_WORK_PROTOTYPE(name, params, args)
HESPER_WORK_COMMANDS(HESPER_WORK_PROTOTYPE)
HESPER_STAMP_COMMANDS(HESPER_STAMP_PROTOTYPE)
HESPER_BARRIER_COMMANDS(HESPER_STAMP_PROTOTYPE)
#define HESPER_MEMORY_PROTOTYPE(name, params, args, kind, size) HESPER_WORK_PROTOTYPE(name, params, args)
HESPER_MEMORY_COMMANDS(HESPER_MEMORY_PROTOTYPE)

#endif
