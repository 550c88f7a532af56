// Conversation keys per (scheme, app key, peer). The ECDH behind a key costs milliseconds in pure JS while the
// cipher itself costs microseconds, so a busy peer must not pay it per request.
import { conversationKey, type CipherScheme } from './cipher.js'

/** Peers remembered; the least recently used key is forgotten beyond this. */
const defaultCapacity = 10_000

export interface ConversationKeys {
  get(scheme: CipherScheme, secretKey: Uint8Array, appPubkey: string, peer: string): Uint8Array
}

export function conversationKeys(capacity = defaultCapacity): ConversationKeys {
  const keys = new Map<string, Uint8Array>()
  return {
    get(scheme, secretKey, appPubkey, peer) {
      const id = `${scheme}:${appPubkey}:${peer}`
      let key = keys.get(id)
      if (key) {
        keys.delete(id) // re-inserted below: Map order is insertion order, so the first entry is the least recent
      } else {
        key = conversationKey(scheme, secretKey, peer)
        if (keys.size >= capacity) keys.delete(keys.keys().next().value!)
      }
      keys.set(id, key)
      return key
    },
  }
}
