#version 450
// blur_v: vertical [1 2 1] / 4 blur of a w x h image of uints, edges clamped
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint w; uint h; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.w * pc.h)
		return;
	uint y = i / pc.w;
	uint u = src[i - (y > 0u ? pc.w : 0u)];
	uint d = src[i + (y + 1u < pc.h ? pc.w : 0u)];
	dst[i] = (u + 2u * src[i] + d + 2u) >> 2;
}
