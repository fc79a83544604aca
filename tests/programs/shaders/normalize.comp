#version 450
// normalize: dst = src * 255 / max, so the brightest pixel becomes 255
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) readonly buffer Stats { uint stats[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Dst { uint dst[]; };
layout(push_constant) uniform Push { uint w; uint h; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.w * pc.h)
		return;
	uint m = max(stats[0], 1u);
	dst[i] = src[i] * 255u / m;
}
