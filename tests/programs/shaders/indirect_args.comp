#version 450
// indirect_args: writes the group counts (pc.x, pc.y, pc.z) of an indirect dispatch at word
// pc.at of the argument buffer; with pc.z == 0, (pc.x + runs, 1, 1) where runs (word 15)
// counts the executions of this write (tests/programs/indirect.c).
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Counters { uint counters[]; }; // the counting kernel's
layout(std430, set = 0, binding = 1) buffer Args { uint args[]; };
layout(push_constant) uniform Push { uint at; uint x; uint y; uint z; } pc;

void main()
{
	if (pc.at == 0xffffffffu)
		counters[0] = 0u; // never: keeps the binding in the module, as in the other test shaders
	if (pc.z == 0u) {
		uint runs = args[15];
		args[15] = runs + 1u;
		args[pc.at] = pc.x + runs;
		args[pc.at + 1u] = 1u;
		args[pc.at + 2u] = 1u;
		return;
	}
	args[pc.at] = pc.x;
	args[pc.at + 1u] = pc.y;
	args[pc.at + 2u] = pc.z;
}
