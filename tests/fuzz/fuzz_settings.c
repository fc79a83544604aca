/*
 * libFuzzer target: hesper_settings_apply and hesper_settings_from_env on arbitrary
 * names and values. The first line of the input picks the name (a known one by its
 * first byte, the row of settings_list.h at that index, or the line itself), the rest
 * is the value; then the whole input, split at newlines, is used as an environment.
 * Error lines go to /dev/null.
 *
 * Built and run by scripts/fuzz; by hand, from the repository root:
 *   clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
 *     -Ilayer/state -Ianalysis tests/fuzz/fuzz_settings.c layer/state/settings.c layer/state/settings_signal.c \
 *     analysis/model/settings_text.c -o fuzz_settings
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static FILE *sink;

static void
check_ranges(const struct hesper_settings *s)
{
	CHECK(s->mode == HESPER_MODE_DISPATCH || s->mode == HESPER_MODE_SUBMIT || s->mode == HESPER_MODE_CLOCK);
	CHECK(s->sample_every >= 1 && s->sample_every <= 1000000);
	CHECK(s->max_events <= 1000000000);
	CHECK(s->exit_timeout_ms <= 600000);
	CHECK(strcmp(hesper_mode_name(s->mode), "unknown") != 0);
	CHECK(s->interval_ms == 0 || (s->interval_ms >= 100 && s->interval_ms <= 86400000));
	CHECK(s->control_path[sizeof(s->control_path) - 1] == '\0' ||
	      strlen(s->control_path) < sizeof(s->control_path));
	CHECK(s->start.kind != HESPER_BOUND_LABEL ||
	      (s->start.label[0] && strlen(s->start.label) < sizeof(s->start.label)));
	CHECK(s->stop.kind != HESPER_BOUND_LABEL || (s->stop.label[0] && s->stop.nth >= 1));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hesper_settings s, before;
	char *copy, *name, *value, *nl;
	char **env;
	size_t lines = 1;
	int rc;

	if (!sink)
		sink = fopen("/dev/null", "w");

	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';

	/* apply: name on the first line, value after it. */
	nl = strchr(copy, '\n');
	value = nl ? nl + 1 : copy + strlen(copy);
	if (nl)
		*nl = '\0';
	name = copy;
	if (size > 0 && hesper_settings_row((unsigned char)copy[0]))
		name = (char *)hesper_settings_row((unsigned char)copy[0])->name;

	hesper_settings_default(&s);
	before = s;
	rc = hesper_settings_apply(&s, name, value, sink);
	CHECK(rc == 0 || rc == -1);
	if (rc != 0)
		CHECK(memcmp(&s, &before, sizeof s) == 0);
	check_ranges(&s);
	/* Applying the same thing twice gives the same answer. */
	CHECK(hesper_settings_apply(&s, name, value, sink) == rc);
	if (nl)
		*nl = '\n';

	/* from_env: every line is a NAME=VALUE entry. */
	for (size_t i = 0; i < size; i++)
		lines += copy[i] == '\n';
	env = calloc(lines + 1, sizeof *env);
	if (env) {
		size_t k = 0;
		char *p = copy;

		for (;;) {
			env[k++] = p;
			nl = strchr(p, '\n');
			if (!nl)
				break;
			*nl = '\0';
			p = nl + 1;
		}
		CHECK(k <= lines);
		rc = hesper_settings_from_env(&s, env, sink);
		CHECK(rc >= 0 && (size_t)rc <= k);
		check_ranges(&s);
		free(env);
	}
	free(copy);
	return 0;
}
