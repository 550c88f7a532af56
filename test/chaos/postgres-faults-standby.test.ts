// Database faults on PostgreSQL, part 3: a standby pair (two daemons on one database, one fake LND, one relay) while
// the server is restarted under a payment load, cleanly (-m fast) and as a crash (-m immediate). The active daemon
// loses its lock session with the server and exits 3; the test restarts it as its supervisor would. The standby
// keeps asking for the lock. Afterwards exactly one daemon is active (readyz 200, the other a waiting standby), every
// acknowledged payment is in the books once, none of unknown outcome twice, LND asked once per outside payment, and
// the audit is clean on PostgreSQL.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { createHash, randomBytes } from 'node:crypto'
import { decode } from 'light-bolt11-decoder'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { cliPath, startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { createDatabase, dropDatabase, type PostgresServer } from '../support/postgres.js'
import { appProfile, PubClient, type Reply } from '../support/pub-client.js'
import { until } from '../support/until.js'
import { startRelayProcess, type RelayProcess } from '../support/relay-process.js'
import { feeSats } from './chaos-world.js'
import { ownPostgres } from './postgres-faults-suite.js'

const fundingSats = 100_000
const senders = 3
const paymentsEach = 8
const standbyDetail = 'standby: another daemon holds the books'

const server: PostgresServer | undefined = await ownPostgres()
const s = suite('database faults on PostgreSQL: a standby pair while the server restarts under load')
const running: TestDaemon[] = []
const clients: PubClient[] = []
let relay: RelayProcess | undefined
let fake: FakeLnd | undefined

s.after(async () => {
  for (const client of clients) client.close()
  for (const daemon of running) if (daemon.process.exitCode === null && daemon.process.signalCode === null) await daemon.stop().catch(() => {})
  await relay?.stop()
  await fake?.close()
  server?.stop()
})

const hashOf = (invoice: string) => (decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value
/** The daemon's honest answers when it cannot know whether a payment ran: the standby's, and a database fault's. */
const unknownOutcome = (reply: Reply | undefined) => reply?.status === 'ERROR' && /outcome is unknown/.test(reply.reason)
const alive = (d: TestDaemon) => d.process.exitCode === null && d.process.signalCode === null

async function scenario(mode: 'fast' | 'immediate'): Promise<void> {
  const url = await createDatabase(server!.adminUrl)
  const c = fake!.connection
  const config =
    '[auth]\njwt_secret = "standby-faults-secret-0123456789abcdefgh"\n' +
    `[nostr]\nrelays = ["${relay!.url}"]\n` +
    `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n`
  const env = { RELAYPAY_STORE_URL: url, RELAYPAY_STORE_STANDBY: 'true' }
  // Each daemon under a supervisor that starts it again whenever it exits (systemd's Restart=always), as the docs
  // ask: a daemon that lost the lock exits 3 and comes back as a standby.
  const supervised = [tempDataDir(), tempDataDir()].map(root => {
    const unit = { dataDir: `${root}/data`, daemon: undefined as TestDaemon | undefined, exits: [] as (number | null)[], stopped: false }
    const run = async (): Promise<void> => {
      while (!unit.stopped) {
        const daemon = await startDaemon({ config, env, mock: false, dataDir: unit.dataDir, untilProbes: true }).catch(() => undefined)
        if (!daemon) continue // the server away: its start failed, and the supervisor tries again
        running.push(daemon)
        unit.daemon = daemon
        // Started while the scenario was stopping its units: nobody else will stop this one.
        if (unit.stopped) {
          await daemon.stop()
          break
        }
        const code = await daemon.exited
        if (!unit.stopped) unit.exits.push(code)
      }
    }
    return { unit, running: run() }
  })
  const units = supervised.map(x => x.unit)
  const ready = async (d: TestDaemon | undefined) => d !== undefined && alive(d) && (await d.request('GET', '/readyz').then(r => r.status === 200, () => false))
  const waits = async (d: TestDaemon | undefined) =>
    d !== undefined && alive(d) && (await d.request('GET', '/readyz').then(r => r.json?.checks?.start?.detail === standbyDetail, () => false))
  /** The one serving, once exactly one serves and the other waits as its standby. */
  const settled = async (what: string) => {
    let active: (typeof units)[number] | undefined
    await until(async () => {
      const [a, b] = await Promise.all(units.map(u => ready(u.daemon)))
      const [wa, wb] = await Promise.all(units.map(u => waits(u.daemon)))
      active = a && wb ? units[0] : b && wa ? units[1] : undefined
      return active !== undefined
    }, what, 60_000)
    return active!
  }
  const first = await settled('one daemon active and the other its standby')
  const sendsBefore = fake!.node.traffic.calls.get('SendPaymentV2') ?? 0

  const app = appProfile(first.dataDir)
  const connect = async () => {
    const client = await PubClient.connect({ relays: [relay!.url], appPubkey: app.pubkey, timeoutMs: 60_000 })
    clients.push(client)
    return client
  }
  const payee = await connect()
  const payers = await Promise.all(Array.from({ length: senders }, connect))
  for (const payer of payers) {
    fake!.settleInvoice(hashOf(await newInvoice(payer, fundingSats)))
    await until(async () => (await payer.ok('GetUserInfo')).balance === fundingSats, 'the funding to be credited')
  }

  // Internal payments to the payee and payments to another node, one payer after another, each its own sequence.
  type Sent = { payer: PubClient; requestId: string; sats: number; outside: boolean; reply?: Reply }
  const sent: Sent[] = []
  const load = Promise.all(
    payers.map(async payer => {
      for (let i = 0; i < paymentsEach; i++) {
        const sats = 100 + i * 7
        let invoice: string
        const outside = i % 4 === 1
        if (outside) {
          const preimage = randomBytes(32)
          const paymentHash = createHash('sha256').update(preimage).digest('hex')
          const made = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: sats * 1000, paymentHash })
          fake!.node.remoteNodes.set(made.payeePubkey, payment => fake!.node.payments.succeed(payment.paymentHash, preimage.toString('hex')))
          invoice = made.paymentRequest
        } else {
          invoice = await newInvoice(payee, sats)
        }
        const { event, requestId } = payer.request('PayInvoice', { invoice, amount: 0 })
        const record: Sent = { payer, requestId, sats, outside }
        sent.push(record)
        const reply = payer.waitFor(requestId, 90_000)
        reply.catch(() => {})
        await payer.publish(event, undefined, 60_000)
        record.reply = await reply
      }
    }),
  )
  load.catch(() => {}) // a failed case stops the clients under it; its own failure is the one to report

  // The server restarts once the load is under way; the active daemon must exit 3 and is started again.
  await until(() => sent.filter(r => r.reply).length >= senders * 2, 'some payments to be acknowledged', 60_000)
  const exitsBefore = units.map(u => u.exits.length)
  const holder = first.daemon!
  const restartedAt = Date.now()
  const [exitCode] = await Promise.all([holder.exited, server!.restart(mode)])
  const exitMs = Date.now() - restartedAt
  assert.is(exitCode, 3, `the active daemon's exit status after the server restart:\n${holder.logs().slice(-3000)}`)
  const active = await settled('exactly one daemon active again after the restart')
  const tookMs = Date.now() - restartedAt
  await load
  // Still exactly one, once the load is done.
  assert.is(await settled('still exactly one active'), active)

  // An answer that is neither: the daemons' log line for it says what escaped.
  const loggedFor = (reply: Reply | undefined) => {
    const id = /\(id ([0-9a-f]+)\)/.exec(reply?.status === 'ERROR' ? reply.reason : '')?.[1]
    return id ? running.flatMap(d => d.logs().split('\n').filter(line => line.includes(id))).join('\n') : ''
  }
  for (const r of sent) assert.ok(r.reply?.status === 'OK' || unknownOutcome(r.reply), `request ${r.requestId}: ${JSON.stringify(r.reply)}\n${loggedFor(r.reply)}`)
  // In the active daemon's books: each acknowledged payment once, each of unknown outcome at most once (by amount,
  // which differs within a payer).
  const zero = { ts: 0, id: 0 }
  const fromStart = {
    latestIncomingInvoice: zero, latestOutgoingInvoice: zero, latestIncomingTx: zero, latestOutgoingTx: zero,
    latestIncomingUserToUserPayment: zero, latestOutgoingUserToUserPayment: zero, max_size: 0,
  }
  const applied = new Set<Sent>()
  const sorted = (list: number[]) => [...list].sort((a, b) => a - b)
  for (const payer of payers) {
    const ops = (await payer.ok('GetUserOperations', fromStart)).latestOutgoingInvoiceOperations.operations as { amount: number }[]
    const mine = sent.filter(r => r.payer === payer)
    const inHistory = mine.filter(r => ops.some(op => op.amount === r.sats))
    for (const r of inHistory) applied.add(r)
    assert.equal(sorted(ops.map(op => op.amount)), sorted(inHistory.map(r => r.sats)), 'outgoing payments in the history, each once')
    for (const r of mine) if (r.reply?.status === 'OK') assert.ok(applied.has(r), `acknowledged payment ${r.requestId} in the history`)
  }
  // Outside payments of unknown outcome settle in the background (the tracker, or the start's reconcile).
  const owed = (payer: PubClient) => [...applied].filter(r => r.payer === payer).reduce((sum, r) => sum + r.sats + feeSats(r.sats), 0)
  for (const payer of payers) {
    await until(async () => (await payer.ok('GetUserInfo')).balance === fundingSats - owed(payer), "a payer's balance", 30_000).catch(async () => {
      assert.is((await payer.ok('GetUserInfo')).balance, fundingSats - owed(payer), "a payer's balance")
    })
  }
  const internalSats = [...applied].filter(r => !r.outside).reduce((sum, r) => sum + r.sats, 0)
  assert.is((await payee.ok('GetUserInfo')).balance, internalSats, "the payee's balance: each internal payment once")
  const outsideApplied = [...applied].filter(r => r.outside).length
  assert.is((fake!.node.traffic.calls.get('SendPaymentV2') ?? 0) - sendsBefore, outsideApplied, 'payments sent to LND: each once')

  const { stdout } = await promisify(execFile)(process.execPath, [cliPath, 'audit', '--store-url', url, '--json'])
  assert.ok(JSON.parse(stdout).ok, `audit on PostgreSQL: ${stdout}`)
  const unknown = sent.filter(r => unknownOutcome(r.reply))
  console.log(
    `  -m ${mode}: ${sent.length} payments, ${sent.filter(r => r.reply?.status === 'OK').length} acknowledged, ${unknown.length} of unknown outcome ` +
      `(${unknown.filter(r => applied.has(r)).length} applied); active daemon exited 3 after ${exitMs} ms, ` +
      `${active === first ? 'the restarted one' : 'the standby'} active ${tookMs} ms after the restart began; ` +
      `exits before the restart: ${exitsBefore.join(' and ')} (a daemon that found its lock lost at its start)`,
  )
  for (const unit of units) unit.stopped = true
  for (const unit of units) await unit.daemon?.stop()
  await Promise.all(supervised.map(x => x.running))
  await dropDatabase(server!.adminUrl, url).catch(() => {})
}

/** An invoice, asked for again after an answer that its outcome is unknown (a daemon stopping under it). */
async function newInvoice(payee: PubClient, sats: number): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return ((await payee.ok('NewInvoice', { amountSats: sats, memo: 'under load' })) as unknown as { invoice: string }).invoice
    } catch (err) {
      if (attempt >= 5 || !/outcome is unknown/.test(String(err))) throw err
    }
  }
}

s.before(async () => {
  if (!server) return
  fake = await startFakeLnd({ network: 'regtest' })
  relay = await startRelayProcess(tempDataDir())
})

for (const mode of (process.env.FAULT_MODES ?? 'immediate,fast').split(',') as ('fast' | 'immediate')[]) {
  s(`pg_ctl restart -m ${mode}: exactly one daemon active after, acknowledged payments all there, none twice`, async () => {
    if (!server) return
    await scenario(mode).catch(err => {
      console.log(`  -m ${mode} failed: ${(err as Error).stack}`)
      throw err
    })
  })
}

s.run()
