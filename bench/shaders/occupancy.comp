#version 450
// occupancy_probe (bench/occupancy_probe.c): each work group's first invocation counts the
// groups resident on its SM at its start (live[sm]) and keeps the largest count seen
// (peak[sm]); every invocation spins SPIN_NS on the device clock, so that the groups of the
// first wave overlap, and the group ends after a barrier, once all its warps are done. VECS
// vec4 values live at once (registers, as kernel_stats' register-heavy kernel keeps them),
// SHARED floats of workgroup memory.
#extension GL_NV_shader_sm_builtins : require
#extension GL_EXT_shader_realtime_clock : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Counts { uint live[256]; uint peak[256]; uint sink[]; } c;

#ifndef VECS
#define VECS 1
#endif
#ifndef SHARED
#define SHARED 0
#endif
#define SPIN_NS 40000u

#if SHARED > 0
shared float tile[SHARED];
#endif

void main()
{
	uint l = gl_LocalInvocationID.x;
	uint sm = gl_SMIDNV;
	if (l == 0u) {
		uint now = atomicAdd(c.live[sm], 1u) + 1u;
		atomicMax(c.peak[sm], now);
	}
	float x = float(gl_GlobalInvocationID.x);
	vec4 a[VECS];
	for (int k = 0; k < VECS; k++)
		a[k] = vec4(x + float(k), x * float(k), x - float(k), x / float(k + 1));
#if SHARED > 0
	for (uint k = l; k < uint(SHARED); k += 64u)
		tile[k] = float(k) * 0.5;
	barrier();
#endif
	uvec2 t0 = clockRealtime2x32EXT();
	uint spins = 0u;
	for (;;) {
		for (int k = 0; k < VECS; k++)
			a[k] = a[k] * 0.5 + a[(k + 7) % VECS].yzwx * 0.25 + vec4(float(spins));
		spins++;
		uvec2 t = clockRealtime2x32EXT();
		if (t.x - t0.x > SPIN_NS)
			break;
	}
	vec4 s = vec4(0.0);
	for (int k = 0; k < VECS; k++)
		s += a[k];
#if SHARED > 0
	s.x += tile[(l * 7u) % uint(SHARED)];
#endif
	c.sink[gl_GlobalInvocationID.x] = floatBitsToUint(s.x + s.y + s.z + s.w);
	barrier();
	if (l == 0u)
		atomicAdd(c.live[sm], 0xffffffffu);
}
