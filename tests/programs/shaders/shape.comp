#version 450
// shape: a kernel of known local size (8x4x2) for the launch-shape tests; writes one word.
layout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;
layout(std430, set = 0, binding = 0) buffer Dst { uint dst[]; };

void main()
{
	if (gl_GlobalInvocationID == uvec3(0))
		dst[0] = 1u;
}
