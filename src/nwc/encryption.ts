// The two NIP-47 encryptions: NIP-44 v2, named by the request's `["encryption", "nip44_v2"]` tag, and NIP-04 for
// clients that send no such tag (the spec's rule for older clients). A response uses its request's scheme.
import * as nip04 from 'nostr-tools/nip04'
import { conversationKeyV2, decryptV2, encryptV2 } from '../transports/nostr/nip44.js'
import { BoundedMap } from '../bus/bounded.js'

export type NwcEncryption = 'nip44_v2' | 'nip04'

/** What the info event's `encryption` tag announces. */
export const supportedEncryptions: readonly NwcEncryption[] = ['nip44_v2', 'nip04']

/** Conversation keys remembered; an ECDH costs milliseconds in pure JS and a busy app sends many requests. */
const keyCapacity = 2_000

/** The scheme a request asks for; undefined for a scheme this service does not speak. */
export function requestedEncryption(tags: string[][]): NwcEncryption | undefined {
  const tag = tags.find(t => Array.isArray(t) && t[0] === 'encryption')
  if (!tag) return 'nip04'
  // A request names one scheme; a list (as in info events) is read as the client's preference order.
  const named = String(tag[1] ?? '').split(/\s+/)
  return named.find((name): name is NwcEncryption => (supportedEncryptions as readonly string[]).includes(name))
}

export interface NwcCipher {
  encrypt(scheme: NwcEncryption, secretKey: Uint8Array, peer: string, plaintext: string): string
  decrypt(scheme: NwcEncryption, secretKey: Uint8Array, peer: string, payload: string): string
}

export function nwcCipher(): NwcCipher {
  const keys = new BoundedMap<string, Uint8Array>(keyCapacity)
  const keyV2 = (secretKey: Uint8Array, peer: string): Uint8Array => {
    const id = Buffer.from(secretKey).toString('hex') + peer
    let key = keys.touch(id) // the least recently used key is the one dropped
    if (!key) keys.set(id, (key = conversationKeyV2(secretKey, peer)))
    return key
  }
  return {
    encrypt: (scheme, secretKey, peer, plaintext) =>
      scheme === 'nip44_v2' ? encryptV2(plaintext, keyV2(secretKey, peer)) : nip04.encrypt(secretKey, peer, plaintext),
    decrypt: (scheme, secretKey, peer, payload) =>
      scheme === 'nip44_v2' ? decryptV2(payload, keyV2(secretKey, peer)) : nip04.decrypt(secretKey, peer, payload),
  }
}
