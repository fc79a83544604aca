/*
 * The dispatch tables: the next layer's entry points Hesper calls, per instance and per
 * device, generated from the command lists in commands.h.
 */
#ifndef HESPER_DISPATCH_H
#define HESPER_DISPATCH_H

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "commands.h"

#define HESPER_PFN_MEMBER(name) PFN_vk##name name;
#define HESPER_HOOK_MEMBER(ret, name, params) HESPER_PFN_MEMBER(name)

struct hesper_instance_table {
	PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
	HESPER_INSTANCE_COMMANDS(HESPER_HOOK_MEMBER, HESPER_PFN_MEMBER)
};

#define HESPER_WORK_MEMBER(name, params, args) PFN_vk##name name;
#define HESPER_STAMP_MEMBER(name, params, args, ...) PFN_vk##name name;
#define HESPER_MEMORY_MEMBER(name, params, args, kind, size) PFN_vk##name name;

struct hesper_device_table {
	PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
	HESPER_DEVICE_COMMANDS(HESPER_HOOK_MEMBER, HESPER_PFN_MEMBER)
	HESPER_WORK_COMMANDS(HESPER_WORK_MEMBER)
	HESPER_STAMP_COMMANDS(HESPER_STAMP_MEMBER)
	HESPER_BARRIER_COMMANDS(HESPER_STAMP_MEMBER)
	HESPER_MEMORY_COMMANDS(HESPER_MEMORY_MEMBER)
};

#endif
