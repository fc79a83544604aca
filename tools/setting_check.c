/* Run options checked as the layer checks their HESPER_* variables. */
#include "setting_check.h"

#include <string.h>

#include "settings.h"
#include "usage.h"

int
hesper_check_setting(const char *option, const char *variable, const char *value)
{
	const struct hesper_setting_row *row = NULL;
	struct hesper_settings settings;
	char accepted[512];

	hesper_settings_default(&settings);
	if (hesper_settings_apply(&settings, variable, value, NULL) == 0)
		return 0;
	for (size_t i = 0; (row = hesper_settings_row(i)) != NULL; i++)
		if (strcmp(row->name, variable) == 0)
			break;
	if (!row)
		return hesper_usage_error("%s: no such setting as %s", option, variable);
	hesper_settings_accepted(row, accepted, sizeof(accepted));
	return hesper_usage_error("%s takes %s (as %s does), not '%s'", option, accepted, variable, value);
}
