#version 450
// blur_h: horizontal [1 2 1] / 4 blur of a w x h image of uints, edges clamped
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint w; uint h; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.w * pc.h)
		return;
	uint x = i % pc.w, row = i - x;
	uint l = src[row + (x > 0u ? x - 1u : 0u)];
	uint r = src[row + min(x + 1u, pc.w - 1u)];
	dst[i] = (l + 2u * src[i] + r + 2u) >> 2;
}
