#version 450
// fill: x[i] = i mod 1024, y[i] = 1
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Push { float a; uint n; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < pc.n) {
		x[i] = float(i % 1024u);
		y[i] = 1.0;
	}
}
