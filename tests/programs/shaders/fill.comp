#version 450
// fill: dst[i] = base + i
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint base; uint n; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < pc.n)
		dst[i] = pc.base + i;
}
