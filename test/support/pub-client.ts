// An independent Lightning.Pub relay client for tests and the bench, written on nostr-tools and sharing no code with
// src/transports/nostr: nip44v1 from node's ECDH + SHA-256 and @stablelib/xchacha20, NIP-44 v2 from nostr-tools,
// shard reassembly, push listening, and reconnects (so a test can restart the relay under it).
import crypto from 'node:crypto'
import { WebSocket } from 'ws'
import { AbstractRelay } from 'nostr-tools/abstract-relay'
import { generateSecretKey, getPublicKey, setNostrWasm, verifyEvent, type Event, type EventTemplate, type VerifiedEvent } from 'nostr-tools/wasm'
import { v2 as nip44 } from 'nostr-tools/nip44'
import { streamXOR } from '@stablelib/xchacha20'
import { initNostrWasm } from 'nostr-wasm'
import { signSchnorr } from 'tiny-secp256k1'
import { decode as nip19Decode } from 'nostr-tools/nip19'
import fs from 'node:fs'
import path from 'node:path'

setNostrWasm(await initNostrWasm())

/**
 * BIP-340 signing of a 32-byte id: native libsecp256k1 (bcrypto's addon, ~60 µs) where it built, else tiny-secp256k1
 * (wasm, ~250 µs). It matters because the bench client shares the machine's two cores with the daemon it measures.
 */
const schnorrSign: (id: Buffer, secretKey: Buffer, aux: Buffer) => Uint8Array = await (async () => {
  try {
    const specifier = 'bcrypto/lib/schnorr.js' // optional: no declarations for the type checker to look for
    const native = ((await import(specifier)) as { default: { native: number; sign(m: Buffer, k: Buffer, a: Buffer): Buffer } }).default
    if (native.native === 2) return (id, key, aux) => native.sign(id, key, aux)
  } catch {
    // the addon did not build here: wasm
  }
  return (id, key, aux) => signSchnorr(id, key, aux)
})()

/** Signs with node's SHA-256 for the id (any size fits) and the fastest Schnorr signer above. */
function signEvent(template: EventTemplate, secretKey: Uint8Array, pubkey: string): Event {
  const { kind, created_at, tags, content } = template
  const id = crypto.createHash('sha256').update(JSON.stringify([0, pubkey, created_at, kind, tags, content])).digest('hex')
  const sig = Buffer.from(schnorrSign(Buffer.from(id, 'hex'), Buffer.from(secretKey), crypto.randomBytes(32))).toString('hex')
  return { kind, created_at, tags, content, pubkey, id, sig }
}

/**
 * ws with an 'error' listener from birth: when a connect attempt times out, nostr-tools closes the socket while it
 * is still connecting, and ws reports that as an 'error' event that would otherwise crash the process (a relay that
 * is slow to come back after a restart). The relay's own handlers still see every error.
 */
class ReconnectingSocket extends WebSocket {
  constructor(...args: ConstructorParameters<typeof WebSocket>) {
    super(...args)
    this.on('error', () => {})
  }
}

/** The socket class nostr-tools makes its connections with, bound to a source address when one is given. */
function socketFrom(localAddress: string | undefined): typeof ReconnectingSocket {
  if (!localAddress) return ReconnectingSocket
  return class extends ReconnectingSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { localAddress })
    }
  }
}

export type Scheme = 'nip44v1' | 'nip44v2'
export type Reply = Record<string, any> & { status: string; requestId: string }

export interface PubClientOptions {
  relays: string[]
  /** The app key the requests address (from app.nprofile). */
  appPubkey: string
  secretKey?: Uint8Array
  scheme?: Scheme
  /** Single calls give up after this long (ms; 60 s by default: it bounds how long a failing test takes, and a loaded machine is slow). */
  timeoutMs?: number
  /** Check the signature of every message (default true); a load generator may skip it to stay out of the way. */
  verifyMessages?: boolean
  /** Source address of the connections (another 127.x address stands for another client on the internet). */
  localAddress?: string
  /** Answer a relay's NIP-42 challenge with this client's key, as nostr-tools does when `onauth` is set. */
  authenticate?: boolean
}

export interface RequestOptions {
  query?: Record<string, unknown>
  requestId?: string
  /** Override the event's created_at (unix s), e.g. to send a stale request. */
  createdAt?: number
  /** Override the envelope's authIdentifier. */
  authIdentifier?: string
  scheme?: Scheme
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

export function nip44v1Key(secretKey: Uint8Array, peer: string): Uint8Array {
  const ecdh = crypto.createECDH('secp256k1')
  ecdh.setPrivateKey(Buffer.from(secretKey))
  return crypto.createHash('sha256').update(ecdh.computeSecret(Buffer.from('02' + peer, 'hex'))).digest()
}

export function nip44v1Encrypt(text: string, key: Uint8Array): string {
  const nonce = crypto.randomBytes(24)
  const plain = Buffer.from(text, 'utf8')
  const cipher = streamXOR(key, nonce, plain, new Uint8Array(plain.length))
  return Buffer.concat([Buffer.from([1]), nonce, cipher]).toString('base64')
}

export function nip44v1Decrypt(payload: string, key: Uint8Array): string {
  const wire = Buffer.from(payload, 'base64')
  if (wire[0] !== 1) throw new Error('not nip44v1')
  const nonce = wire.subarray(1, 25)
  const cipher = wire.subarray(25)
  return Buffer.from(streamXOR(key, nonce, cipher, new Uint8Array(cipher.length))).toString('utf8')
}

export class PubClient {
  readonly secretKey: Uint8Array
  readonly pubkey: string
  readonly scheme: Scheme
  /** Every decoded message, replies and pushes, in arrival order. */
  readonly received: Reply[] = []
  /** The scheme each received message was encrypted with, by requestId (the last one wins). */
  readonly schemes = new Map<string, Scheme>()
  private readonly relays = new Map<string, AbstractRelay | undefined>()
  private readonly seen = new Set<string>()
  private readonly shards = new Map<string, string[]>()
  private readonly waiters: { match(reply: Reply): boolean; resolve(reply: Reply): void; abandon(reason: Error): void }[] = []
  private readonly startedAt = Math.floor(Date.now() / 1000)
  /** created_at of the newest reply taken: a reconnect resumes a little before it, as a real client would. */
  private newestSeen = 0
  private closed = false
  private keys = new Map<Scheme, Uint8Array>()
  private lastScheme: Scheme = 'nip44v1'

  constructor(private readonly opts: PubClientOptions) {
    this.secretKey = opts.secretKey ?? generateSecretKey()
    this.pubkey = getPublicKey(this.secretKey)
    this.scheme = opts.scheme ?? 'nip44v1'
  }

  static async connect(opts: PubClientOptions): Promise<PubClient> {
    const client = new PubClient(opts)
    await Promise.all(opts.relays.map(url => client.connectRelay(url)))
    return client
  }

  key(scheme: Scheme): Uint8Array {
    let key = this.keys.get(scheme)
    if (!key) {
      key = scheme === 'nip44v1' ? nip44v1Key(this.secretKey, this.opts.appPubkey) : nip44.utils.getConversationKey(this.secretKey, this.opts.appPubkey)
      this.keys.set(scheme, key)
    }
    return key
  }

  /** A signed request event (not sent). */
  request(rpcName: string, body: Record<string, unknown> = {}, o: RequestOptions = {}): { event: Event; requestId: string } {
    const requestId = o.requestId ?? crypto.randomBytes(8).toString('hex')
    const scheme = o.scheme ?? this.scheme
    const plaintext = JSON.stringify({ rpcName, requestId, authIdentifier: o.authIdentifier ?? this.pubkey, body, query: o.query ?? {} })
    const content = scheme === 'nip44v1' ? nip44v1Encrypt(plaintext, this.key(scheme)) : nip44.encrypt(plaintext, this.key(scheme))
    const event = signEvent(
      { kind: 21000, created_at: o.createdAt ?? Math.floor(Date.now() / 1000), tags: [['p', this.opts.appPubkey]], content },
      this.secretKey,
      this.pubkey,
    )
    return { event, requestId }
  }

  /** Publishes to the given relays (default all), retrying while a relay is down, until `timeoutMs`. */
  async publish(event: Event, relays: string[] = [...this.relays.keys()], timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    await Promise.all(
      relays.map(async url => {
        for (;;) {
          const relay = this.relays.get(url)
          try {
            if (!relay?.connected) throw new Error('not connected')
            // nostr-tools keeps one pending publish per event id: publishing the same event again while an earlier
            // try waits for its OK (a resend after a restart) replaces the earlier one, whose promise then never
            // settles. Our own deadline keeps every try finite.
            await new Promise<void>((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error('publish timed out')), publishTryMs)
              relay.publish(event).then(
                () => (clearTimeout(timer), resolve()),
                err => (clearTimeout(timer), reject(err)),
              )
            })
            return
          } catch (err) {
            const reason = (err as Error).message ?? String(err)
            if (!/not connected|closed|timed out|rate-limited|connection/i.test(reason)) throw err
            if (Date.now() > deadline) throw new Error(`publish to ${url} failed: ${reason}`)
            await sleep(100)
          }
        }
      }),
    )
  }

  /** The next message (reply or push) with this requestId that satisfies `match`. */
  waitFor(requestId: string, timeoutMs = this.opts.timeoutMs ?? 60_000, match: (reply: Reply) => boolean = () => true): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.waiters.indexOf(waiter)
        if (index >= 0) this.waiters.splice(index, 1)
        reject(new Error(`no message with requestId ${requestId} within ${timeoutMs} ms`))
      }, timeoutMs)
      const waiter = {
        match: (reply: Reply) => reply.requestId === requestId && match(reply),
        resolve: (reply: Reply) => {
          clearTimeout(timer)
          resolve(reply)
        },
        abandon: (reason: Error) => {
          clearTimeout(timer)
          reject(reason)
        },
      }
      this.waiters.push(waiter)
    })
  }

  /** Sends a request and resolves with its reply. */
  async call(rpcName: string, body: Record<string, unknown> = {}, o: RequestOptions = {}): Promise<Reply> {
    const { event, requestId } = this.request(rpcName, body, o)
    const reply = this.waitFor(requestId)
    reply.catch(() => {}) // returned below; a failed publish must not leave it unhandled
    await this.publish(event)
    return reply
  }

  /** Like call, but fails unless the answer is OK. */
  async ok(rpcName: string, body: Record<string, unknown> = {}, o: RequestOptions = {}): Promise<Reply> {
    const reply = await this.call(rpcName, body, o)
    if (reply.status !== 'OK') throw new Error(`${rpcName} answered ${JSON.stringify(reply)}`)
    return reply
  }

  messages(requestId: string): Reply[] {
    return this.received.filter(reply => reply.requestId === requestId)
  }

  close(): void {
    this.closed = true
    // A pending wait would keep the process alive until its deadline.
    for (const waiter of this.waiters.splice(0)) waiter.abandon(new Error('the client was closed'))
    for (const relay of this.relays.values()) relay?.close()
  }

  private async connectRelay(url: string): Promise<void> {
    for (;;) {
      if (this.closed) return
      const check = this.opts.verifyMessages === false ? () => true : verifyEvent
      const relay = new AbstractRelay(url, { verifyEvent: check, websocketImplementation: socketFrom(this.opts.localAddress) as unknown as typeof globalThis.WebSocket })
      relay.publishTimeout = 5_000
      // NIP-42: nostr-tools answers the relay's challenge through onauth; the subscription below waits for that.
      let challenged = () => {}
      const authStarted = new Promise<void>(resolve => (challenged = resolve))
      if (this.opts.authenticate) {
        relay.onauth = async template => {
          challenged()
          return signEvent(template, this.secretKey, this.pubkey) as VerifiedEvent
        }
      }
      let dropped = false
      relay.onclose = () => {
        if (dropped) return
        dropped = true
        this.relays.set(url, undefined)
        if (!this.closed) setTimeout(() => void this.connectRelay(url), 100)
      }
      try {
        await relay.connect({ timeout: 3_000 })
      } catch {
        if (!dropped) {
          dropped = true
          await sleep(100)
          continue
        }
        return // onclose already scheduled the next attempt
      }
      if (this.opts.authenticate) {
        // A relay that sends no challenge within the connect timeout is used as it is.
        const heard = await Promise.race([authStarted.then(() => true), sleep(3_000).then(() => false)])
        if (heard) await relay.auth(relay.onauth!)
      }
      this.relays.set(url, relay)
      // Replies from a little before the newest one taken (from the start, the first time): a reconnect gets what
      // was sent while the link was down. Ids already seen are skipped. Resuming from the start instead made every
      // reconnect replay all the relay holds (10 minutes of replies), which slowed a long chaos campaign to half speed.
      const since = Math.max(this.startedAt, this.newestSeen) - reconnectSlackSeconds
      await new Promise<void>(resolve => {
        relay.subscribe([{ kinds: [21000], '#p': [this.pubkey], since }], {
          onevent: event => this.onEvent(event),
          oneose: () => resolve(),
          eoseTimeout: 5_000,
        })
      })
      return
    }
  }

  private onEvent(event: Event): void {
    if (this.seen.has(event.id) || event.pubkey !== this.opts.appPubkey) return
    this.seen.add(event.id)
    if (event.created_at > this.newestSeen) this.newestSeen = event.created_at
    let text: string
    let scheme: Scheme
    try {
      scheme = Buffer.from(event.content.slice(0, 4), 'base64')[0] === 2 ? 'nip44v2' : 'nip44v1'
      text = scheme === 'nip44v2' ? nip44.decrypt(event.content, this.key('nip44v2')) : nip44v1Decrypt(event.content, this.key('nip44v1'))
    } catch {
      return
    }
    this.lastScheme = scheme
    const parsed = JSON.parse(text) as Record<string, any>
    if (typeof parsed.shardsId === 'string' && typeof parsed.part === 'string') {
      const parts = this.shards.get(parsed.shardsId) ?? new Array<string>(parsed.totalShards)
      parts[parsed.index] = parsed.part
      this.shards.set(parsed.shardsId, parts)
      if (parts.filter(part => part !== undefined).length < parsed.totalShards) return
      this.shards.delete(parsed.shardsId)
      this.deliver({ ...(JSON.parse(parts.join('')) as Reply), shardCount: parsed.totalShards })
      return
    }
    this.deliver(parsed as Reply)
  }

  private deliver(reply: Reply): void {
    this.received.push(reply)
    this.schemes.set(reply.requestId, this.lastScheme)
    const index = this.waiters.findIndex(waiter => waiter.match(reply))
    if (index >= 0) this.waiters.splice(index, 1)[0]!.resolve(reply)
  }
}

/** The default app's pubkey and relays, from the app.nprofile a daemon writes into its data dir. */
export function appProfile(dataDir: string): { pubkey: string; relays: string[] } {
  const decoded = nip19Decode(fs.readFileSync(path.join(dataDir, 'app.nprofile'), 'utf8').trim())
  if (decoded.type !== 'nprofile') throw new Error('app.nprofile does not hold an nprofile')
  return { pubkey: decoded.data.pubkey, relays: decoded.data.relays ?? [] }
}

/** How far before the newest reply taken a reconnect resumes (replies are dated by the second, not in order). */
const reconnectSlackSeconds = 10
/** One publish try: nostr-tools' own timeout (5 s, set on each relay below) and a margin. */
const publishTryMs = 6_000

export function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms))
}

export { hex }
