/* Reading and clearing write-combined device memory (device_memory_copy.h). */
#include "device_memory_copy.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

/* Lines of 64 bytes by four streaming loads each (one read across PCIe), then the rest by 16. */
__attribute__((target("sse4.1"))) static void stream_copy(void *to, const void *from, size_t bytes)
{
	__m128i *s = (__m128i *)(uintptr_t)from;
	__m128i *d = to;
	size_t n = bytes / 16, i = 0;
	for (; i + 4 <= n; i += 4) {
		__m128i a = _mm_stream_load_si128(s + i), b = _mm_stream_load_si128(s + i + 1);
		__m128i c = _mm_stream_load_si128(s + i + 2), e = _mm_stream_load_si128(s + i + 3);
		_mm_storeu_si128(d + i, a);
		_mm_storeu_si128(d + i + 1, b);
		_mm_storeu_si128(d + i + 2, c);
		_mm_storeu_si128(d + i + 3, e);
	}
	for (; i < n; i++)
		_mm_storeu_si128(d + i, _mm_stream_load_si128(s + i));
}
#endif

void hesper_device_memory_take(void *to, void *from, size_t bytes)
{
#if defined(__x86_64__)
	if (((uintptr_t)from | bytes) % 16 == 0 && __builtin_cpu_supports("sse4.1")) {
		stream_copy(to, from, bytes);
		memset(from, 0, bytes);
		/* the zeros leave the write-combining buffers before the GPU may run again */
		_mm_sfence();
		return;
	}
#endif
	memcpy(to, from, bytes);
	memset(from, 0, bytes);
}
