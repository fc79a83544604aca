/*
 * The LD_PRELOAD entry: before the program starts, point the Vulkan loader at Hesper's
 * layer manifest and enable the layer, so every instance the program creates (through
 * libvulkan's exports, dlopen, volk or any other route) has Hesper in it. Nothing here
 * touches Vulkan, prints or writes: a process that never uses Vulkan runs as before.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader_env.h"
#include "state/settings.h"

#define LAYER_NAME "VK_LAYER_HESPER_profiler"
#define MANIFEST_NAME "VkLayer_hesper.json"
#define ENV_MAX 16384

/* Directories searched for the loader when the program has not loaded it yet. */
static const char *const loader_dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64", "/lib",
};

/* The version of the loader this process will use, from its file name; 0 when unknown. */
static hesper_loader_version loader_version(void)
{
	char path[PATH_MAX], real[PATH_MAX];
	void *handle = dlopen("libvulkan.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (handle) {
		/* Already mapped (the program links it): ask where from. */
		Dl_info info;
		void *sym = dlsym(handle, "vkGetInstanceProcAddr");
		bool found = sym && dladdr(sym, &info) && info.dli_fname && realpath(info.dli_fname, real);
		dlclose(handle);
		if (found)
			return hesper_loader_version_from_name(real);
	}
	for (size_t i = 0; i < sizeof(loader_dirs) / sizeof(loader_dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/libvulkan.so.1", loader_dirs[i]);
		if (realpath(path, real))
			return hesper_loader_version_from_name(real);
	}
	return 0;
}

/* The directory holding this library, in @out. */
static bool own_directory(char *out, size_t size)
{
	Dl_info info;
	if (!dladdr((void *)own_directory, &info) || !info.dli_fname)
		return false;
	char real[PATH_MAX];
	if (!realpath(info.dli_fname, real))
		return false;
	char *slash = strrchr(real, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return snprintf(out, size, "%s", real) < (int)size;
}

/* Prepends @item to the @separator list in variable @name unless it is already there. */
static void prepend_env(const char *name, const char *item, char separator)
{
	const char *old = getenv(name);
	if (hesper_list_contains(old, separator, item))
		return;
	char value[ENV_MAX];
	if (hesper_list_prepend(value, sizeof(value), item, separator, old))
		setenv(name, value, 1);
}

/*
 * True when HESPER_DISABLE asks for nothing to happen, read by the layer's own reader
 * (layer/state/settings.c) from the same environment, so that the two never disagree on a value.
 * No error stream: a bad value is reported once, by the layer, if it is loaded.
 */
static bool disabled(void)
{
	struct hesper_settings s;
	hesper_settings_from_env(&s, environ, NULL);
	return s.disabled;
}

__attribute__((constructor)) static void hesper_shim_init(void)
{
	char dir[PATH_MAX], manifest[PATH_MAX + sizeof(MANIFEST_NAME) + 1];
	if (disabled() || !own_directory(dir, sizeof(dir)))
		return;
	snprintf(manifest, sizeof(manifest), "%s/%s", dir, MANIFEST_NAME);
	if (access(manifest, R_OK) != 0)
		return; /* a library without its manifest cannot be registered; see docs/loading.md */

	/*
	 * VK_LAYER_PATH replaces the search path (hiding the system's layers) and makes the
	 * loader ignore VK_ADD_LAYER_PATH: extend whichever the loader will read.
	 */
	hesper_loader_version version = loader_version();
	if (getenv("VK_LAYER_PATH")) {
		prepend_env("VK_LAYER_PATH", dir, ':');
	} else if (version == 0 || version >= HESPER_LOADER_ADD_LAYER_PATH) {
		prepend_env("VK_ADD_LAYER_PATH", dir, ':');
	} else {
		/* An old loader: name the system's layer directories too so they stay visible. */
		prepend_env("VK_LAYER_PATH",
			    "/usr/share/vulkan/explicit_layer.d:/etc/vulkan/explicit_layer.d:"
			    "/usr/local/share/vulkan/explicit_layer.d",
			    ':');
		prepend_env("VK_LAYER_PATH", dir, ':');
	}
	/* First in the list is closest to the program: above any layer the user enabled. */
	prepend_env("VK_INSTANCE_LAYERS", LAYER_NAME, ':');
}
