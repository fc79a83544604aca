/* Reading a JSON file with json-c, with the reason for a failure told apart (the readers' errors). */
#ifndef HESPER_JSON_FILE_H
#define HESPER_JSON_FILE_H

#include <stdarg.h>
#include <stddef.h>

#include <json-c/json.h>

/*
 * Parses the file at @path into *@root (the caller puts it with json_object_put).
 * Returns HESPER_OK, HESPER_ERROR_IO (cannot open or read), HESPER_ERROR_FORMAT (not
 * JSON) or HESPER_ERROR_NO_MEMORY, with "PATH: reason" in @err.
 */
int hesper_json_file_load(const char *path, json_object **root, char *err, size_t err_size);

/* Writes "PATH: " and the message into @err (snprintf semantics; NULL or 0: nothing); returns @status. */
int hesper_json_file_fail(int status, const char *path, char *err, size_t err_size, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The member @key of object @o, or NULL (also when @o is not an object). */
json_object *hesper_json_member(json_object *o, const char *key);

#endif
