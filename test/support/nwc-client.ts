// A small NIP-47 client written independently of src/nwc/ on nostr-tools, for what the reference client
// (@getalby/sdk, test/nwc/alby-sdk.test.ts) does not expose: NIP-04 requests, raw events, duplicate delivery. It parses a connection URI, sends kind-23194
// requests in NIP-44 v2 or NIP-04, waits for the kind-23195 response tagged with the request id, and collects
// notifications (23197 NIP-44, 23196 NIP-04).
import { AbstractRelay, type Subscription } from 'nostr-tools/abstract-relay'
import { finalizeEvent, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure'
import * as nip44 from 'nostr-tools/nip44'
import * as nip04 from 'nostr-tools/nip04'
import { hexToBytes } from '@noble/hashes/utils.js'
import { WebSocket } from 'ws'

export interface NwcResponse {
  result_type: string
  error: { code: string; message: string } | null
  result: any
}

export interface NwcNotification {
  kind: number
  notification_type: string
  notification: any
}

export type Encryption = 'nip44_v2' | 'nip04'

export interface ParsedConnection {
  servicePubkey: string
  relays: string[]
  secret: Uint8Array
}

export function parseConnectionUri(uri: string): ParsedConnection {
  const url = new URL(uri)
  if (url.protocol !== 'nostr+walletconnect:') throw new Error(`not an NWC URI: ${uri}`)
  const servicePubkey = url.host || url.pathname.replace(/^\/+/, '')
  const secret = url.searchParams.get('secret')
  if (!/^[0-9a-f]{64}$/.test(servicePubkey) || !secret || !/^[0-9a-f]{64}$/.test(secret)) throw new Error(`bad NWC URI: ${uri}`)
  return { servicePubkey, relays: url.searchParams.getAll('relay'), secret: hexToBytes(secret) }
}

export class NwcTestClient {
  readonly clientPubkey: string
  /** Every response received, in order (duplicates included). */
  readonly responses: { requestId: string; eventId: string; createdAt: number; response: NwcResponse }[] = []
  readonly notifications: NwcNotification[] = []
  private waiters = new Map<string, (response: NwcResponse) => void>()
  private subscription: Subscription | undefined

  private constructor(
    readonly connection: ParsedConnection,
    private relay: AbstractRelay,
  ) {
    this.clientPubkey = getPublicKey(connection.secret)
  }

  /** Connects to the URI's first relay (or `relayUrl`, e.g. after the daemon restarted on another port). */
  static async connect(uri: string, relayUrl?: string): Promise<NwcTestClient> {
    const connection = parseConnectionUri(uri)
    const relay = new AbstractRelay(relayUrl ?? connection.relays[0]!, {
      verifyEvent,
      websocketImplementation: WebSocket as unknown as typeof globalThis.WebSocket,
    })
    await relay.connect()
    const client = new NwcTestClient(connection, relay)
    await client.listen()
    return client
  }

  private listen(): Promise<void> {
    return new Promise(resolve => {
      this.subscription = this.relay.subscribe(
        [{ kinds: [23195, 23196, 23197], authors: [this.connection.servicePubkey], '#p': [this.clientPubkey], since: Math.floor(Date.now() / 1000) - 5 }],
        { onevent: event => this.receive(event), oneose: () => resolve() },
      )
    })
  }

  private decrypt(event: Event, scheme: Encryption): string {
    return scheme === 'nip44_v2'
      ? nip44.decrypt(event.content, nip44.getConversationKey(this.connection.secret, event.pubkey))
      : nip04.decrypt(this.connection.secret, event.pubkey, event.content)
  }

  private receive(event: Event): void {
    if (event.kind === 23195) {
      const requestId = event.tags.find(tag => tag[0] === 'e')?.[1]
      if (!requestId) return
      // The response uses the request's scheme; NIP-44 v2 payloads are base64 without NIP-04's "?iv=".
      const scheme: Encryption = event.content.includes('?iv=') ? 'nip04' : 'nip44_v2'
      const response = JSON.parse(this.decrypt(event, scheme)) as NwcResponse
      this.responses.push({ requestId, eventId: event.id, createdAt: event.created_at, response })
      this.waiters.get(requestId)?.(response)
      this.waiters.delete(requestId)
      return
    }
    const notification = JSON.parse(this.decrypt(event, event.kind === 23197 ? 'nip44_v2' : 'nip04'))
    this.notifications.push({ kind: event.kind, ...notification })
  }

  /** The service's kind-13194 info event, or undefined. */
  async info(): Promise<Event | undefined> {
    return new Promise(resolve => {
      let found: Event | undefined
      const sub = this.relay.subscribe([{ kinds: [13194], authors: [this.connection.servicePubkey] }], {
        onevent: event => (found = event),
        oneose: () => {
          sub.close()
          resolve(found)
        },
      })
    })
  }

  /** A signed request event (not sent). `encryption: 'nip04'` sends no encryption tag, as older clients do. */
  buildRequest(method: string, params: object, encryption: Encryption = 'nip44_v2', secret = this.connection.secret): Event {
    const payload = JSON.stringify({ method, params })
    const service = this.connection.servicePubkey
    const content =
      encryption === 'nip44_v2'
        ? nip44.encrypt(payload, nip44.getConversationKey(secret, service))
        : nip04.encrypt(secret, service, payload)
    const tags = [['p', service], ...(encryption === 'nip44_v2' ? [['encryption', 'nip44_v2']] : [])]
    return finalizeEvent({ kind: 23194, created_at: Math.floor(Date.now() / 1000), tags, content }, secret)
  }

  /** Publishes a request event and waits for its response. */
  async send(event: Event, timeoutMs = 10_000): Promise<NwcResponse> {
    const answered = new Promise<NwcResponse>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no NWC response to ${event.id} within ${timeoutMs} ms`)), timeoutMs)
      this.waiters.set(event.id, response => {
        clearTimeout(timer)
        resolve(response)
      })
    })
    await this.relay.publish(event)
    return answered
  }

  request(method: string, params: object = {}, encryption: Encryption = 'nip44_v2'): Promise<NwcResponse> {
    return this.send(this.buildRequest(method, params, encryption))
  }

  /** Like request, but fails unless the answer has a result; returns it. */
  async call(method: string, params: object = {}, encryption: Encryption = 'nip44_v2'): Promise<any> {
    const response = await this.request(method, params, encryption)
    if (response.error) throw new Error(`${method}: ${response.error.code} ${response.error.message}`)
    if (response.result_type !== method) throw new Error(`${method}: result_type ${response.result_type}`)
    return response.result
  }

  /** Resolves once `predicate` holds for a received notification (polls; fails after `timeoutMs`). */
  async waitForNotification(predicate: (n: NwcNotification) => boolean, timeoutMs = 10_000): Promise<NwcNotification> {
    const started = Date.now()
    for (;;) {
      const found = this.notifications.find(predicate)
      if (found) return found
      if (Date.now() - started > timeoutMs) throw new Error('no matching NWC notification')
      await new Promise(resolve => setTimeout(resolve, 25))
    }
  }

  close(): void {
    this.subscription?.close()
    this.relay.close()
  }
}
