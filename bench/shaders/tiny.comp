#version 450
// tiny: one work group of 64 invocations, each loading and storing one float, with an
// early return for invocations past n: the shape of the many small kernels real programs
// dispatch back to back (and of the probe that showed clock mode's cost on them).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { float outv[]; };
layout(push_constant) uniform Push { uint iters; uint n; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.n)
		return;
	outv[i] = outv[i] * 0.5 + 1.0;
}
