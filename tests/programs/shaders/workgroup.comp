#version 450
// workgroup: reads gl_WorkGroupID and returns early in some invocations; built for
// Vulkan 1.2 (SPIR-V 1.5) to check the clock-mode rewrite reuses the module's own
// WorkgroupId and lists its globals in the entry point's interface (test_spirv_clock).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Out { uint outv[]; };

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= outv.length())
		return;
	outv[i] = gl_WorkGroupID.x * 3u + gl_LocalInvocationID.x;
}
