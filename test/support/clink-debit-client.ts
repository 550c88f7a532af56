// An independent CLINK debits requester (kind 21002) for tests, written from the CLINK spec on nostr-tools and
// sharing no code with src/: NIP-44 v2 requests tagged p and clink_version, answers read from one subscription on
// kind 21002 addressed to this key and matched to their request by the `e` tag.
import { WebSocket } from 'ws'
import { AbstractRelay } from 'nostr-tools/abstract-relay'
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure'
import { v2 as nip44 } from 'nostr-tools/nip44'

export interface DebitAnswer {
  payload: Record<string, any>
  event: Event
}

export class ClinkDebitClient {
  readonly secretKey: Uint8Array
  readonly pubkey: string
  /** Every answer received, by request id. */
  readonly answers = new Map<string, DebitAnswer[]>()
  private readonly waiters = new Map<string, ((answer: DebitAnswer) => void)[]>()
  private readonly key: Uint8Array
  private relay!: AbstractRelay

  private constructor(
    private readonly relayUrl: string,
    readonly walletPubkey: string,
    secretKey?: Uint8Array,
  ) {
    this.secretKey = secretKey ?? generateSecretKey()
    this.pubkey = getPublicKey(this.secretKey)
    this.key = nip44.utils.getConversationKey(this.secretKey, walletPubkey)
  }

  /** `sinceSeconds`: how far back answers are read (a client reconnecting after a restart reads what it missed). */
  static async connect(relayUrl: string, walletPubkey: string, secretKey?: Uint8Array, sinceSeconds = 10): Promise<ClinkDebitClient> {
    const client = new ClinkDebitClient(relayUrl, walletPubkey, secretKey)
    client.relay = new AbstractRelay(relayUrl, { verifyEvent, websocketImplementation: WebSocket as unknown as typeof globalThis.WebSocket })
    await client.relay.connect({ timeout: 3_000 })
    await new Promise<void>(resolve => {
      client.relay.subscribe([{ kinds: [21002], '#p': [client.pubkey], since: Math.floor(Date.now() / 1000) - sinceSeconds }], {
        onevent: event => client.onAnswer(event),
        oneose: () => resolve(),
        eoseTimeout: 5_000,
      })
    })
    return client
  }

  /** A signed request (not sent). */
  request(body: Record<string, unknown>, createdAt = Math.floor(Date.now() / 1000)): Event {
    const content = nip44.encrypt(JSON.stringify(body), this.key)
    return finalizeEvent({ kind: 21002, created_at: createdAt, tags: [['p', this.walletPubkey], ['clink_version', '1']], content }, this.secretKey)
  }

  async publish(event: Event): Promise<void> {
    await this.relay.publish(event)
  }

  /** The next answer to `requestId` (or the first one already received). */
  answer(requestId: string, timeoutMs = 10_000): Promise<DebitAnswer> {
    const have = this.answers.get(requestId)?.[0]
    if (have) return Promise.resolve(have)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${requestId} within ${timeoutMs} ms`)), timeoutMs)
      const list = this.waiters.get(requestId) ?? []
      list.push(answer => (clearTimeout(timer), resolve(answer)))
      this.waiters.set(requestId, list)
    })
  }

  /** Sends a request and waits for its answer. */
  async send(body: Record<string, unknown>, timeoutMs?: number): Promise<DebitAnswer & { request: Event }> {
    const request = this.request(body)
    const answered = this.answer(request.id, timeoutMs)
    answered.catch(() => {})
    await this.publish(request)
    return { ...(await answered), request }
  }

  close(): void {
    this.relay.close()
  }

  /** Event ids seen: a relay may deliver one event twice (a stored copy and the live one around a REQ), as NIP-01
   *  allows; clients count it once. */
  private readonly seen = new Set<string>()

  private onAnswer(event: Event): void {
    if (event.pubkey !== this.walletPubkey || this.seen.has(event.id)) return
    this.seen.add(event.id)
    const requestId = event.tags.find(tag => tag[0] === 'e')?.[1]
    if (!requestId) return
    let payload: Record<string, any>
    try {
      payload = JSON.parse(nip44.decrypt(event.content, this.key))
    } catch {
      return
    }
    const answer = { payload, event }
    this.answers.set(requestId, [...(this.answers.get(requestId) ?? []), answer])
    const waiting = this.waiters.get(requestId)
    this.waiters.delete(requestId)
    for (const resolve of waiting ?? []) resolve(answer)
  }
}
