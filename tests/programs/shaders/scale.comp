#version 450
// scale: v[i] *= s
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer V { float v[]; };
layout(push_constant) uniform Push { float s; uint n; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < pc.n)
		v[i] *= pc.s;
}
