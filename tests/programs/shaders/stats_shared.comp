#version 450
// kernel_stats.c: a shared-memory-heavy kernel, 16 KiB of workgroup memory.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { float v[]; } data;

const uint TILE = 4096u;
shared float tile[TILE];

void main()
{
	uint l = gl_LocalInvocationID.x, i = gl_GlobalInvocationID.x;
	for (uint k = l; k < TILE; k += 64u)
		tile[k] = float(k) * 0.5;
	barrier();
	float s = 0.0;
	for (uint k = l; k < TILE; k += 512u)
		s += tile[(k * 7u) % TILE];
	data.v[i] += s;
}
