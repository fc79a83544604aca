/*
 * The Vulkan commands Hesper implements (hesper_<name>), as the loader and the
 * proc-address lookups see them: every prototype is generated from the lists in
 * commands.h, except vkCreateInstance's, which the loader reaches before any list.
 */
#ifndef HESPER_HOOKS_H
#define HESPER_HOOKS_H

#include <stdint.h>

#include <vulkan/vulkan.h>

#include "commands.h"

#define HESPER_EXPORT __attribute__((visibility("default")))

VKAPI_ATTR VkResult VKAPI_CALL hesper_CreateInstance(const VkInstanceCreateInfo *, const VkAllocationCallbacks *,
						     VkInstance *);

#define HESPER_HOOK_PROTOTYPE(ret, name, params) VKAPI_ATTR ret VKAPI_CALL hesper_##name params;
#define HESPER_NO_PROTOTYPE(name)
#define HESPER_WORK_PROTOTYPE(name, params, args) HESPER_HOOK_PROTOTYPE(void, name, params)
#define HESPER_STAMP_PROTOTYPE(name, params, args, ...) HESPER_HOOK_PROTOTYPE(void, name, params)
#define HESPER_MEMORY_PROTOTYPE(name, params, args, kind, size) HESPER_HOOK_PROTOTYPE(void, name, params)
HESPER_INSTANCE_COMMANDS(HESPER_HOOK_PROTOTYPE, HESPER_NO_PROTOTYPE)
HESPER_DEVICE_COMMANDS(HESPER_HOOK_PROTOTYPE, HESPER_NO_PROTOTYPE)
HESPER_WORK_COMMANDS(HESPER_WORK_PROTOTYPE)
HESPER_STAMP_COMMANDS(HESPER_STAMP_PROTOTYPE)
HESPER_BARRIER_COMMANDS(HESPER_STAMP_PROTOTYPE)
HESPER_MEMORY_COMMANDS(HESPER_MEMORY_PROTOTYPE)

#endif
