/* Finding Hesper's state of the program's instances, devices and queues by their handles. */
#include "objects.h"
#include "process.h"
#include "util.h"

struct hesper_instance *hesper_instance_from(const void *dispatchable)
{
	return hesper_map_get(&hesper_process()->instances, hesper_dispatch_key(dispatchable));
}

struct hesper_device *hesper_device_from(const void *dispatchable)
{
	return hesper_map_get(&hesper_process()->device_keys, hesper_dispatch_key(dispatchable));
}

struct hesper_queue *hesper_queue_from(VkQueue queue)
{
	return hesper_map_get(&hesper_process()->queues, (uint64_t)(uintptr_t)queue);
}
