/* A whole JSON file read and parsed, failures told apart: the file, the text, memory. */
#include "json_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <hesper/profiling.h>

int
hesper_json_file_fail(int status, const char *path, char *err, size_t err_size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || err_size == 0)
		return status;
	n = snprintf(err, err_size, "%s: ", path ? path : "(null)");
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < err_size)
		vsnprintf(err + n, err_size - (size_t)n, fmt, ap);
	va_end(ap);
	return status;
}

json_object *
hesper_json_member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The whole file as a NUL-terminated string in *@text, its length in *@len. */
static int
read_all(FILE *f, char **text, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (ferror(f)) {
			free(buf);
			return HESPER_ERROR_IO;
		}
		if (feof(f))
			break;
		char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
		if (!bigger)
			free(buf);
		buf = bigger;
		cap *= 2;
	}
	if (!buf)
		return HESPER_ERROR_NO_MEMORY;
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return HESPER_OK;
}

/* Whether the @len bytes of @text are white space alone (or none). */
static bool
only_space(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n')
			return false;
	return true;
}

/* HESPER_OK when @tok parsed all of @text (@len bytes), white space after the value allowed. */
static int
parsed_whole(json_tokener *tok, const char *text, size_t len, const char **why)
{
	enum json_tokener_error jerr = json_tokener_get_error(tok);

	if (jerr != json_tokener_success) {
		*why = jerr == json_tokener_continue ? "the text ends early" : json_tokener_error_desc(jerr);
		return HESPER_ERROR_FORMAT;
	}
	size_t end = json_tokener_get_parse_end(tok);
	*why = "text after the value";
	return end >= len || only_space(text + end, len - end) ? HESPER_OK : HESPER_ERROR_FORMAT;
}

int
hesper_json_file_load(const char *path, json_object **root, char *err, size_t err_size)
{
	FILE *f = NULL;
	char *text = NULL;
	size_t len = 0;
	json_tokener *tok = NULL;
	const char *why;
	int ret;

	*root = NULL;
	f = fopen(path, "rb");
	if (!f) {
		ret = hesper_json_file_fail(HESPER_ERROR_IO, path, err, err_size, "cannot open: %s", strerror(errno));
		goto out;
	}
	ret = read_all(f, &text, &len);
	if (ret != HESPER_OK) {
		hesper_json_file_fail(ret, path, err, err_size, "cannot read: %s",
				      ret == HESPER_ERROR_IO ? strerror(errno) : "out of memory");
		goto out;
	}
	if (only_space(text, len)) {
		ret = hesper_json_file_fail(HESPER_ERROR_FORMAT, path, err, err_size, "the file is empty");
		goto out;
	}
	tok = json_tokener_new();
	if (!tok) {
		ret = hesper_json_file_fail(HESPER_ERROR_NO_MEMORY, path, err, err_size, "out of memory");
		goto out;
	}
	*root = json_tokener_parse_ex(tok, text, len < INT32_MAX ? (int)len : INT32_MAX);
	ret = parsed_whole(tok, text, len, &why);
	if (ret != HESPER_OK) {
		json_object_put(*root);
		*root = NULL;
		hesper_json_file_fail(ret, path, err, err_size, "not JSON: %s", why);
		goto out;
	}
	ret = HESPER_OK;
out:
	if (tok)
		json_tokener_free(tok);
	free(text);
	if (f)
		fclose(f);
	return ret;
}
