#version 450
// busy: each invocation runs a linear congruential generator for pc.iters steps
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint outv[]; };
layout(push_constant) uniform Push { uint iters; uint n; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.n)
		return;
	uint h = i;
	for (uint k = 0u; k < pc.iters; k++)
		h = h * 1664525u + 1013904223u;
	outv[i] = h;
}
