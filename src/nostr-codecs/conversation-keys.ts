// Conversation keys per (scheme, app key, peer). The ECDH behind a key costs milliseconds in pure JS while the
// cipher itself costs microseconds, so a busy peer must not pay it per request.
import { conversationKey } from './cipher.js'
import type { ConversationKeys } from './request-codec.js'
import { BoundedMap } from '../limits/index.js'

/** Peers remembered; the least recently used key is forgotten beyond this. */
const defaultCapacity = 10_000

export function conversationKeys(capacity = defaultCapacity): ConversationKeys {
  const keys = new BoundedMap<string, Uint8Array>(capacity)
  return {
    get(scheme, secretKey, appPubkey, peer) {
      const id = `${scheme}:${appPubkey}:${peer}`
      let key = keys.touch(id) // the least recently used key is the one dropped
      if (!key) keys.set(id, (key = conversationKey(scheme, secretKey, peer)))
      return key
    },
  }
}
