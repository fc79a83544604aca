#version 450
// threshold: mask = 1 where the normalized pixel is above 127, else 0
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Mask { uint mask[]; };
layout(push_constant) uniform Push { uint w; uint h; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i < pc.w * pc.h)
		mask[i] = src[i] > 127u ? 1u : 0u;
}
