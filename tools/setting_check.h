/*
 * The run options that become HESPER_* settings, checked by the layer's own settings
 * parser (layer/state/settings.c), so that an option accepts exactly what its variable does.
 */
#ifndef HESPER_TOOL_SETTING_CHECK_H
#define HESPER_TOOL_SETTING_CHECK_H

/*
 * 0 when @variable (e.g. "HESPER_SAMPLE") accepts @value; otherwise one line naming
 * @option, the value and what is accepted, and HESPER_EXIT_USAGE.
 */
int hesper_check_setting(const char *option, const char *variable, const char *value);

#endif
