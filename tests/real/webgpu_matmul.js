// WebGPU compute on Vulkan (Deno's built-in WebGPU, i.e. wgpu): a WGSL matrix multiply
// run as 50 dispatches, plus a second kernel (scale) with 6 dispatches, 2 of them indirect.
//
//   matmul  C_i = A * B_i for i in 0..49, each dispatch with its own bind group (B_i and
//           C_i are 256-byte-aligned slices of one buffer); 5 submissions of 10 dispatches
//   scale   D = 2 * C_0, 4 direct + 2 indirect dispatches, one submission
//
// Entries are small integers, so every product is exact in f32: the check is equality
// with a CPU reference. Prints a fixed report (no timings) and exits 0 when every result
// checks out, 1 otherwise.
const N = 32;                 // matrices are N x N f32
const MATS = 50;              // matmul dispatches
const PER_SUBMIT = 10;
const MAT_BYTES = N * N * 4;  // 4096: a multiple of minStorageBufferOffsetAlignment (256)

function fail(msg) {
  console.log("webgpu_matmul: FAIL " + msg);
  Deno.exit(1);
}

const adapter = await navigator.gpu.requestAdapter();
if (!adapter) fail("no WebGPU adapter");
const device = await adapter.requestDevice();
device.addEventListener("uncapturederror", (e) => fail("uncaptured error: " + e.error.message));

// Deterministic inputs in [-4, 4].
const A = new Float32Array(N * N);
const B = new Float32Array(MATS * N * N);
for (let i = 0; i < A.length; i++) A[i] = ((i * 7 + 3) % 9) - 4;
for (let i = 0; i < B.length; i++) B[i] = ((i * 5 + 1) % 9) - 4;

const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const bufA = device.createBuffer({ size: A.byteLength, usage });
const bufB = device.createBuffer({ size: B.byteLength, usage });
const bufC = device.createBuffer({ size: MATS * MAT_BYTES, usage });
const bufD = device.createBuffer({ size: MAT_BYTES, usage });
device.queue.writeBuffer(bufA, 0, A);
device.queue.writeBuffer(bufB, 0, B);

const matmulModule = device.createShaderModule({ label: "matmul.wgsl", code: `
@group(0) @binding(0) var<storage, read> a : array<f32>;
@group(0) @binding(1) var<storage, read> b : array<f32>;
@group(0) @binding(2) var<storage, read_write> c : array<f32>;
const N = ${N}u;
@compute @workgroup_size(8, 8)
fn matmul(@builtin(global_invocation_id) id : vec3<u32>) {
  if (id.x >= N || id.y >= N) { return; }
  var sum = 0.0;
  for (var k = 0u; k < N; k++) { sum += a[id.y * N + k] * b[k * N + id.x]; }
  c[id.y * N + id.x] = sum;
}` });
const scaleModule = device.createShaderModule({ label: "scale.wgsl", code: `
@group(0) @binding(0) var<storage, read> src : array<f32>;
@group(0) @binding(1) var<storage, read_write> dst : array<f32>;
@compute @workgroup_size(64)
fn scale(@builtin(global_invocation_id) id : vec3<u32>) {
  if (id.x < arrayLength(&dst)) { dst[id.x] = 2.0 * src[id.x]; }
}` });

const matmul = device.createComputePipeline({
  label: "matmul", layout: "auto", compute: { module: matmulModule, entryPoint: "matmul" } });
const scale = device.createComputePipeline({
  label: "scale", layout: "auto", compute: { module: scaleModule, entryPoint: "scale" } });

const matmulGroups = [];
for (let i = 0; i < MATS; i++) {
  matmulGroups.push(device.createBindGroup({ layout: matmul.getBindGroupLayout(0), entries: [
    { binding: 0, resource: { buffer: bufA } },
    { binding: 1, resource: { buffer: bufB, offset: i * MAT_BYTES, size: MAT_BYTES } },
    { binding: 2, resource: { buffer: bufC, offset: i * MAT_BYTES, size: MAT_BYTES } },
  ] }));
}
const scaleGroup = device.createBindGroup({ layout: scale.getBindGroupLayout(0), entries: [
  { binding: 0, resource: { buffer: bufC, offset: 0, size: MAT_BYTES } },
  { binding: 1, resource: { buffer: bufD } },
] });
const indirect = device.createBuffer({ size: 12, usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(indirect, 0, new Uint32Array([(N * N) / 64, 1, 1]));

// 5 submissions of 10 matmul dispatches (one compute pass each).
for (let s = 0; s < MATS / PER_SUBMIT; s++) {
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(matmul);
  for (let i = s * PER_SUBMIT; i < (s + 1) * PER_SUBMIT; i++) {
    pass.setBindGroup(0, matmulGroups[i]);
    pass.dispatchWorkgroups(N / 8, N / 8);
  }
  pass.end();
  device.queue.submit([enc.finish()]);
}
// scale: 4 direct dispatches in one pass, 2 indirect in another.
{
  const enc = device.createCommandEncoder();
  let pass = enc.beginComputePass();
  pass.setPipeline(scale);
  pass.setBindGroup(0, scaleGroup);
  for (let i = 0; i < 4; i++) pass.dispatchWorkgroups((N * N) / 64);
  pass.end();
  pass = enc.beginComputePass();
  pass.setPipeline(scale);
  pass.setBindGroup(0, scaleGroup);
  pass.dispatchWorkgroupsIndirect(indirect, 0);
  pass.dispatchWorkgroupsIndirect(indirect, 0);
  pass.end();
  device.queue.submit([enc.finish()]);
}

async function readBack(buf, size) {
  const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, 0, staging, 0, size);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(staging.getMappedRange().slice(0));
  staging.unmap();
  return out;
}

const C = await readBack(bufC, MATS * MAT_BYTES);
const D = await readBack(bufD, MAT_BYTES);
let bad = 0, checksum = 0;
for (let m = 0; m < MATS; m++) {
  for (let y = 0; y < N; y++) {
    for (let x = 0; x < N; x++) {
      let want = 0;
      for (let k = 0; k < N; k++) want += A[y * N + k] * B[m * N * N + k * N + x];
      const got = C[m * N * N + y * N + x];
      if (got !== want) bad++;
      checksum = (checksum * 31 + (got | 0)) >>> 0;
    }
  }
}
for (let i = 0; i < N * N; i++) if (D[i] !== 2 * C[i]) bad++;
console.log(`webgpu_matmul: ${MATS} matmuls of ${N}x${N} (${MATS} dispatches), scale (6 dispatches)`);
console.log(`webgpu_matmul: mismatches ${bad}, checksum ${checksum.toString(16)}`);
device.destroy();
if (bad !== 0) fail(`${bad} results differ from the CPU reference`);
console.log("webgpu_matmul: OK");
