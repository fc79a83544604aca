#version 450
// spec: like count, but the counter is chosen by a specialization constant.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint SLOT = 0u;
layout(std430, set = 0, binding = 0) buffer Counters { uint counters[]; };

void main()
{
	if (gl_LocalInvocationIndex == 0u)
		atomicAdd(counters[SLOT], 1u);
}
