// The relay the daemon serves on, killed (SIGKILL) and restarted on the same port while payments travel over it:
// `relaypay relay` runs as its own process, the daemon is configured with it (and a second, stable relay), and
// relay users pay each other with kind-21000 requests the whole time. The daemon reconnects and catches up; every
// request is answered OK exactly once; every event delivered again through the other relay is answered from the
// stored reply and runs nothing; balances are exact and `relaypay audit` is clean.
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient, sleep, type Reply } from '../support/pub-client.js'
import { assertAuditClean, ok } from '../support/money.js'
import { feeSats } from './chaos-world.js'
import { startRelayProcess, type RelayProcess } from '../support/relay-process.js'
import { chaosCycles, chaosSeed, seededRandom } from './seeded-random.js'

const seed = chaosSeed(11)
const kills = chaosCycles(4)
const payers = 4
const paymentsEach = 3 * kills
const fundingSats = 1_000_000

const test = suite(`the daemon's relay SIGKILLed and restarted under load (seed ${seed})`)
const relayDir = tempDataDir()
let flaky: RelayProcess | undefined
let stable: RelayProcess | undefined
let daemon: TestDaemon | undefined
const clients: PubClient[] = []

test.after(async () => {
  clients.forEach(c => c.close())
  await daemon?.stop()
  await flaky?.stop()
  await stable?.stop()
})

test(`${kills} relay kills while ${payers} relay users make ${paymentsEach} payments each: none lost, none run twice`, async () => {
  const random = seededRandom(seed)
  let relay = await startRelayProcess(path.join(relayDir, 'flaky'))
  flaky = relay
  stable = await startRelayProcess(path.join(relayDir, 'stable'))
  daemon = await startDaemon({ config: `[node]\nsimulate_payments = true\n[nostr]\nrelays = ["${relay.url}", "${stable.url}"]\n`, startTimeoutMs: 90_000 })
  const app = appProfile(daemon.dataDir)
  const connect = async (relays: string[]) => {
    const client = await PubClient.connect({ relays, appPubkey: app.pubkey, timeoutMs: 60_000 })
    clients.push(client)
    return client
  }
  // The load goes through the flaky relay only; the stable one is for delivering every request again at the end.
  const payee = await connect([relay.url])
  const senders = await Promise.all(Array.from({ length: payers }, () => connect([relay.url])))
  for (const sender of senders) {
    const funding = await sender.ok('NewInvoice', { amountSats: fundingSats, memo: 'funding' })
    await ok(daemon, '/api/node/mock/invoice/paid', '', { invoice: funding.invoice, amount: 0 })
  }

  const sent: { client: PubClient; event: any; requestId: string; sats: number; reply?: Reply }[] = []
  const load = Promise.all(
    senders.map(async sender => {
      for (let i = 0; i < paymentsEach; i++) {
        const sats = random.between(100, 1500)
        const { invoice } = await payee.ok('NewInvoice', { amountSats: sats, memo: 'over a flaky relay' })
        const { event, requestId } = sender.request('PayInvoice', { invoice, amount: 0 })
        const record: (typeof sent)[number] = { client: sender, event, requestId, sats }
        sent.push(record)
        const reply = sender.waitFor(requestId, 60_000)
        reply.catch(() => {})
        // publish retries while the relay is down, as a client does.
        await sender.publish(event, undefined, 60_000)
        record.reply = await reply.catch((err: Error) => {
          // What the daemon said of its relays and requests meanwhile: a reply lost or never sent shows there.
          const said = daemon!.logs().split('\n').filter(line => /"level":(40|50|60)/.test(line)).slice(-20).join('\n')
          throw new Error(`${err.message} (event ${event.id}); the daemon's last warnings:\n${said}`)
        })
      }
    }),
  )
  let loadDone = false
  void load.finally(() => (loadDone = true)).catch(() => {})
  for (let kill = 0; kill < kills && !loadDone; kill++) {
    await sleep(random.between(200, 1500))
    await relay.kill()
    await sleep(random.between(0, 1000))
    relay = await startRelayProcess(path.join(relayDir, 'flaky'), relay.port)
    flaky = relay
  }
  await load

  assert.is(sent.length, payers * paymentsEach)
  for (const request of sent) assert.is(request.reply?.status, 'OK', `request ${request.requestId}: ${JSON.stringify(request.reply)}`)
  const paidSats = (client: PubClient) => sent.filter(r => r.client === client).reduce((sum, r) => sum + r.sats + feeSats(r.sats), 0)
  const balances = async () => {
    assert.is((await payee.ok('GetUserInfo')).balance, sent.reduce((sum, r) => sum + r.sats, 0), "the payee's balance")
    for (const sender of senders) assert.is((await sender.ok('GetUserInfo')).balance, fundingSats - paidSats(sender), "a payer's balance")
  }
  await balances()

  // Every request once more, through the relay that never went down (by a client with the same key there): each
  // is answered from its stored reply, word for word, and runs nothing.
  for (const sender of senders) {
    const twin = await PubClient.connect({ relays: [stable!.url], appPubkey: app.pubkey, secretKey: sender.secretKey, timeoutMs: 60_000 })
    clients.push(twin)
    await Promise.all(
      sent
        .filter(request => request.client === sender)
        .map(async request => {
          const again = twin.waitFor(request.requestId, 60_000)
          await twin.publish(request.event, undefined, 30_000)
          assert.equal(await again, request.reply, `request ${request.requestId} answered again`)
        }),
    )
  }
  await balances()
  await assertAuditClean(daemon.dataDir)
  process.stdout.write(`    ${sent.length} payments over a relay killed ${kills} times\n`)
})

test.run()
