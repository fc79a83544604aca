#version 450
// count: every work group adds 1 to counters[pc.slot], so the GPU itself counts dispatches
// (the patterns program dispatches one work group at a time).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Counters { uint counters[]; };
layout(push_constant) uniform Push { uint slot; uint n; } pc;

void main()
{
	if (gl_LocalInvocationIndex == 0u)
		atomicAdd(counters[pc.slot], 1u);
}
