/* The "C" locale for the time Hesper writes (see c_numbers.h). */
#include "c_numbers.h"

#include <pthread.h>

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void
make_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t
hesper_c_numbers_begin(void)
{
	pthread_once(&c_locale_once, make_c_locale);
	return c_locale ? uselocale(c_locale) : (locale_t)0;
}

void
hesper_c_numbers_end(locale_t was)
{
	if (was)
		uselocale(was);
}
