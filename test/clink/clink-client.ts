// An independent CLINK client written from the CLINK specs (offers, manage) on nostr-tools: a kind-21001/21003
// request NIP-44 v2 encrypted to the service key, tagged p and clink_version, and every answer to it (the first
// answer, then receipts) read from the relay by its e tag. It shares no code with src/.
import { WebSocket } from 'ws'
import { finalizeEvent, generateSecretKey, getEventHash, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure'
import { getPow } from 'nostr-tools/nip13'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import * as nip44 from 'nostr-tools/nip44'

useWebSocketImplementation(WebSocket)

export interface Reply {
  event: Event
  payload: any
}

export interface Exchange {
  request: Event
  replies: Reply[]
  /** The next answer not yet taken, within `timeoutMs`. */
  next(timeoutMs?: number): Promise<Reply>
  /** Stops listening for more answers. */
  close(): void
}

export interface EnrollOptions {
  /** Leading zero bits to mine the request to (none: not mined). */
  pow?: number
  createdAt?: number
  tags?: string[][]
  body?: unknown
}

export class ClinkClient {
  readonly secretKey: Uint8Array
  readonly pubkey: string
  private readonly conversationKey: Uint8Array

  private constructor(
    private readonly relay: Relay,
    readonly servicePubkey: string,
    secretKey?: Uint8Array,
    private readonly timeoutMs = 30_000,
  ) {
    this.secretKey = secretKey ?? generateSecretKey()
    this.pubkey = getPublicKey(this.secretKey)
    this.conversationKey = nip44.v2.utils.getConversationKey(this.secretKey, servicePubkey)
  }

  /** The relay connection, for reading other events (zap receipts). */
  get connection(): Relay {
    return this.relay
  }

  /** `timeoutMs` bounds each wait for an answer (generous by default: test machines are busy). */
  static async connect(relayUrl: string, servicePubkey: string, secretKey?: Uint8Array, timeoutMs?: number): Promise<ClinkClient> {
    return new ClinkClient(await Relay.connect(relayUrl), servicePubkey, secretKey, timeoutMs)
  }

  /**
   * Publishes a request and collects its answers (subscribed before publishing, so none is missed). `plaintext`
   * sends that text as the content instead of `body` as JSON (a malformed request).
   */
  async send(kind: number, body: unknown, opts: { tags?: string[][]; createdAt?: number; plaintext?: string } = {}): Promise<Exchange> {
    const content = nip44.v2.encrypt(opts.plaintext ?? JSON.stringify(body), this.conversationKey)
    const tags = opts.tags ?? [['p', this.servicePubkey], ['clink_version', '1']]
    const request = finalizeEvent({ kind, created_at: opts.createdAt ?? Math.floor(Date.now() / 1000), tags, content }, this.secretKey)
    const exchange = this.follow(request)
    await this.relay.publish(request)
    return exchange
  }

  /** Publishes an event this client built and signed itself (a mined one) and collects its answers. */
  async publish(request: Event): Promise<Exchange> {
    const exchange = this.follow(request)
    await this.relay.publish(request)
    return exchange
  }

  /** Encrypts a body to the service key, as every request of this client is. */
  encrypt(body: unknown): string {
    return nip44.v2.encrypt(JSON.stringify(body), this.conversationKey)
  }

  /** Collects the answers to a request sent earlier (perhaps through another relay connection). */
  follow(request: Event): Exchange {
    const replies: Reply[] = []
    const waiters: (() => void)[] = []
    const sub = this.relay.subscribe([{ kinds: [request.kind], '#p': [this.pubkey], '#e': [request.id] }], {
      onevent: event => {
        if (event.pubkey !== this.servicePubkey || !verifyEvent(event)) return
        if (replies.some(r => r.event.id === event.id)) return
        replies.push({ event, payload: JSON.parse(nip44.v2.decrypt(event.content, this.conversationKey)) })
        for (const wake of waiters.splice(0)) wake()
      },
    })
    let taken = 0
    return {
      request,
      replies,
      close: () => sub.close(),
      next: (timeoutMs = this.timeoutMs) =>
        new Promise<Reply>((resolve, reject) => {
          let settled = false
          const timer = setTimeout(() => {
            settled = true
            reject(new Error(`no answer to ${request.id} within ${timeoutMs} ms`))
          }, timeoutMs)
          const check = () => {
            if (settled) return
            if (replies.length <= taken) return void waiters.push(check)
            settled = true
            clearTimeout(timer)
            resolve(replies[taken++]!)
          }
          check()
        }),
    }
  }

  /**
   * An enroll request (kind 21004) of this client's key, mined to `pow` bits (its nonce tag commits to them), and its
   * first answer.
   */
  async enroll(opts: EnrollOptions = {}): Promise<{ request: Event; payload: any; event: Event }> {
    const unsigned = {
      kind: 21004,
      pubkey: this.pubkey,
      created_at: opts.createdAt ?? Math.floor(Date.now() / 1000),
      tags: opts.tags ?? [['p', this.servicePubkey], ['clink_version', '1']],
      content: this.encrypt(opts.body ?? {}),
    }
    const mined = opts.pow ? mine(unsigned, opts.pow) : unsigned
    const request = finalizeEvent({ kind: mined.kind, created_at: mined.created_at, tags: mined.tags, content: mined.content }, this.secretKey)
    const exchange = await this.publish(request)
    try {
      const reply = await exchange.next()
      return { request, payload: reply.payload, event: reply.event }
    } finally {
      exchange.close()
    }
  }

  /** One request, its first answer's payload. */
  async ask(kind: number, body: unknown, opts: { tags?: string[][]; createdAt?: number; plaintext?: string } = {}): Promise<Reply> {
    const exchange = await this.send(kind, body, opts)
    try {
      return await exchange.next()
    } finally {
      exchange.close()
    }
  }

  close(): void {
    this.relay.close()
  }
}

export const tagOf = (event: Event, name: string) => event.tags.find(t => t[0] === name)?.[1]

/**
 * NIP-13 mining that keeps created_at (nostr-tools' minePow moves it to the current second, which a test of an old
 * request cannot have): a nonce tag ["nonce", counter, bits] until the id has `bits` leading zero bits.
 */
export function mine<T extends { pubkey: string; created_at: number; kind: number; tags: string[][]; content: string }>(unsigned: T, bits: number): T {
  for (let counter = 0; ; counter++) {
    const candidate = { ...unsigned, tags: [...unsigned.tags, ['nonce', String(counter), String(bits)]] }
    if (getPow(getEventHash(candidate)) >= bits) return candidate
  }
}
