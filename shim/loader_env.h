/*
 * How the preloaded library makes the Vulkan loader load Hesper as a layer: environment
 * edits computed from what is already set, kept pure so they can be unit-tested.
 */
#ifndef HESPER_LOADER_ENV_H
#define HESPER_LOADER_ENV_H

#include <stdbool.h>
#include <stddef.h>

/* Loader version as major*1000000 + minor*1000 + patch, e.g. 1003239; 0 when unknown. */
typedef unsigned long hesper_loader_version;

/* The first loader with VK_ADD_LAYER_PATH. */
#define HESPER_LOADER_ADD_LAYER_PATH 1003207ul

/* Parses a loader file name such as "libvulkan.so.1.3.239"; 0 when it carries no version. */
hesper_loader_version hesper_loader_version_from_name(const char *file_name);

/* True when the colon-separated @list contains @item exactly. */
bool hesper_list_contains(const char *list, char separator, const char *item);

/*
 * Writes into @out (of @size bytes) @item followed by @separator and @existing, or just
 * @item when @existing is NULL or empty. Returns false when it does not fit.
 */
bool hesper_list_prepend(char *out, size_t size, const char *item, char separator, const char *existing);

#endif
