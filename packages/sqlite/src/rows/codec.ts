/**
 * State as stored: a key's numbers as consecutive little-endian IEEE doubles in one BLOB, exact for
 * every value a step writes (fractions, -0, -Infinity in a sliding log's unused slots). The decoded
 * state is a fresh Float64Array, which the algorithms read like the memory store's table.
 */

/** encodeState is the BLOB of `state` (a copy: the scratch output it came from is reused). */
export function encodeState(state: Float64Array): Buffer {
  const bytes = Buffer.allocUnsafe(state.length * 8);
  for (let i = 0; i < state.length; i++) bytes.writeDoubleLE(state[i] as number, i * 8);
  return bytes;
}

/** decodeState reads a state BLOB back (any driver's Uint8Array or Buffer, at any byte offset). */
export function decodeState(bytes: Uint8Array): Float64Array {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const state = new Float64Array(bytes.byteLength >> 3);
  for (let i = 0; i < state.length; i++) state[i] = view.readDoubleLE(i * 8);
  return state;
}
