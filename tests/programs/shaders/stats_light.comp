#version 450
// kernel_stats.c: the light kernel, few registers and no shared memory.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { float v[]; } data;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	data.v[i] = data.v[i] * 2.0 + 1.0;
}
