#version 450
// shape_spec: local size x from specialization constant 0 (default 4), y fixed at 2.
layout(local_size_x_id = 0, local_size_y = 2) in;
layout(std430, set = 0, binding = 0) buffer Dst { uint dst[]; };

void main()
{
	if (gl_GlobalInvocationID == uvec3(0))
		dst[1] = 1u;
}
