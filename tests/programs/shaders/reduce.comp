#version 450
// reduce: sums[g] = sum of src over work group g (64 elements); g includes the dispatch base
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 1) buffer Sums { uint sums[]; };

shared uint partial[64];

void main()
{
	uint l = gl_LocalInvocationID.x;
	partial[l] = src[gl_GlobalInvocationID.x];
	barrier();
	for (uint stride = 32u; stride > 0u; stride >>= 1u) {
		if (l < stride)
			partial[l] += partial[l + stride];
		barrier();
	}
	if (l == 0u)
		sums[gl_WorkGroupID.x] = partial[0];
}
