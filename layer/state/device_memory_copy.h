/*
 * Reading and clearing memory that the CPU maps uncached or write-combined: a device's
 * host-visible, device-local memory (NVIDIA's BAR), where every plain load is a round trip
 * across PCIe of 8 to 32 bytes. Pure C, no Vulkan headers.
 */
#ifndef HESPER_DEVICE_MEMORY_COPY_H
#define HESPER_DEVICE_MEMORY_COPY_H

#include <stddef.h>

/*
 * Copies @bytes from the device memory at @from to host memory at @to, then zeroes them at
 * @from. On x86-64 with SSE4.1 and 16-byte aligned @from and @bytes: streaming loads
 * (MOVNTDQA), which fetch a whole 64-byte line of write-combined memory in one read, and a
 * store fence after the clearing; memcpy and memset otherwise.
 */
void hesper_device_memory_take(void *to, void *from, size_t bytes);

#endif
