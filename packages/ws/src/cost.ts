/**
 * The cost of a message: 1 by default; its size in bytes with `cost: 'bytes'` (at least 1: an empty
 * frame is still a message); or what the caller's function answers, which must be a positive safe
 * integer (anything else is refused by the meter's caller: the connection closes with 1011).
 */

/** byteCost: a ws message's size in bytes (a Buffer, an ArrayBuffer, or the fragments of one), at least 1. */
export function byteCost(data: unknown): number {
  let bytes = 0;
  if (Array.isArray(data)) for (const part of data) bytes += (part as { byteLength: number }).byteLength;
  else if (typeof data === 'string') bytes = Buffer.byteLength(data);
  else bytes = (data as { byteLength?: number }).byteLength ?? 0;
  return bytes > 0 ? bytes : 1;
}

/** isCost tells whether a cost function's answer can be charged. */
export function isCost(cost: unknown): cost is number {
  return typeof cost === 'number' && Number.isSafeInteger(cost) && cost >= 1;
}
