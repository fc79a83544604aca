/*
 * The single list of Vulkan commands Hesper touches. Each table entry is one of
 *   HOOK(name)  Hesper implements vk<name> (as hesper_<name>) and calls down the chain;
 *   NEXT(name)  Hesper only calls vk<name> of the next layer for its own work.
 * The dispatch tables, the proc-address lookups and the hook prototypes are all
 * generated from these lists, so adding a command is one line here plus its hook.
 */
#ifndef HESPER_COMMANDS_H
#define HESPER_COMMANDS_H

/* vkCreateInstance, vkGetInstanceProcAddr and vkGetDeviceProcAddr are handled by hand. */
#define HESPER_INSTANCE_COMMANDS(HOOK, NEXT)                 \
	HOOK(DestroyInstance)                                \
	HOOK(CreateDevice)                                   \
	NEXT(GetPhysicalDeviceProperties)                    \
	NEXT(GetPhysicalDeviceProperties2)                   \
	NEXT(GetPhysicalDeviceProperties2KHR)                \
	NEXT(GetPhysicalDeviceQueueFamilyProperties)         \
	NEXT(GetPhysicalDeviceMemoryProperties)              \
	NEXT(EnumerateDeviceExtensionProperties)             \
	NEXT(GetPhysicalDeviceCalibrateableTimeDomainsEXT)

#define HESPER_DEVICE_COMMANDS(HOOK, NEXT)                   \
	HOOK(DestroyDevice)                                  \
	HOOK(GetDeviceQueue)                                 \
	HOOK(GetDeviceQueue2)                                \
	HOOK(CreateCommandPool)                              \
	HOOK(DestroyCommandPool)                             \
	HOOK(ResetCommandPool)                               \
	HOOK(AllocateCommandBuffers)                         \
	HOOK(FreeCommandBuffers)                             \
	HOOK(BeginCommandBuffer)                             \
	HOOK(EndCommandBuffer)                               \
	HOOK(ResetCommandBuffer)                             \
	HOOK(CmdBindPipeline)                                \
	HOOK(CmdDispatch)                                    \
	HOOK(CmdDispatchIndirect)                            \
	HOOK(CmdDispatchBase)                                \
	HOOK(CmdDispatchBaseKHR)                             \
	HOOK(CmdExecuteCommands)                             \
	HOOK(CmdBeginDebugUtilsLabelEXT)                     \
	HOOK(CmdEndDebugUtilsLabelEXT)                       \
	HOOK(CreateShaderModule)                             \
	HOOK(DestroyShaderModule)                            \
	HOOK(CreateComputePipelines)                         \
	HOOK(DestroyPipeline)                                \
	HOOK(SetDebugUtilsObjectNameEXT)                     \
	HOOK(QueueSubmit)                                    \
	HOOK(QueueSubmit2)                                   \
	HOOK(QueueSubmit2KHR)                                \
	HOOK(QueueWaitIdle)                                  \
	HOOK(DeviceWaitIdle)                                 \
	HOOK(WaitForFences)                                  \
	HOOK(WaitSemaphores)                                 \
	HOOK(WaitSemaphoresKHR)                              \
	NEXT(CreateQueryPool)                                \
	NEXT(DestroyQueryPool)                               \
	NEXT(CmdResetQueryPool)                              \
	NEXT(CmdWriteTimestamp)                              \
	NEXT(CmdCopyQueryPoolResults)                        \
	NEXT(CmdPipelineBarrier)                             \
	NEXT(CreateBuffer)                                   \
	NEXT(DestroyBuffer)                                  \
	NEXT(GetBufferMemoryRequirements)                    \
	NEXT(AllocateMemory)                                 \
	NEXT(FreeMemory)                                     \
	NEXT(BindBufferMemory)                               \
	NEXT(MapMemory)                                      \
	NEXT(UnmapMemory)                                    \
	NEXT(InvalidateMappedMemoryRanges)                   \
	NEXT(CreateFence)                                    \
	NEXT(DestroyFence)                                   \
	NEXT(ResetFences)                                    \
	NEXT(GetFenceStatus)                                 \
	NEXT(GetCalibratedTimestampsEXT)                     \
	NEXT(CreateSemaphore)                                \
	NEXT(DestroySemaphore)                               \
	NEXT(GetSemaphoreCounterValueKHR)

#endif
