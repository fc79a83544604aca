/*
 * The single list of Vulkan commands Hesper touches. Each table entry is one of
 *   HOOK(return type, name, parameters)  Hesper implements vk<name> (as hesper_<name>)
 *                                        and calls down the chain;
 *   NEXT(name)  Hesper only calls vk<name> of the next layer for its own work.
 * The dispatch tables, the proc-address lookups and the hook prototypes are all
 * generated from these lists, so adding a command is one line here plus its hook.
 */

/* Prefix of the argument lists below: every recorded command starts with its command buffer. */
#define HESPER_CB VkCommandBuffer cb
#ifndef HESPER_COMMANDS_H
#define HESPER_COMMANDS_H

/* clang-format off */
/* vkCreateInstance, vkGetInstanceProcAddr and vkGetDeviceProcAddr are handled by hand. */
#define HESPER_INSTANCE_COMMANDS(HOOK, NEXT)                                                            \
	HOOK(void, DestroyInstance, (VkInstance, const VkAllocationCallbacks *))                        \
	HOOK(VkResult, CreateDevice, (VkPhysicalDevice, const VkDeviceCreateInfo *, const VkAllocationCallbacks *, VkDevice *)) \
	NEXT(GetPhysicalDeviceProperties)                                                               \
	NEXT(GetPhysicalDeviceProperties2)                                                              \
	NEXT(GetPhysicalDeviceProperties2KHR)                                                           \
	NEXT(GetPhysicalDeviceQueueFamilyProperties)                                                    \
	NEXT(GetPhysicalDeviceMemoryProperties)                                                         \
	NEXT(EnumerateDeviceExtensionProperties)                                                        \
	NEXT(GetPhysicalDeviceCalibrateableTimeDomainsEXT)                                              \
	NEXT(GetPhysicalDeviceFeatures2)

#define HESPER_DEVICE_COMMANDS(HOOK, NEXT)                                                              \
	HOOK(void, DestroyDevice, (VkDevice, const VkAllocationCallbacks *))                            \
	HOOK(void, GetDeviceQueue, (VkDevice, uint32_t, uint32_t, VkQueue *))                           \
	HOOK(void, GetDeviceQueue2, (VkDevice, const VkDeviceQueueInfo2 *, VkQueue *))                  \
	HOOK(VkResult, CreateCommandPool, (VkDevice, const VkCommandPoolCreateInfo *, const VkAllocationCallbacks *, VkCommandPool *)) \
	HOOK(void, DestroyCommandPool, (VkDevice, VkCommandPool, const VkAllocationCallbacks *))        \
	HOOK(VkResult, ResetCommandPool, (VkDevice, VkCommandPool, VkCommandPoolResetFlags))            \
	HOOK(VkResult, AllocateCommandBuffers, (VkDevice, const VkCommandBufferAllocateInfo *, VkCommandBuffer *)) \
	HOOK(void, FreeCommandBuffers, (VkDevice, VkCommandPool, uint32_t, const VkCommandBuffer *))    \
	HOOK(VkResult, BeginCommandBuffer, (VkCommandBuffer, const VkCommandBufferBeginInfo *))         \
	HOOK(VkResult, EndCommandBuffer, (VkCommandBuffer))                                             \
	HOOK(VkResult, ResetCommandBuffer, (VkCommandBuffer, VkCommandBufferResetFlags))                \
	HOOK(void, CmdBindPipeline, (VkCommandBuffer, VkPipelineBindPoint, VkPipeline))                 \
	HOOK(void, CmdDispatch, (VkCommandBuffer, uint32_t, uint32_t, uint32_t))                        \
	HOOK(void, CmdDispatchIndirect, (VkCommandBuffer, VkBuffer, VkDeviceSize))                      \
	HOOK(void, CmdDispatchBase, (VkCommandBuffer, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t)) \
	HOOK(void, CmdDispatchBaseKHR, (VkCommandBuffer, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t)) \
	HOOK(void, CmdExecuteCommands, (VkCommandBuffer, uint32_t, const VkCommandBuffer *))            \
	HOOK(void, CmdBeginDebugUtilsLabelEXT, (VkCommandBuffer, const VkDebugUtilsLabelEXT *))         \
	HOOK(void, CmdEndDebugUtilsLabelEXT, (VkCommandBuffer))                                         \
	HOOK(VkResult, CreateShaderModule, (VkDevice, const VkShaderModuleCreateInfo *, const VkAllocationCallbacks *, VkShaderModule *)) \
	HOOK(void, DestroyShaderModule, (VkDevice, VkShaderModule, const VkAllocationCallbacks *))      \
	HOOK(VkResult, CreateComputePipelines, (VkDevice, VkPipelineCache, uint32_t, const VkComputePipelineCreateInfo *, const VkAllocationCallbacks *, VkPipeline *)) \
	HOOK(void, DestroyPipeline, (VkDevice, VkPipeline, const VkAllocationCallbacks *))              \
	HOOK(VkResult, CreatePipelineLayout, (VkDevice, const VkPipelineLayoutCreateInfo *, const VkAllocationCallbacks *, VkPipelineLayout *)) \
	HOOK(void, DestroyPipelineLayout, (VkDevice, VkPipelineLayout, const VkAllocationCallbacks *))  \
	HOOK(VkResult, SetDebugUtilsObjectNameEXT, (VkDevice, const VkDebugUtilsObjectNameInfoEXT *))   \
	HOOK(VkResult, QueueSubmit, (VkQueue, uint32_t, const VkSubmitInfo *, VkFence))                 \
	HOOK(VkResult, QueueSubmit2, (VkQueue, uint32_t, const VkSubmitInfo2 *, VkFence))               \
	HOOK(VkResult, QueueSubmit2KHR, (VkQueue, uint32_t, const VkSubmitInfo2 *, VkFence))            \
	HOOK(VkResult, QueueWaitIdle, (VkQueue))                                                        \
	HOOK(VkResult, DeviceWaitIdle, (VkDevice))                                                      \
	HOOK(VkResult, WaitForFences, (VkDevice, uint32_t, const VkFence *, VkBool32, uint64_t))        \
	HOOK(VkResult, WaitSemaphores, (VkDevice, const VkSemaphoreWaitInfo *, uint64_t))               \
	HOOK(VkResult, WaitSemaphoresKHR, (VkDevice, const VkSemaphoreWaitInfo *, uint64_t))            \
	HOOK(VkResult, GetFenceStatus, (VkDevice, VkFence))                                             \
	HOOK(VkResult, GetQueryPoolResults, (VkDevice, VkQueryPool, uint32_t, uint32_t, size_t, void *, VkDeviceSize, VkQueryResultFlags)) \
	NEXT(CreateQueryPool)                                                                           \
	NEXT(DestroyQueryPool)                                                                          \
	HOOK(VkResult, CreateBuffer, (VkDevice, const VkBufferCreateInfo *, const VkAllocationCallbacks *, VkBuffer *)) \
	HOOK(void, DestroyBuffer, (VkDevice, VkBuffer, const VkAllocationCallbacks *))                  \
	HOOK(VkResult, CreateImage, (VkDevice, const VkImageCreateInfo *, const VkAllocationCallbacks *, VkImage *)) \
	HOOK(void, DestroyImage, (VkDevice, VkImage, const VkAllocationCallbacks *))                    \
	NEXT(GetBufferMemoryRequirements)                                                               \
	NEXT(AllocateMemory)                                                                            \
	NEXT(FreeMemory)                                                                                \
	NEXT(BindBufferMemory)                                                                          \
	NEXT(MapMemory)                                                                                 \
	NEXT(UnmapMemory)                                                                               \
	NEXT(InvalidateMappedMemoryRanges)                                                              \
	NEXT(FlushMappedMemoryRanges)                                                                   \
	NEXT(CreateFence)                                                                               \
	NEXT(DestroyFence)                                                                              \
	NEXT(ResetFences)                                                                               \
	NEXT(GetCalibratedTimestampsEXT)                                                                \
	NEXT(CreateSemaphore)                                                                           \
	NEXT(DestroySemaphore)                                                                          \
	NEXT(GetSemaphoreCounterValueKHR)                                                               \
	NEXT(GetPipelineExecutablePropertiesKHR)                                                        \
	NEXT(GetPipelineExecutableStatisticsKHR)                                                        \
	HOOK(VkResult, CreateDescriptorSetLayout, (VkDevice, const VkDescriptorSetLayoutCreateInfo *, const VkAllocationCallbacks *, VkDescriptorSetLayout *)) \
	HOOK(void, DestroyDescriptorSetLayout, (VkDevice, VkDescriptorSetLayout, const VkAllocationCallbacks *)) \
	NEXT(CreateDescriptorPool)                                                                      \
	NEXT(DestroyDescriptorPool)                                                                     \
	NEXT(AllocateDescriptorSets)                                                                    \
	NEXT(UpdateDescriptorSets)                                                                      \
	NEXT(CmdBindDescriptorSets)

/*
 * Recorded commands that make the GPU work without Hesper timing them (barriers too, in
 * their own list below: they wait and flush caches). Their hooks,
 * generated whole from this list, only note that the GPU may be busy again (so the next
 * timed dispatch starts its pair with a BOTTOM_OF_PIPE timestamp) and call down.
 * WORK(name, parameters after the command buffer, arguments after the command buffer)
 */
#define HESPER_WORK_COMMANDS(WORK)                                                                            \
	WORK(CmdBlitImage, (HESPER_CB, VkImage a, VkImageLayout la, VkImage b, VkImageLayout lb, uint32_t n,       \
			    const VkImageBlit *r, VkFilter f), (cb, a, la, b, lb, n, r, f))                   \
	WORK(CmdDraw, (HESPER_CB, uint32_t a, uint32_t b, uint32_t c, uint32_t d), (cb, a, b, c, d))              \
	WORK(CmdDrawIndexed, (HESPER_CB, uint32_t a, uint32_t b, uint32_t c, int32_t d, uint32_t e),              \
	     (cb, a, b, c, d, e))                                                                                 \
	WORK(CmdDrawIndirect, (HESPER_CB, VkBuffer a, VkDeviceSize o, uint32_t n, uint32_t s), (cb, a, o, n, s))  \
	WORK(CmdDrawIndexedIndirect, (HESPER_CB, VkBuffer a, VkDeviceSize o, uint32_t n, uint32_t s),             \
	     (cb, a, o, n, s))                                                                                    \
	WORK(CmdWaitEvents, (HESPER_CB, uint32_t n, const VkEvent *e, VkPipelineStageFlags s, VkPipelineStageFlags d, \
			     uint32_t mb, const VkMemoryBarrier *m, uint32_t bb, const VkBufferMemoryBarrier *b,   \
			     uint32_t ib, const VkImageMemoryBarrier *im), (cb, n, e, s, d, mb, m, bb, b, ib, im))     \
	WORK(CmdWaitEvents2, (HESPER_CB, uint32_t n, const VkEvent *e, const VkDependencyInfo *d), (cb, n, e, d))  \
	WORK(CmdWaitEvents2KHR, (HESPER_CB, uint32_t n, const VkEvent *e, const VkDependencyInfo *d), (cb, n, e, d)) \
	WORK(CmdResetQueryPool, (HESPER_CB, VkQueryPool p, uint32_t f, uint32_t n), (cb, p, f, n))                \
	WORK(CmdCopyQueryPoolResults, (HESPER_CB, VkQueryPool p, uint32_t f, uint32_t n, VkBuffer b, VkDeviceSize o, \
				       VkDeviceSize st, VkQueryResultFlags fl), (cb, p, f, n, b, o, st, fl))

/*
 * Pipeline barriers: work Hesper does not time, as above. In clock mode one that makes
 * compute wait for earlier compute is also where the program itself serializes its
 * dispatches, so timestamps written next to it cost the GPU no overlap (clock_edges.h).
 * In dispatch mode one that moves no image does no work after a timed dispatch's closing
 * timestamp, and the next dispatch opens from that timestamp (barrier_images.h).
 * BARRIER(name, parameters, arguments, expression: compute waits for earlier compute,
 *         expression: an image changes layout or queue family)
 */
#define HESPER_BARRIER_COMMANDS(BARRIER)                                                                      \
	BARRIER(CmdPipelineBarrier, (HESPER_CB, VkPipelineStageFlags s, VkPipelineStageFlags d, VkDependencyFlags f, \
				     uint32_t mb, const VkMemoryBarrier *m, uint32_t bb, const VkBufferMemoryBarrier *b, \
				     uint32_t ib, const VkImageMemoryBarrier *im), (cb, s, d, f, mb, m, bb, b, ib, im), \
		hesper_stages_order_compute(s, d), hesper_barriers_move_images(ib, im))                       \
	BARRIER(CmdPipelineBarrier2, (HESPER_CB, const VkDependencyInfo *d), (cb, d),                         \
		hesper_dependency_orders_compute(d), hesper_dependency_moves_images(d))                       \
	BARRIER(CmdPipelineBarrier2KHR, (HESPER_CB, const VkDependencyInfo *d), (cb, d),                      \
		hesper_dependency_orders_compute(d), hesper_dependency_moves_images(d))

/*
 * Recorded commands that move memory: copies, fills, updates and clears. Their hooks,
 * generated whole from this list (record_hooks.c), time them like dispatches (a
 * timestamp pair, chained with the timed work next to them) and note the bytes each
 * moves; the collector puts them in the profile's memory-operation rows, not the
 * kernel table. The size expression sees the device as dev_ (memory_ops.h).
 * MEMORY(name, parameters, arguments, enum hesper_memop_kind, struct hesper_op_size expression)
 */
#define HESPER_MEMORY_COMMANDS(MEMORY)                                                                        \
	MEMORY(CmdCopyBuffer, (HESPER_CB, VkBuffer a, VkBuffer b, uint32_t n, const VkBufferCopy *r),          \
	       (cb, a, b, n, r), HESPER_MEMOP_COPY_BUFFER, hesper_size_buffer_copies(n, r))                   \
	MEMORY(CmdCopyImage, (HESPER_CB, VkImage a, VkImageLayout la, VkImage b, VkImageLayout lb, uint32_t n, \
			      const VkImageCopy *r), (cb, a, la, b, lb, n, r), HESPER_MEMOP_COPY_IMAGE,         \
	       hesper_size_image_copies(dev_, a, n, r))                                                       \
	MEMORY(CmdCopyBufferToImage, (HESPER_CB, VkBuffer a, VkImage b, VkImageLayout lb, uint32_t n,           \
				      const VkBufferImageCopy *r), (cb, a, b, lb, n, r),                        \
	       HESPER_MEMOP_COPY_BUFFER_TO_IMAGE, hesper_size_buffer_image_copies(dev_, b, n, r))             \
	MEMORY(CmdCopyImageToBuffer, (HESPER_CB, VkImage a, VkImageLayout la, VkBuffer b, uint32_t n,           \
				      const VkBufferImageCopy *r), (cb, a, la, b, n, r),                        \
	       HESPER_MEMOP_COPY_IMAGE_TO_BUFFER, hesper_size_buffer_image_copies(dev_, a, n, r))             \
	MEMORY(CmdUpdateBuffer, (HESPER_CB, VkBuffer a, VkDeviceSize o, VkDeviceSize n, const void *d),         \
	       (cb, a, o, n, d), HESPER_MEMOP_UPDATE_BUFFER, hesper_size_known(n))                            \
	MEMORY(CmdFillBuffer, (HESPER_CB, VkBuffer a, VkDeviceSize o, VkDeviceSize n, uint32_t d),              \
	       (cb, a, o, n, d), HESPER_MEMOP_FILL_BUFFER, hesper_size_fill(dev_, a, o, n))                   \
	MEMORY(CmdClearColorImage, (HESPER_CB, VkImage a, VkImageLayout la, const VkClearColorValue *c,         \
				    uint32_t n, const VkImageSubresourceRange *r), (cb, a, la, c, n, r),        \
	       HESPER_MEMOP_CLEAR_COLOR_IMAGE, hesper_size_clear(dev_, a, n, r))                              \
	MEMORY(CmdCopyBuffer2, (HESPER_CB, const VkCopyBufferInfo2 *i), (cb, i), HESPER_MEMOP_COPY_BUFFER,     \
	       hesper_size_buffer_copies2(i))                                                                 \
	MEMORY(CmdCopyBuffer2KHR, (HESPER_CB, const VkCopyBufferInfo2 *i), (cb, i), HESPER_MEMOP_COPY_BUFFER,  \
	       hesper_size_buffer_copies2(i))                                                                 \
	MEMORY(CmdCopyImage2, (HESPER_CB, const VkCopyImageInfo2 *i), (cb, i), HESPER_MEMOP_COPY_IMAGE,        \
	       hesper_size_image_copies2(dev_, i))                                                            \
	MEMORY(CmdCopyImage2KHR, (HESPER_CB, const VkCopyImageInfo2 *i), (cb, i), HESPER_MEMOP_COPY_IMAGE,     \
	       hesper_size_image_copies2(dev_, i))                                                            \
	MEMORY(CmdCopyBufferToImage2, (HESPER_CB, const VkCopyBufferToImageInfo2 *i), (cb, i),                 \
	       HESPER_MEMOP_COPY_BUFFER_TO_IMAGE, hesper_size_buffer_image_copies2(dev_, i->dstImage, i->regionCount, i->pRegions)) \
	MEMORY(CmdCopyBufferToImage2KHR, (HESPER_CB, const VkCopyBufferToImageInfo2 *i), (cb, i),              \
	       HESPER_MEMOP_COPY_BUFFER_TO_IMAGE, hesper_size_buffer_image_copies2(dev_, i->dstImage, i->regionCount, i->pRegions)) \
	MEMORY(CmdCopyImageToBuffer2, (HESPER_CB, const VkCopyImageToBufferInfo2 *i), (cb, i),                 \
	       HESPER_MEMOP_COPY_IMAGE_TO_BUFFER, hesper_size_buffer_image_copies2(dev_, i->srcImage, i->regionCount, i->pRegions)) \
	MEMORY(CmdCopyImageToBuffer2KHR, (HESPER_CB, const VkCopyImageToBufferInfo2 *i), (cb, i),              \
	       HESPER_MEMOP_COPY_IMAGE_TO_BUFFER, hesper_size_buffer_image_copies2(dev_, i->srcImage, i->regionCount, i->pRegions))

/*
 * The program's own timestamps. They cost GPU time like work, so a dispatch after one
 * opens with a timestamp of its own; when the program's is TOP_OF_PIPE (or NONE), so is
 * Hesper's, so that a program timing a dispatch itself and Hesper measure the same
 * interval instead of Hesper's drain landing inside the program's pair.
 * STAMP(name, parameters, arguments, expression: the program's stage is the top of the pipe)
 */
#define HESPER_STAMP_COMMANDS(STAMP)                                                                          \
	STAMP(CmdWriteTimestamp, (HESPER_CB, VkPipelineStageFlagBits s, VkQueryPool p, uint32_t q), (cb, s, p, q), \
	      s == VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT)                                                         \
	STAMP(CmdWriteTimestamp2, (HESPER_CB, VkPipelineStageFlags2 s, VkQueryPool p, uint32_t q), (cb, s, p, q), \
	      s == VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT || s == VK_PIPELINE_STAGE_2_NONE)                        \
	STAMP(CmdWriteTimestamp2KHR, (HESPER_CB, VkPipelineStageFlags2 s, VkQueryPool p, uint32_t q),           \
	      (cb, s, p, q), s == VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT || s == VK_PIPELINE_STAGE_2_NONE)
/* clang-format on */

#endif
