#version 450
// histogram: 64-bin histogram of 0..255 values (shared-memory bins, then one atomicAdd per bin)
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Hist { uint hist[]; };
layout(push_constant) uniform Push { uint w; uint h; } pc;

shared uint bins[64];

void main()
{
	uint i = gl_GlobalInvocationID.x, l = gl_LocalInvocationID.x;
	bins[l] = 0u;
	barrier();
	if (i < pc.w * pc.h)
		atomicAdd(bins[min(src[i], 255u) >> 2], 1u);
	barrier();
	if (bins[l] != 0u)
		atomicAdd(hist[l], bins[l]);
}
