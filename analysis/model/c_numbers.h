/*
 * Numbers as the formats want them whatever locale the program took: a program that called
 * setlocale() with a decimal comma (de_DE, fr_FR) would otherwise put "1,5" into Hesper's
 * JSON, CSV, Prometheus and HTML. uselocale() changes the calling thread only, so the
 * program's other threads keep theirs.
 */
#ifndef HESPER_C_NUMBERS_H
#define HESPER_C_NUMBERS_H

#include <locale.h>

/* Gives the calling thread the "C" locale; returns its locale before, for hesper_c_numbers_end. */
locale_t hesper_c_numbers_begin(void);

/* Gives the calling thread back @was, from hesper_c_numbers_begin. */
void hesper_c_numbers_end(locale_t was);

#endif
