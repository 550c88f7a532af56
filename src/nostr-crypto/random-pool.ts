// Random bytes for nonces and BIP-340 auxiliary randomness, cut from a pool filled 4 KiB at a time: a call into the
// system's generator per 24 or 32 bytes cost a relay round trip more than the cipher it fed (~5% of the daemon's
// time in a profile). Each slice is handed out once; a new pool is made when one runs out, so a slice a caller keeps
// is never overwritten.
import { randomFillSync } from 'node:crypto'

const poolSize = 4096
let pool = new Uint8Array(0)
let at = 0

export function pooledRandomBytes(length: number): Uint8Array {
  if (length > poolSize) return randomFillSync(new Uint8Array(length))
  if (at + length > pool.length) {
    pool = randomFillSync(new Uint8Array(poolSize))
    at = 0
  }
  const slice = pool.subarray(at, at + length)
  at += length
  return slice
}
