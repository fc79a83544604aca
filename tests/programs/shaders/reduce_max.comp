#version 450
// reduce_max: stats[0] = max over the image (work-group reduction, then one atomicMax per group)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Stats { uint stats[]; };
layout(push_constant) uniform Push { uint w; uint h; } pc;

shared uint partial[64];

void main()
{
	uint i = gl_GlobalInvocationID.x, l = gl_LocalInvocationID.x;
	partial[l] = i < pc.w * pc.h ? src[i] : 0u;
	barrier();
	for (uint stride = 32u; stride > 0u; stride >>= 1u) {
		if (l < stride)
			partial[l] = max(partial[l], partial[l + stride]);
		barrier();
	}
	if (l == 0u)
		atomicMax(stats[0], partial[0]);
}
