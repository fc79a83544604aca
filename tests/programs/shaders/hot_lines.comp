#version 450
// hot_lines: a loop whose trip count the push constant sets, and a branch taken by a
// chosen share of the invocations; the lines the tests look for carry a marker comment.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Values { float v[]; };
layout(push_constant) uniform Push { uint trips; uint taken; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	float acc = v[i];
	for (uint k = 0u; k < pc.trips; k++) { // LOOP header and continue
		acc = acc * 1.0001 + 0.5; // HOT loop body
	}
	if (i % 100u < pc.taken) {
		acc = sqrt(abs(acc)) + 1.0; // BRANCH taken by pc.taken of every 100 invocations
	}
	v[i] = acc; // STORE
}
