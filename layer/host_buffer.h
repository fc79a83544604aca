/* Buffers Hesper owns in host-visible, coherent memory: results and shadow copies. */
#ifndef HESPER_HOST_BUFFER_H
#define HESPER_HOST_BUFFER_H

#include "layer.h"

/* Creates a mapped buffer of @slots 64-bit slots for transfers to and from it; 0 on success. */
int hesper_host_buffer_create(struct hesper_device *dev, uint32_t slots, struct hesper_host_buffer *out);

/* Destroys @b (no-op when empty) and empties it. */
void hesper_host_buffer_destroy(struct hesper_device *dev, struct hesper_host_buffer *b);

#endif
