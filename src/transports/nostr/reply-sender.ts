// How the daemon talks to a client key: JSON → shards when too long → encrypted with the scheme the client
// speaks → kind 21000 signed by the app key, tagged only `["p", client]` → every service relay. Replies and
// pushes share it; the encrypted contents are returned so a reply can be stored and re-sent as it was.
import { randomBytes } from 'node:crypto'
import { encryptWith, type CipherScheme } from './cipher.js'
import type { ConversationKeys } from './conversation-keys.js'
import type { AppKey } from './app-keys.js'
import type { SendEvent } from './sign.js'
import { shardPlaintexts, pubRpcKind } from '../../nostr-codecs/index.js'
import type { Event } from 'nostr-tools/pure'
import { type Clock, BoundedMap } from '../../bus/index.js'
import type { StoredReply } from './processed-requests.js'

export { pubRpcKind }
/** Peers whose last scheme is remembered for pushes; older ones get the default again. */
const schemeMemory = 10_000

export interface ReplySenderDeps {
  keys: ConversationKeys
  /** Signs and publishes an event of ours. */
  send: SendEvent
  clock: Clock
  maxContentLength: number
  /** Shard ids; defaults to node:crypto. */
  random?: (bytes: number) => Uint8Array
}

export interface ReplySender {
  /** Sends a payload; returns what was sent, to be stored for a re-send. */
  send(app: AppKey, peer: string, scheme: CipherScheme, payload: Record<string, unknown>): StoredReply
  /**
   * Sends a stored reply again as new events. They are dated at least a second after the last copies: the same
   * content, tags and date would make the same event id, which relays drop as a duplicate instead of delivering.
   */
  resend(app: AppKey, peer: string, reply: StoredReply): StoredReply
  /** The scheme a peer last used (pushes are unsolicited, so they follow the peer's last request); nip44v1 by default. */
  schemeFor(peer: string): CipherScheme
  rememberScheme(peer: string, scheme: CipherScheme): void
}

export function replySender(deps: ReplySenderDeps): ReplySender {
  const random = deps.random ?? ((bytes: number) => randomBytes(bytes))
  const schemes = new BoundedMap<string, CipherScheme>(schemeMemory)
  const publishContents = (app: AppKey, peer: string, contents: string[], notBefore = 0): StoredReply => {
    const createdAt = Math.max(Math.floor(deps.clock.now() / 1000), notBefore)
    for (const content of contents) {
      deps.send({ kind: pubRpcKind, created_at: createdAt, tags: [['p', peer]], content }, app.secretKey)
    }
    return { sentAt: createdAt, contents }
  }
  return {
    send(app, peer, scheme, payload) {
      const key = deps.keys.get(scheme, app.secretKey, app.pubkey, peer)
      const shardsId = Buffer.from(random(16)).toString('hex')
      const contents = shardPlaintexts(JSON.stringify(payload), deps.maxContentLength, shardsId).map(text =>
        encryptWith(scheme, text, key),
      )
      return publishContents(app, peer, contents)
    },
    resend: (app, peer, reply) => publishContents(app, peer, reply.contents, reply.sentAt + 1),
    schemeFor: peer => schemes.get(peer) ?? 'nip44v1',
    rememberScheme(peer, scheme) {
      schemes.delete(peer) // set again at the end: the peers heard from longest ago are forgotten first
      schemes.set(peer, scheme)
    },
  }
}
