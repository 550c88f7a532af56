// One attack on a daemon, from a process of its own (test/security/relay-attacks.test.ts and `npm run bench --
// attack` spawn it), so that the process measuring the daemon shares nothing with the one attacking it. Prints one
// JSON line with what it did and every refusal reason it got (the NIP-01 prefix and the text), then exits.
// Usage: node build/test/support/relay-attacker.js <file holding the AttackPlan as JSON>
import crypto from 'node:crypto'
import fs from 'node:fs'
import { WebSocket } from 'ws'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import * as nip44 from 'nostr-tools/nip44'
import { signSchnorr } from 'tiny-secp256k1'
import { onHandshakeRefusal } from './handshake-refusal.js'

export interface AttackPlan {
  mode: 'read-flood' | 'store-fill' | 'big-requests' | 'conn-hog' | 'guest-orders' | 'enroll-flood'
  /** The relay (ws://) or, for guest orders, the daemon's HTTP URL. */
  url: string
  durationMs: number
  /** Source address of every connection (another 127.x address stands for another client on the internet). */
  localAddress?: string
  /** Source addresses by connection (connection i uses the i-th, round the list): one attacker behind many addresses. */
  localAddresses?: string[]
  /** Parallel connections (read flood, store fill), sockets to hold (connection hog) or loops (guest orders). */
  connections: number
  /** The app key the store fill and the enroll flood address their requests to. */
  appPubkey?: string
  /** Bytes of content per event (store fill, big requests). */
  eventBytes?: number
  /** POST body of a guest order (guest orders). */
  order?: unknown
}

export interface AttackReport {
  mode: AttackPlan['mode']
  /** Messages or requests sent, events received, sockets opened and held. */
  sent: number
  received: number
  opened: number
  held: number
  /** Refusals by reason text (truncated), e.g. { "rate-limited: too many …": 12 }. */
  reasons: Record<string, number>
  /** The most stored events one REQ returned. */
  maxPerReq: number
  /** This process's own CPU (user + system, ms) over the attack: it shares the machine with the daemon. */
  cpuMs?: number
}

// The plan is in the file the argument names (a guest order may be larger than a command line may be).
const plan = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as AttackPlan
const report: AttackReport = { mode: plan.mode, sent: 0, received: 0, opened: 0, held: 0, reasons: {}, maxPerReq: 0 }
const deadline = Date.now() + plan.durationMs
const note = (reason: string) => {
  const key = reason.slice(0, 80)
  report.reasons[key] = (report.reasons[key] ?? 0) + 1
}

/** A connection from the plan's address (connection `i`'s, when the plan gives several). */
function connect(i = 0): Promise<WebSocket | undefined> {
  const localAddress = plan.localAddresses?.length ? plan.localAddresses[i % plan.localAddresses.length] : plan.localAddress
  return new Promise(resolve => {
    const socket = new WebSocket(plan.url, localAddress ? { localAddress } : {})
    // A refusal before the handshake may say why in its body (a NIP-01 reason): noted as that reason.
    onHandshakeRefusal(socket, ({ status, body }) => {
      refused = true
      note(body.length > 0 ? body : `Unexpected server response: ${status}`)
      resolve(undefined)
    })
    let refused = false
    socket.on('error', err => {
      if (!refused) note(err.message)
      resolve(undefined)
    })
    socket.on('close', (_code, reason) => {
      if (reason.length > 0) note(reason.toString())
      resolve(undefined)
    })
    socket.once('open', () => {
      report.opened++
      resolve(socket)
    })
  })
}

const pause = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

async function readFlood(): Promise<void> {
  // Each connection keeps 20 REQs for everything stored in flight, renewing each as soon as it ends.
  const filters = [{ kinds: [21000], limit: 5000 }, { kinds: [1], limit: 5000 }, {}]
  await Promise.all(
    Array.from({ length: plan.connections }, async () => {
      while (Date.now() < deadline) {
        const socket = await connect()
        if (!socket) {
          await pause(50)
          continue
        }
        const counts = new Map<string, number>()
        let n = 0
        const open = (subId: string) => {
          counts.set(subId, 0)
          socket.send(JSON.stringify(['REQ', subId, filters[n++ % filters.length]]))
          report.sent++
        }
        socket.on('message', data => {
          const [type, subId, detail] = JSON.parse(data.toString()) as [string, string, unknown]
          if (type === 'EVENT') {
            report.received++
            counts.set(subId, (counts.get(subId) ?? 0) + 1)
          } else if (type === 'EOSE' || type === 'CLOSED') {
            if (type === 'CLOSED') note(String(detail))
            report.maxPerReq = Math.max(report.maxPerReq, counts.get(subId) ?? 0)
            if (Date.now() < deadline && socket.readyState === socket.OPEN) open(`s${n}`)
          } else if (type === 'NOTICE') note(String(subId))
        })
        for (let i = 0; i < 20; i++) open(`s${n}`)
        await new Promise<void>(resolve => {
          socket.once('close', () => resolve())
          setTimeout(() => resolve(), Math.max(0, deadline - Date.now()))
        })
        socket.terminate()
      }
    }),
  )
}

/** Signs with tiny-secp256k1 and node's SHA-256 (as test/support/pub-client.ts does): the attacker must be fast. */
function sign(kind: number, tags: string[][], content: string, key: { secret: Uint8Array; pubkey: string }) {
  const created_at = Math.floor(Date.now() / 1000)
  const id = crypto.createHash('sha256').update(JSON.stringify([0, key.pubkey, created_at, kind, tags, content])).digest('hex')
  const sig = Buffer.from(signSchnorr(Buffer.from(id, 'hex'), key.secret, crypto.randomBytes(32))).toString('hex')
  return { id, pubkey: key.pubkey, created_at, kind, tags, content, sig }
}

async function storeFill(): Promise<void> {
  const content = 'x'.repeat(plan.eventBytes ?? 60_000)
  // Many authors, so that no author's budget is what stops it: only the address's (and the relay's) may.
  const keys = Array.from({ length: 256 }, () => {
    const secret = generateSecretKey()
    return { secret, pubkey: getPublicKey(secret) }
  })
  await floodEvents(i => {
    // Alternately a foreign kind and a request addressed to the daemon, each from a new key.
    const foreign = (report.sent + i) % 2 === 0
    const tags = foreign || !plan.appPubkey ? [] : [['p', plan.appPubkey]]
    return sign(foreign ? 1 : 21000, tags, content, keys[report.sent % keys.length]!)
  })
}

/**
 * Signed kind-21000 requests of `eventBytes` addressed to the app, one key per connection (so that neither the
 * author's budgets nor the address's new keys are what stops them: only the request-byte budgets may).
 */
async function bigRequests(): Promise<void> {
  const content = 'x'.repeat(plan.eventBytes ?? 250_000)
  const keys = Array.from({ length: plan.connections }, () => {
    const secret = generateSecretKey()
    return { secret, pubkey: getPublicKey(secret) }
  })
  await floodEvents(i => sign(21000, [['p', plan.appPubkey!]], content, keys[i]!))
}

/**
 * `plan.connections` connections publishing the events `next` makes (given the connection's number), at most 8 in
 * flight on each, until the deadline; a connection the relay closes is opened again. `received` counts accepted ones.
 */
async function floodEvents(next: (connection: number) => object): Promise<void> {
  await Promise.all(
    Array.from({ length: plan.connections }, async (_, i) => {
      while (Date.now() < deadline) {
        const socket = await connect(i)
        if (!socket) {
          await pause(50)
          continue
        }
        let inFlight = 0
        socket.on('message', data => {
          const [type, , accepted, reason] = JSON.parse(data.toString()) as [string, string, boolean, string]
          if (type !== 'OK') return
          inFlight--
          if (accepted) report.received++
          else note(reason)
        })
        while (Date.now() < deadline && socket.readyState === socket.OPEN) {
          if (inFlight >= 8) {
            await pause(5)
            continue
          }
          socket.send(JSON.stringify(['EVENT', next(i)]))
          report.sent++
          inFlight++
        }
        socket.terminate()
      }
    }),
  )
}

async function connectionHog(): Promise<void> {
  const held = new Set<WebSocket>()
  while (Date.now() < deadline) {
    // Keep trying to hold `connections` sockets; whatever the relay closes is opened again.
    const wanted = plan.connections - held.size
    const batch = await Promise.all(Array.from({ length: Math.min(wanted, 50) }, () => connect()))
    for (const socket of batch) {
      if (!socket || socket.readyState !== socket.OPEN) continue // closed while the rest of the batch connected
      held.add(socket)
      socket.once('close', () => held.delete(socket))
    }
    report.sent += batch.length
    await pause(wanted > 0 ? 100 : 250)
    // Counted after the pause: a socket the relay accepts and then closes at once is not held.
    report.held = Math.max(report.held, held.size)
  }
  for (const socket of held) socket.terminate()
}

async function guestOrders(): Promise<void> {
  const body = JSON.stringify(plan.order)
  await Promise.all(
    Array.from({ length: plan.connections }, async () => {
      while (Date.now() < deadline) {
        try {
          const res = await fetch(plan.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          report.sent++
          const text = await res.text()
          if (res.ok) report.received++
          else note(`${res.status} ${text}`)
        } catch (err) {
          note(`error ${(err as Error).message}`)
          await pause(50)
        }
      }
    }),
  )
}

/**
 * CLINK enroll requests (kind 21004), each from a fresh key, as fast as the relay takes them: every one that passes
 * would open an account. Proof of work is not mined (the daemon under test asks none, the worst case for its cap).
 * `received` counts the events the relay accepted.
 */
async function enrollFlood(): Promise<void> {
  const app = plan.appPubkey!
  await floodEvents(() => {
    const secret = generateSecretKey()
    const key = { secret, pubkey: getPublicKey(secret) }
    const content = nip44.v2.encrypt('{}', nip44.v2.utils.getConversationKey(secret, app))
    return sign(21004, [['p', app], ['clink_version', '1']], content, key)
  })
}

const attacks = { 'read-flood': readFlood, 'store-fill': storeFill, 'big-requests': bigRequests, 'conn-hog': connectionHog, 'guest-orders': guestOrders, 'enroll-flood': enrollFlood }
await attacks[plan.mode]()
const cpu = process.cpuUsage()
report.cpuMs = Math.round((cpu.user + cpu.system) / 1000)
process.stdout.write(JSON.stringify(report) + '\n')
process.exit(0)
