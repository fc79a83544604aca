#version 450
// kernel_stats.c: a register-heavy kernel, 96 floats live at once through 16 rounds.
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { float v[]; } data;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	float x = data.v[i];
	vec4 a[24];
	for (int k = 0; k < 24; k++)
		a[k] = vec4(x + float(k), x * float(k), x - float(k), x / float(k + 1));
	for (int r = 0; r < 16; r++)
		for (int k = 0; k < 24; k++)
			a[k] = a[k] * 0.5 + a[(k + 7) % 24].yzwx * 0.25 + vec4(float(r));
	vec4 s = vec4(0.0);
	for (int k = 0; k < 24; k++)
		s += a[k];
	data.v[i] = s.x + s.y + s.z + s.w;
}
