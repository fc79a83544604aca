/* The library's version and the words for its status codes. */
#include <hesper/profiling.h>

#ifndef HESPER_VERSION
#define HESPER_VERSION "unknown"
#endif

const char *
hesper_version(void)
{
	return HESPER_VERSION;
}

const char *
hesper_status_string(int status)
{
	switch (status) {
	case HESPER_OK: return "success";
	case HESPER_ERROR_IO: return "input/output error";
	case HESPER_ERROR_FORMAT: return "not a Hesper file of the expected kind";
	case HESPER_ERROR_NO_MEMORY: return "out of memory";
	case HESPER_ERROR_ARGUMENT: return "invalid argument";
	}
	return "unknown status";
}
