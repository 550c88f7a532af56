// The four paths of bench/payments-regtest.ts, each measured for relaypay (over HTTP, as an integrator drives it)
// and for the bare client (bench/bare-lnd-client.ts): one window per call, with what the window cost.
import path from 'node:path'
import Database from 'better-sqlite3'
import { decode as decodeBolt11 } from 'light-bolt11-decoder'
import type { TestDaemon } from '../test/support/daemon.js'
import { balanceOf } from '../test/support/money.js'
import { until } from '../test/support/until.js'
import type { Regtest } from '../test/support/regtest/index.js'
import { nodeNames } from '../test/support/regtest/network.js'
import type { BareLnd, CreatedInvoice } from './bare-lnd-client.js'
import { closedLoop, costWindow, figures, type WatchedPids, type WindowFigures } from './closed-loop.js'
import { profiler } from './process-stats.js'
import { RawConnection, rawRequest } from './raw-http.js'

export const sides = ['relaypay', 'bare'] as const
export type Side = (typeof sides)[number]
export type PathName = 'invoices' | 'pairs' | 'outgoing' | 'settlements'
/** A timed window (invoices, pairs) lasts `durationMs`; a window of payments (outgoing, settlements) pays `payments`. */
export interface WindowSize {
  durationMs: number
  payments: number
}
type Measure = (size: WindowSize) => Promise<WindowFigures>

/** Each payment and invoice: small, so the channels (10,000,000 sats, 4,000,000 pushed) outlast any run. */
const amountSats = 10
/** relaypay's routing fee limit for `amountSats` by default: the floor, 5 sats ([fees] routing_fee_floor_sats). */
const routingFeeLimitMsat = 5_000
/** How often the daemon's books are read for the settlements it has credited. */
const creditPollMs = 5
/** How long the receiver may take to hear of the last settlement once B has paid everything. */
const settledWithinMs = 120_000

export interface PathDeps {
  daemon: TestDaemon
  net: Regtest
  a: BareLnd
  b: BareLnd
  /** The app of users payer, payee and receiver. */
  appToken: string
  concurrency: number
  profileDir?: string
}

/** The answer when relaypay says OK; its words otherwise, as the window's first error. */
function ok(answer: { status: number; body: string }): { status: number; body: string } {
  if (answer.status !== 200 || !answer.body.startsWith('{"status":"OK"')) throw new Error(`HTTP ${answer.status}: ${answer.body.slice(0, 300)}`)
  return answer
}

export async function regtestPaths({ daemon, net, a, b, appToken, concurrency, profileDir }: PathDeps) {
  const url = new URL(daemon.url)
  const connections = await Promise.all(Array.from({ length: concurrency }, () => RawConnection.connect(Number(url.port), url.hostname)))
  const pids: WatchedPids = { daemon: daemon.process.pid, lnd: Object.fromEntries(nodeNames.map(name => [name, net.node(name).process.pid])) }
  const headers = { authorization: appToken }
  /** AddAppUserInvoice's body: an invoice of `amountSats` crediting `receiver`. */
  const invoiceOf = (receiver: string) => ({
    receiver_identifier: receiver, payer_identifier: '', http_callback_url: '', invoice_req: { amountSats, memo: 'bench' },
  })
  const payeeInvoice = rawRequest(url.host, 'POST', '/api/app/user/add/invoice', headers, JSON.stringify(invoiceOf('payee')))
  const payFromPayer = (invoice: string) =>
    rawRequest(url.host, 'POST', '/api/app/invoice/pay', headers, JSON.stringify({ user_identifier: 'payer', invoice, amount: 0 }))
  const invoiceMsat = amountSats * 1000
  const bareInvoice = () => a.addInvoice(invoiceMsat, 'bench').then(() => true)

  /** relaypay's side: fresh connections (the daemon closes one idle for 5 s, maybe as it is reused), profiled. */
  const relaypayWindow = async (shape: Parameters<typeof closedLoop>[0], op: Parameters<typeof closedLoop>[1]) => {
    connections.forEach(connection => connection.close())
    const prof = profiler(daemon.process.pid, profileDir)
    prof.start()
    const costs = costWindow(pids)
    const loop = await closedLoop(shape, op)
    const spent = costs.end(loop.latenciesMs.length)
    return figures(loop, spent, await prof.stop())
  }
  const bareWindow = async (shape: Parameters<typeof closedLoop>[0], op: Parameters<typeof closedLoop>[1]) => {
    const costs = costWindow(pids)
    const loop = await closedLoop(shape, op)
    return figures(loop, costs.end(loop.latenciesMs.length))
  }
  /** Invoices made before a window, `concurrency` at a time. */
  const prepared = async (count: number, make: () => Promise<CreatedInvoice>): Promise<CreatedInvoice[]> => {
    const made: CreatedInvoice[] = []
    const loop = await closedLoop({ concurrency, count }, async () => {
      made.push(await make())
      return true
    })
    if (loop.errors > 0) throw new Error(`${loop.errors} of ${count} invoices could not be made: ${loop.firstError}`)
    return made
  }
  const relaypayInvoice = async (): Promise<CreatedInvoice> => {
    const made = await daemon.request('POST', '/api/app/user/add/invoice', {
      body: invoiceOf('receiver'),
      headers,
    })
    if (made.json?.status !== 'OK') throw new Error(`AddAppUserInvoice: ${made.text}`)
    return { paymentRequest: made.json.invoice, paymentHash: paymentHashOf(made.json.invoice) }
  }

  /**
   * B pays every invoice, `concurrency` at a time; the window lasts until the receiving side has heard of each
   * settlement B saw succeed (`watch` reports a hash with the time it heard of it, or why it cannot hear any more).
   */
  const settlementWindow = async (
    invoices: CreatedInvoice[],
    watch: (heard: (paymentHash: string, at: number) => void, failed: (err: Error) => void) => { close(): void },
    profiled: boolean,
  ): Promise<WindowFigures> => {
    const startedAt = new Map<string, number>()
    const heardAt = new Map<string, number>()
    const paid: string[] = []
    let failure: Error | undefined
    const ours = new Set(invoices.map(invoice => invoice.paymentHash))
    const watcher = watch(
      (hash, at) => {
        if (!ours.has(hash) || heardAt.has(hash)) return
        // A watcher that reports an invoice before B has started paying it is not reading settlements.
        if (!startedAt.has(hash)) failure ??= new Error(`heard of the settlement of ${hash} before B paid it`)
        heardAt.set(hash, at)
      },
      err => (failure ??= err),
    )
    const prof = profiler(daemon.process.pid, profiled ? profileDir : undefined)
    prof.start()
    const costs = costWindow(pids)
    const started = performance.now()
    try {
      const loop = await closedLoop({ concurrency, count: invoices.length }, async (_, index) => {
        const { paymentRequest, paymentHash } = invoices[index]!
        startedAt.set(paymentHash, performance.now())
        const status = await b.pay(paymentRequest)
        if (status !== 'SUCCEEDED') throw new Error(`B's payment ended ${status}`)
        paid.push(paymentHash)
        return true
      })
      const heardAll = () => {
        if (failure) throw failure
        return paid.every(hash => heardAt.has(hash))
      }
      await until(heardAll, `the receiving side to hear of ${paid.length} settlements`, settledWithinMs)
      const latenciesMs = paid.map(hash => heardAt.get(hash)! - startedAt.get(hash)!)
      const lastHeard = Math.max(...paid.map(hash => heardAt.get(hash)!))
      const spent = costs.end(paid.length)
      return figures({ ...loop, latenciesMs, elapsedMs: lastHeard - started }, spent, await prof.stop())
    } finally {
      watcher.close()
    }
  }

  const paths: Record<PathName, { what: string } & Record<Side, Measure>> = {
    invoices: {
      what: 'relaypay: AddAppUserInvoice over HTTP; bare: AddInvoice (the one LND call relaypay makes)',
      relaypay: size => relaypayWindow({ concurrency, durationMs: size.durationMs }, async worker => Boolean(ok(await connections[worker]!.send(payeeInvoice)))),
      bare: size => bareWindow({ concurrency, durationMs: size.durationMs }, bareInvoice),
    },
    pairs: {
      what:
        "relaypay: AddAppUserInvoice for payee, then PayAppUserInvoice of it from payer (paid in relaypay's books, no LND call); " +
        'bare: one AddInvoice per pair, the only LND call of a pair',
      relaypay: size =>
        relaypayWindow({ concurrency, durationMs: size.durationMs }, async worker => {
          const made = ok(await connections[worker]!.send(payeeInvoice))
          return Boolean(ok(await connections[worker]!.send(payFromPayer(JSON.parse(made.body).invoice))))
        }),
      bare: size => bareWindow({ concurrency, durationMs: size.durationMs }, bareInvoice),
    },
    outgoing: {
      what: "relaypay: PayAppUserInvoice of B's invoices (through R); bare: DecodePayReq, then SendPaymentV2 with relaypay's parameters to the stream's end",
      relaypay: async size => {
        const invoices = await prepared(size.payments, () => b.addInvoice(invoiceMsat, 'outgoing'))
        return relaypayWindow({ concurrency, count: invoices.length }, async (worker, index) =>
          Boolean(ok(await connections[worker]!.send(payFromPayer(invoices[index]!.paymentRequest)))),
        )
      },
      bare: async size => {
        const invoices = await prepared(size.payments, () => b.addInvoice(invoiceMsat, 'outgoing'))
        return bareWindow({ concurrency, count: invoices.length }, async (_, index) => {
          const status = await a.payLikeRelaypay(invoices[index]!.paymentRequest, routingFeeLimitMsat)
          if (status !== 'SUCCEEDED') throw new Error(`the payment ended ${status}`)
          return true
        })
      },
    },
    settlements: {
      what:
        "B pays invoices of A; relaypay: until the daemon has credited each (read from its books: asking it over HTTP would add its own CPU); " +
        'bare: until SubscribeInvoices has said each is settled',
      relaypay: async size => {
        const invoices = await prepared(size.payments, relaypayInvoice)
        const before = await balanceOf(daemon, appToken, 'receiver')
        const measured = await settlementWindow(invoices, (heard, failed) => creditWatcher(daemon.dataDir, invoices, heard, failed), true)
        // The credits the books show are the ones the receiver's balance shows.
        const gained = (await balanceOf(daemon, appToken, 'receiver')) - before
        if (gained !== measured.ops * amountSats) throw new Error(`the receiver gained ${gained} sats for ${measured.ops} settlements of ${amountSats}`)
        return measured
      },
      bare: async size => {
        const invoices = await prepared(size.payments, () => a.addInvoice(invoiceMsat, 'bench'))
        return settlementWindow(invoices, (heard, failed) => a.subscribeSettlements(hash => heard(hash, performance.now()), failed), false)
      },
    },
  }
  return paths
}

/** The hash a BOLT11 request names (read outside the measured windows). */
function paymentHashOf(request: string): string {
  const section = decodeBolt11(request).sections.find(s => s.name === 'payment_hash') as { value?: string } | undefined
  if (!section?.value) throw new Error(`no payment hash in ${request}`)
  return section.value
}

/**
 * Reads the daemon's books (read-only, beside it) for which of `invoices` are paid: an invoice's paid mark commits
 * with its credit, so this is when the receiver's balance shows it, learnt at no cost to the daemon. Every few ms
 * it asks SQLite whether another connection has committed since (PRAGMA data_version, no table read), and reads
 * the invoices only then: reading them every time cost this process ~13 ms of CPU per settlement, taken from the
 * cores LND and the daemon share with it.
 */
function creditWatcher(dataDir: string, invoices: CreatedInvoice[], heard: (paymentHash: string, at: number) => void, failed: (err: Error) => void) {
  const db = new Database(path.join(dataDir, 'relaypay.sqlite'), { readonly: true, fileMustExist: true })
  const version = db.prepare('PRAGMA data_version').pluck()
  const paidAmong = db
    .prepare('SELECT payment_hash FROM invoices WHERE paid_at IS NOT NULL AND payment_hash IN (SELECT value FROM json_each(?))')
    .pluck()
  const waiting = new Set(invoices.map(invoice => invoice.paymentHash))
  let seen: unknown
  const poll = setInterval(() => {
    if (waiting.size === 0) return
    const at = performance.now()
    try {
      const now = version.get()
      if (now === seen) return
      seen = now
      for (const hash of paidAmong.all(JSON.stringify([...waiting])) as string[]) {
        waiting.delete(hash)
        heard(hash, at)
      }
    } catch (err) {
      failed(err instanceof Error ? err : new Error(String(err)))
    }
  }, creditPollMs)
  return {
    close() {
      clearInterval(poll)
      db.close()
    },
  }
}
