// How the daemon talks to a client key: JSON → shards when too long → encrypted with the scheme the client
// speaks → kind 21000 signed by the app key, tagged only `["p", client]` → every service relay. Replies and
// pushes share it. A reply is sealed (encrypted, dated) first and published once it is stored, so that it can be
// re-sent as it was and never leaves before a repeat of its request would find it.
import { randomBytes } from 'node:crypto'
import { encryptWith, type AppKey, type CipherScheme, type ConversationKeys, type SendEvent, type StoredReply } from '../../nostr-codecs/index.js'
import { shardPlaintexts } from '../../nostr-codecs/index.js'
import { pubRpcKind } from '../../nostr-kinds/index.js'
import type { Event } from 'nostr-tools/pure'
import { type Clock } from '../../bus/index.js'
import { BoundedMap } from '../../limits/index.js'
import { unixSeconds } from '../../units/index.js'

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
  /** Sends a payload at once (a push); returns what was sent. */
  send(app: AppKey, peer: string, scheme: CipherScheme, payload: Record<string, unknown>): StoredReply
  /** Encrypts a payload into the contents of a reply, dated now, without sending it (see `publish`). */
  seal(app: AppKey, peer: string, scheme: CipherScheme, payload: Record<string, unknown>): StoredReply
  /** Sends a sealed reply, dated as it was sealed. */
  publish(app: AppKey, peer: string, reply: StoredReply): void
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
  const nowUnix = () => unixSeconds(deps.clock.now())
  const publish = (app: AppKey, peer: string, reply: StoredReply): StoredReply => {
    for (const content of reply.contents) {
      deps.send({ kind: pubRpcKind, created_at: reply.sentAt, tags: [['p', peer]], content }, app.secretKey)
    }
    return reply
  }
  const seal = (app: AppKey, peer: string, scheme: CipherScheme, payload: Record<string, unknown>): StoredReply => {
    const key = deps.keys.get(scheme, app.secretKey, app.pubkey, peer)
    const shardsId = Buffer.from(random(16)).toString('hex')
    const contents = shardPlaintexts(JSON.stringify(payload), deps.maxContentLength, shardsId).map(text =>
      encryptWith(scheme, text, key),
    )
    return { sentAt: nowUnix(), contents }
  }
  return {
    send: (app, peer, scheme, payload) => publish(app, peer, seal(app, peer, scheme, payload)),
    seal,
    publish: (app, peer, reply) => void publish(app, peer, reply),
    resend: (app, peer, reply) => publish(app, peer, { ...reply, sentAt: Math.max(nowUnix(), reply.sentAt + 1) }),
    schemeFor: peer => schemes.get(peer) ?? 'nip44v1',
    rememberScheme(peer, scheme) {
      schemes.delete(peer) // set again at the end: the peers heard from longest ago are forgotten first
      schemes.set(peer, scheme)
    },
  }
}
