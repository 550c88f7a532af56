// The embedded node's identity: 32 random bytes in `<dataDir>/node.key` (hex, mode 0600), created on first
// start. The same bytes are the BIP-39 entropy of the seed words, so the words restore exactly this key.
import fs from 'node:fs'
import path from 'node:path'
// libsecp256k1 (wasm): noble's first key derivation builds its tables, ~90 ms of the daemon's start.
import { isPrivate, pointFromScalar } from 'tiny-secp256k1'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { entropyToMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'

export const nodeKeyFileName = 'node.key'

export interface NodeKey {
  secretKey: Uint8Array
  /** Compressed public key, hex (66 chars): the node id. */
  pubkey: string
}

/** Reads the key file, or creates it from `random` when the data dir has none. */
export function loadOrCreateNodeKey(dataDir: string, random: (bytes: number) => Uint8Array): NodeKey {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const file = path.join(dataDir, nodeKeyFileName)
  const secretKey = fs.existsSync(file) ? readKeyFile(file) : createKeyFile(file, random)
  return { secretKey, pubkey: bytesToHex(pointFromScalar(secretKey, true)!) }
}

/** The 24 English BIP-39 words whose entropy is the node key. */
export function seedWords(secretKey: Uint8Array): string[] {
  return entropyToMnemonic(secretKey, wordlist).split(' ')
}

function readKeyFile(file: string): Uint8Array {
  const text = fs.readFileSync(file, 'utf8').trim()
  const key = /^[0-9a-f]{64}$/i.test(text) ? hexToBytes(text.toLowerCase()) : undefined
  if (!key || !isPrivate(key)) {
    throw new Error(`${file} does not hold a node key (64 hex characters of a valid secp256k1 secret key)`)
  }
  return key
}

function createKeyFile(file: string, random: (bytes: number) => Uint8Array): Uint8Array {
  let key = random(32)
  // A random 32-byte string is not a valid scalar with probability ~2^-128; draw again rather than fail.
  while (!isPrivate(key)) key = random(32)
  // Written beside the final name and renamed, so a crash never leaves a half-written key behind.
  const tmp = `${file}.${bytesToHex(random(4))}.tmp`
  const fd = fs.openSync(tmp, 'wx', 0o600)
  try {
    fs.writeSync(fd, `${bytesToHex(key)}\n`)
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
  fs.renameSync(tmp, file)
  return key
}
