/*
 * HESPER_GROUP_BY: which row of the kernel table a dispatch is counted in, and that row's
 * name. `kernel` keeps one row per kernel; `shape` splits it by work-group count
 * ("kernel [X×Y×Z]", "kernel [?]" when an indirect dispatch's counts were not read back);
 * `label` by the innermost debug-utils label it ran in ("label/kernel", as kernels_by_label
 * names its rows; a dispatch outside every label keeps the kernel's name).
 */
#ifndef HESPER_ROW_NAMES_H
#define HESPER_ROW_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* In the order of HESPER_GROUP_BY's words (layer/state/settings_list.h). */
enum hesper_group_by {
	HESPER_GROUP_BY_KERNEL,
	HESPER_GROUP_BY_SHAPE,
	HESPER_GROUP_BY_LABEL,
	HESPER_GROUP_BY_COUNT,
};

/* The word of @g as HESPER_GROUP_BY and the JSON's "group_by" spell it; "kernel" when out of range. */
const char *hesper_group_by_word(enum hesper_group_by g);

/* The grouping whose word is exactly @word into *@out; false (and *@out untouched) when none is. */
bool hesper_group_by_from_word(const char *word, enum hesper_group_by *out);

/*
 * The row name of a dispatch of @kernel under @g into @buf (@size > 0, cut to fit, always
 * NUL-terminated): @label is its innermost debug label or NULL; @groups its work-group
 * counts, @known false when they are unknown (an indirect dispatch not read back). Returns
 * the length the whole name has, as snprintf does.
 */
size_t hesper_row_name(char *buf, size_t size, enum hesper_group_by g, const char *kernel, const char *label,
		       const uint32_t groups[3], bool known);

/* Whether @row is one hesper_row_name makes of @kernel: "kernel", "kernel [shape]" or "label/kernel". */
bool hesper_row_is_of(const char *row, const char *kernel);

#endif
