/*
 * Finding a source file that a module names (OpString of its OpLine or OpSource) but does
 * not embed, in the directories of HESPER_SOURCE_PATH, for the hot lines' annotated
 * listing. Pure C: files only, no Vulkan.
 */
#ifndef HESPER_SOURCE_PATH_H
#define HESPER_SOURCE_PATH_H

/* Largest source file read, in bytes: a larger one is not listed. */
#define HESPER_SOURCE_MAX (4u << 20)

/*
 * The text of @file (a path as the module names it) from the first of @dirs (directories
 * separated by ':', empty ones left out; a relative one under @base where @base is given)
 * that has it: DIR/@file when @file is relative, else DIR/ its last component. NULL when no
 * directory has it, it is larger than HESPER_SOURCE_MAX or holds a zero byte, or memory
 * runs out; else the text (malloc'd, terminated) and *@found (malloc'd) the path read, made
 * canonical (realpath) where it can be.
 */
char *hesper_source_find(const char *dirs, const char *base, const char *file, char **found);

#endif
