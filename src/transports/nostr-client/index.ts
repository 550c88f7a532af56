// A one-shot Pub RPC client over a relay, for `relaypay call --relay`: sends one kind-21000 request to an app key
// and waits for the reply with its requestId, joining shards. It speaks nip44v1, as upstream clients do, so the
// reply comes back in nip44v1 too. A room of its own, not the server's business: the CLI loads the wire codecs
// (src/nostr-codecs) and nostr-tools, not the daemon's transport. One request and one reply are signed and checked
// with nostr-tools' own Schnorr, which needs no engine to load first.
import { randomBytes } from 'node:crypto'
import { WebSocket } from '../../vendor/ws.js'
import { AbstractRelay } from 'nostr-tools/abstract-relay'
import { finalizeEvent, getPublicKey, verifyEvent, type Event, type EventTemplate } from 'nostr-tools/pure'
import { conversationKeyV1, decryptV1, encryptV1, type Shard } from '../../nostr-codecs/index.js'
import { pubRpcKind } from '../../nostr-kinds/index.js'
import { unixSeconds } from '../../units/index.js'

export interface RelayCall {
  relays: readonly string[]
  appPubkey: string
  secretKey: Uint8Array
  rpcName: string
  body: Record<string, unknown>
  timeoutMs: number
}

/** The reply (`{status, …, requestId}`), or an Error when no relay answered in time. */
export async function callOverRelay(call: RelayCall): Promise<Record<string, unknown>> {
  const pubkey = getPublicKey(call.secretKey)
  const key = conversationKeyV1(call.secretKey, call.appPubkey)
  const requestId = randomBytes(8).toString('hex')
  const plaintext = JSON.stringify({ rpcName: call.rpcName, requestId, authIdentifier: pubkey, body: call.body, query: {} })
  const since = unixSeconds(Date.now()) - 5
  const request = finalizeEvent(
    { kind: pubRpcKind, created_at: since + 5, tags: [['p', call.appPubkey]], content: encryptV1(plaintext, key) },
    call.secretKey,
  )

  const connected: AbstractRelay[] = []
  const shards = new Map<string, string[]>()
  try {
    return await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply within ${call.timeoutMs} ms`)), call.timeoutMs)
      const onEvent = (event: Event) => {
        let text: string
        try {
          text = decryptV1(event.content, key)
        } catch {
          return
        }
        let message = JSON.parse(text) as Record<string, unknown>
        if (typeof message.shardsId === 'string') {
          const shard = message as unknown as Shard
          const parts = shards.get(shard.shardsId) ?? new Array<string>(shard.totalShards).fill('')
          parts[shard.index] = shard.part
          shards.set(shard.shardsId, parts)
          if (parts.some(part => part === '')) return
          message = JSON.parse(parts.join('')) as Record<string, unknown>
        }
        if (message.requestId !== requestId) return
        clearTimeout(timer)
        resolve(message)
      }
      const opts = { verifyEvent, websocketImplementation: WebSocket as unknown as typeof globalThis.WebSocket }
      // A relay that sends requests and replies only to their parties (NIP-42) asks for a signed answer to its
      // challenge: the request's own key gives it, and a subscription it closed for want of one is made again.
      const sign = async (template: EventTemplate) => finalizeEvent(template, call.secretKey)
      Promise.allSettled(
        call.relays.map(async url => {
          const relay = new AbstractRelay(url, opts)
          relay.onauth = sign
          await relay.connect({ timeout: 5_000 })
          connected.push(relay)
          const subscribe = () =>
            new Promise<string | undefined>(done =>
              relay.subscribe([{ kinds: [pubRpcKind], '#p': [pubkey], authors: [call.appPubkey], since }], {
                onevent: onEvent,
                oneose: () => done(undefined),
                onclose: reason => done(reason),
              }),
            )
          let closed = await subscribe()
          if (closed?.startsWith('auth-required:')) {
            await relay.auth(sign)
            closed = await subscribe()
          }
          if (closed !== undefined) throw new Error(`${url} closed the subscription: ${closed}`)
          await relay.publish(request)
        }),
      ).then(results => {
        if (results.every(result => result.status === 'rejected')) {
          clearTimeout(timer)
          reject(new Error(`no relay took the request: ${(results[0] as PromiseRejectedResult).reason}`))
        }
      })
    })
  } finally {
    for (const relay of connected) relay.close()
  }
}
