#version 450
// Reaches its data through a buffer device address (GL_EXT_buffer_reference): the module's
// addressing model is PhysicalStorageBuffer64, as in llama.cpp's quantized matmul and flash
// attention kernels. Clock mode instruments it like any other (test_spirv_clock).
#extension GL_EXT_buffer_reference : require

layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 4) buffer Floats {
	float v[];
};

layout(set = 0, binding = 0) buffer Args {
	Floats data;
	uint n;
} args;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (i >= args.n)
		return;
	args.data.v[i] *= 2.0;
}
