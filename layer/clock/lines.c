/*
 * Per-line hot spots at run time (lines.h): the counted pipelines of every device, their
 * counters' buffers, and their counts turned into a report's hot lines.
 *
 * Every counted pipeline stays on one list of the process until it exits, so that a
 * pipeline destroyed early still reports its counts: its buffer goes with it, its counts
 * and its module's lines stay.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "clock.h"
#include "lines.h"
#include "spirv_blocks.h"
#include "spirv_clock_parts.h"
#include "spirv_disasm.h"
#include "source_path.h"
#include "spirv_lines.h"
#include "state/state.h"

struct hesper_lines_pipeline {
	struct hesper_name *_Atomic kernel;
	VkPipelineLayout layout;
	uint32_t set;                        /* Hesper's set index in @layout */
	struct hesper_clock_buffer counters; /* HESPER_BLOCKS_COPIES copies of 2 * @blocks counts */
	uint32_t blocks;
	VkPipeline twin;  /* Hesper's counted copy of the program's pipeline, or VK_NULL_HANDLE */
	atomic_bool used; /* bound for a dispatch at least once: reported */
	uint64_t *kept;   /* the counts once the pipeline is gone; NULL before */
	struct hesper_spirv_lines lines;
	uint32_t *words; /* the module (host order) where some block has no line: its blocks are named from it */
	size_t word_count;
	struct hesper_lines_pipeline *next;
};

static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hesper_lines_pipeline *all; /* every counted pipeline of the process, newest first */

/*
 * The next item of HESPER_LINES's comma-separated list from *@at on, white space around
 * it left out, into @item and @len; false past the last.
 */
static bool next_item(const char **at, const char **item, size_t *len)
{
	if (!**at)
		return false;
	const char *comma = strchr(*at, ',');
	*item = *at;
	*len = comma ? (size_t)(comma - *at) : strlen(*at);
	*at = comma ? comma + 1 : *at + *len;
	hesper_text_trim(item, len);
	return true;
}

/* Whether @len bytes at @item are "*". */
static bool is_star(const char *item, size_t len)
{
	return len == 1 && item[0] == '*';
}

/* Whether the list @list names @kernel (or holds "*"). */
static bool list_names(const char *list, const char *kernel)
{
	const char *item;
	size_t len;
	while (next_item(&list, &item, &len))
		if (is_star(item, len) || (strlen(kernel) == len && memcmp(item, kernel, len) == 0))
			return true;
	return false;
}

bool hesper_lines_chosen(struct hesper_name *kernel)
{
	if (!kernel)
		return false;
	uint8_t known = atomic_load_explicit(&kernel->lines_chosen, memory_order_relaxed);
	if (!known) { /* two threads may both work it out: the same answer */
		known = list_names(hesper_process()->settings.lines, kernel->text) ? 2 : 1;
		atomic_store_explicit(&kernel->lines_chosen, known, memory_order_relaxed);
	}
	return known == 2;
}

bool hesper_lines_names_given(void)
{
	const char *list = hesper_process()->settings.lines, *item;
	size_t len;
	while (next_item(&list, &item, &len))
		if (!is_star(item, len))
			return true;
	return false;
}

void hesper_lines_device_ready(struct hesper_device *dev, const char *why, bool subgroup_clock)
{
	const char *asked = hesper_process()->settings.lines;
	if (dev->clock_mode) {
		dev->clock_mode->lines_why = why;
		dev->clock_mode->subgroup_clock = subgroup_clock;
	}
	if (asked[0] && why)
		hesper_log("HESPER_LINES: no lines are counted on %s: %s", dev->props.deviceName, why);
}

/* Whether every block of @lines has a source line for some instruction. */
static bool lines_everywhere(const struct hesper_spirv_lines *lines)
{
	for (size_t b = 0; b < lines->block_count; b++) {
		bool some = false;
		const struct hesper_spirv_block *k = &lines->blocks[b];
		for (size_t r = k->first_run; r < k->first_run + k->runs && !some; r++)
			some = lines->runs[r].line != 0;
		if (!some)
			return false;
	}
	return true;
}

/* Frees @l entirely (it is on no list). */
static void lines_free(struct hesper_device *dev, struct hesper_lines_pipeline *l)
{
	hesper_clock_buffer_free(dev, &l->counters);
	hesper_spirv_lines_free(&l->lines);
	free(l->words);
	free(l->kept);
	free(l);
}

const char *hesper_lines_create_pipeline(struct hesper_device *dev, VkPipelineCache cache,
					 const VkComputePipelineCreateInfo *info, const void *code, size_t size,
					 const VkAllocationCallbacks *allocator, uint32_t set,
					 struct hesper_name *kernel, VkPipeline *out,
					 struct hesper_lines_pipeline **lines)
{
	const struct hesper_clock_device *cd = dev->clock_mode;
	uint32_t *host = NULL, *words = NULL;
	size_t count = 0;
	const char *why = cd->lines_why;
	struct hesper_lines_pipeline *l = NULL;
	*out = VK_NULL_HANDLE;
	*lines = NULL;
	if (why)
		goto out;
	why = "out of memory";
	if (!(l = calloc(1, sizeof(*l))))
		goto out;
	atomic_init(&l->kernel, kernel);
	atomic_init(&l->used, false);
	l->layout = info->layout;
	l->set = set;
	if ((why = hesper_spirv_words_copy(code, size, &host)) ||
	    (why = hesper_spirv_lines_read(host, size / 4, &l->lines)))
		goto out;
	struct hesper_blocks_target target = {.entry = info->stage.pName ? info->stage.pName : "main",
					      .set = set,
					      .binding = 0,
					      .subgroup_clock = cd->subgroup_clock};
	if (hesper_spirv_blocks_instrument(code, size, &target, &words, &count, &l->blocks, &why) != 0)
		goto out;
	why = "its blocks are not the blocks its lines were read from";
	if (l->blocks != l->lines.block_count || !l->blocks)
		goto out;
	why = "its counters' buffer could not be made";
	VkDeviceSize bytes = (VkDeviceSize)l->blocks * 2 * HESPER_BLOCKS_COPIES * sizeof(uint64_t);
	if (hesper_clock_buffer_make(dev, bytes, 0, bytes, 1, &l->counters) != 0)
		goto out;
	why = hesper_clock_make_pipeline(dev, cache, info, words, count, allocator, out);
	if (!why && !lines_everywhere(&l->lines)) {
		l->words = host; /* kept to name the blocks without a line, and show their code */
		l->word_count = size / 4;
		host = NULL;
	}
out:
	free(host);
	free(words);
	if (why) {
		if (l)
			lines_free(dev, l);
		return why;
	}
	pthread_mutex_lock(&all_lock);
	l->next = all;
	all = l;
	pthread_mutex_unlock(&all_lock);
	*lines = l;
	return NULL;
}

void hesper_lines_set_twin(struct hesper_lines_pipeline *lines, VkPipeline twin)
{
	lines->twin = twin;
}

VkPipeline hesper_lines_twin(const struct hesper_lines_pipeline *lines)
{
	return lines->twin;
}

void hesper_lines_rename(struct hesper_lines_pipeline *lines, struct hesper_name *kernel)
{
	atomic_store_explicit(&lines->kernel, kernel, memory_order_release);
}

void hesper_lines_bind(struct hesper_device *dev, VkCommandBuffer cb, struct hesper_lines_pipeline *lines)
{
	dev->next.CmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, lines->layout, lines->set, 1,
					&lines->counters.sets[0], 0, NULL);
	atomic_store_explicit(&lines->used, true, memory_order_relaxed);
}

/* Adds the counts of @l's copies of the counters into @sums (2 * l->blocks words); none once its buffer is gone. */
static void add_copies(const struct hesper_lines_pipeline *l, uint64_t *sums)
{
	size_t words = (size_t)l->blocks * 2;
	const volatile uint64_t *mapped = l->counters.mapped; /* as the GPU writes it; NULL once gone */
	for (size_t c = 0; mapped && c < HESPER_BLOCKS_COPIES; c++)
		for (size_t i = 0; i < words; i++)
			sums[i] += mapped[c * words + i];
}

void hesper_lines_pipeline_done(struct hesper_device *dev, struct hesper_lines_pipeline *lines)
{
	uint64_t *kept = calloc((size_t)lines->blocks * 2, sizeof(*kept));
	pthread_mutex_lock(&all_lock);
	if (kept)
		add_copies(lines, kept);
	lines->kept = kept; /* NULL when memory ran out: its counts are lost, and it reports none */
	hesper_clock_buffer_free(dev, &lines->counters);
	if (lines->twin)
		dev->next.DestroyPipeline(dev->handle, lines->twin, NULL);
	lines->twin = VK_NULL_HANDLE;
	pthread_mutex_unlock(&all_lock);
}

/* A block's name, as a report keeps it. */
struct block_name {
	char name[HESPER_HOT_BLOCK_NAME_MAX];
};

/* Opcodes a block's name shows after its label. */
#define BLOCK_NAME_OPCODES 3

/*
 * Adds the hot lines of @l (all_lock held) to *@hot (*@count of them). Returns 0, or -1
 * when memory runs out.
 */
static int add_lines(const struct hesper_lines_pipeline *l, struct hesper_hot_line **hot, size_t *count)
{
	if (!l->kept && !l->counters.mapped)
		return 0; /* gone, and its counts lost */
	int rc = -1;
	uint64_t *summed = l->kept ? NULL : calloc((size_t)l->blocks * 2, sizeof(*summed));
	const uint64_t *counts = l->kept ? l->kept : summed;
	struct hesper_counted_block *blocks = calloc(l->blocks, sizeof(*blocks));
	struct hesper_line_run *runs = calloc(l->lines.run_count ? l->lines.run_count : 1, sizeof(*runs));
	struct hesper_hot_line *mine = NULL;
	size_t mine_count = 0;
	struct block_name *names = l->words ? calloc(l->blocks, sizeof(*names)) : NULL;
	if (!counts || !blocks || !runs || (l->words && !names))
		goto out;
	if (summed)
		add_copies(l, summed);
	for (size_t r = 0; r < l->lines.run_count; r++) {
		const struct hesper_spirv_file *f = hesper_spirv_lines_file(&l->lines, l->lines.runs[r].file);
		runs[r] = (struct hesper_line_run){f ? f->name : NULL, l->lines.runs[r].line,
						   l->lines.runs[r].instructions};
	}
	for (uint32_t b = 0; b < l->blocks; b++) {
		const struct hesper_spirv_block *k = &l->lines.blocks[b];
		blocks[b] = (struct hesper_counted_block){
			counts[2 * b], counts[2 * b + 1], runs + k->first_run, k->runs, NULL, NULL};
		if (names) { /* named for when it has no line; the hottest get their code once all are added (add_code) */
			hesper_spirv_block_title(l->words, l->word_count, k->label_word, BLOCK_NAME_OPCODES,
						 names[b].name, sizeof(names[b].name));
			blocks[b].block = names[b].name;
		}
	}
	if (hesper_hot_lines(blocks, l->blocks, &mine, &mine_count) == 0 &&
	    hesper_hot_lines_add(hot, count, mine, mine_count) == 0)
		rc = 0;
out:
	free(names);
	free(mine);
	free(runs);
	free(blocks);
	free(summed);
	return rc;
}

/*
 * The SPIR-V of the HESPER_HOT_BLOCKS_LISTED hottest named blocks among @hot (@count, largest
 * first), from the module of a counted pipeline of @kernel from @from on (all_lock held)
 * that has the block of that name: only those a report shows are disassembled.
 */
static void add_code(struct hesper_hot_line *hot, size_t count, struct hesper_name *kernel,
		     const struct hesper_lines_pipeline *from)
{
	char name[HESPER_HOT_BLOCK_NAME_MAX];
	for (size_t j = 0, listed = 0; j < count && listed < HESPER_HOT_BLOCKS_LISTED; j++) {
		if (!hot[j].block[0])
			continue;
		listed++;
		for (const struct hesper_lines_pipeline *e = from; e && !hot[j].code[0]; e = e->next) {
			if (!e->words || atomic_load_explicit(&e->kernel, memory_order_acquire) != kernel)
				continue;
			for (uint32_t b = 0; b < e->blocks && !hot[j].code[0]; b++) {
				const struct hesper_spirv_block *k = &e->lines.blocks[b];
				hesper_spirv_block_title(e->words, e->word_count, k->label_word, BLOCK_NAME_OPCODES,
							 name, sizeof(name));
				if (strcmp(name, hot[j].block) == 0)
					hesper_spirv_disasm(e->words, e->word_count, k->label_word,
							    k->terminator_word + 1, hot[j].code, sizeof(hot[j].code));
			}
		}
	}
}

/*
 * Gives @kernel's lines in @profile the text of @file (its hottest line's): embedded in a
 * module of a counted pipeline of that kernel from @from on (all_lock held), else found in
 * HESPER_SOURCE_PATH's directories. Returns 0, or -1 when memory runs out.
 */
static int attach_source(struct hesper_profile *profile, struct hesper_name *kernel, const char *file,
			 const struct hesper_lines_pipeline *from)
{
	for (const struct hesper_lines_pipeline *e = from; e; e = e->next) {
		if (atomic_load_explicit(&e->kernel, memory_order_acquire) != kernel)
			continue;
		for (size_t f = 0; f < e->lines.file_count; f++)
			if (e->lines.files[f].text && strcmp(e->lines.files[f].name, file) == 0)
				return hesper_profile_set_source(profile, kernel->text, file, e->lines.files[f].text,
								 NULL);
	}
	/* relative directories are the directory the program started in's, wherever it is now */
	char *found = NULL,
	     *text = hesper_source_find(hesper_process()->settings.source_path, hesper_start_dir(), file, &found);
	int rc = text ? hesper_profile_set_source(profile, kernel->text, file, text, found) : 0;
	free(found);
	free(text);
	return rc;
}

void hesper_lines_report(struct hesper_profile *profile)
{
	pthread_mutex_lock(&all_lock);
	/* One kernel at a time: the first pipeline of each name gathers every pipeline of that name. */
	for (struct hesper_lines_pipeline *l = all; l; l = l->next) {
		struct hesper_name *kernel = atomic_load_explicit(&l->kernel, memory_order_acquire);
		bool earlier = false;
		for (struct hesper_lines_pipeline *e = all; e != l && !earlier; e = e->next)
			earlier = atomic_load_explicit(&e->kernel, memory_order_acquire) == kernel &&
				  atomic_load_explicit(&e->used, memory_order_relaxed);
		if (earlier || !kernel || !atomic_load_explicit(&l->used, memory_order_relaxed))
			continue;
		struct hesper_hot_line *hot = NULL;
		size_t count = 0;
		int rc = 0;
		for (struct hesper_lines_pipeline *e = l; e && rc == 0; e = e->next)
			if (atomic_load_explicit(&e->kernel, memory_order_acquire) == kernel &&
			    atomic_load_explicit(&e->used, memory_order_relaxed))
				rc = add_lines(e, &hot, &count);
		if (rc == 0)
			add_code(hot, count, kernel, l);
		const struct hesper_kernel *row = hesper_kernel_table_find(profile->kernels, kernel->text);
		const char *file = NULL; /* the hottest line's, for the annotated listing */
		for (size_t j = 0; j < count && !file; j++)
			file = hot[j].line && hot[j].file[0] ? hot[j].file : NULL;
		if (rc != 0 || hesper_profile_set_lines(profile, kernel->text, hot, count, row ? row->count : 0) != 0 ||
		    (file && attach_source(profile, kernel, file, l) != 0))
			hesper_log("out of memory: the hot lines of %s are not in the report", kernel->text);
		free(hot);
	}
	pthread_mutex_unlock(&all_lock);
}
