#version 450
// busy: every invocation runs a dependent floating-point recurrence for pc.iters steps
// and stores the result, so the loop cannot be removed. Its duration grows linearly
// with pc.iters (vkbench calibrates it). VARIANT (a specialization constant, default
// set by glslc -D) makes the "short" and "long" SPIR-V differ, so they never share a
// name even without debug-utils names.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { float outv[]; };
layout(push_constant) uniform Push { uint iters; uint n; } pc;
layout(constant_id = 0) const uint VARIANT = VARIANT_DEFAULT;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= pc.n)
		return;
	float x = float(i & 1023u) * 0.001 + float(VARIANT);
	float y = 0.5;
	for (uint k = 0u; k < pc.iters; k++) {
		x = x * 0.999999 + y;
		y = y * 0.999997 - x * 0.0000001;
	}
	outv[i] = x + y;
}
