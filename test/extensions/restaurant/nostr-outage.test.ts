// Menu items are announcements, not replies: a product published while the daemon's relay is away is tried again
// until the relay is back, however old it is by then (a reply that old would be dropped), and it travels on the
// daemon's one connection to that relay, the relay transport's. The relay is `relaypay relay` in its own process
// behind a gate the test shuts and opens; the test reads the relay directly.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { WebSocket } from 'ws'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { verifyEvent, type Event } from 'nostr-tools/pure'
import type { Filter } from 'nostr-tools/filter'
import { tempDataDir } from '../../support/daemon.js'
import { startRelayProcess, type RelayProcess } from '../../support/relay-process.js'
import { startRelayGate, type RelayGate } from '../../support/relay-gate.js'
import { until } from '../../support/until.js'
import { startRestaurantDaemon, type RestaurantDaemon } from './restaurant-daemon.js'

useWebSocketImplementation(WebSocket)

/** The request age of the daemon (`[nostr] max_event_age_seconds`, its lowest allowed value). */
const maxEventAge = 10

const test = suite('restaurant events while the relay is away')
let relay: RelayProcess
let gate: RelayGate
let rd: RestaurantDaemon
let reader: Relay

test.before(async () => {
  const relayDir = tempDataDir()
  // Strangers' events are taken: this relay is not the daemon's own, so it cannot know the restaurants' keys.
  fs.writeFileSync(path.join(relayDir, 'relaypay.toml'), '[nostr]\nrelay_open_writes = true\n')
  relay = await startRelayProcess(relayDir)
  gate = await startRelayGate(relay.url)
  rd = await startRestaurantDaemon({ config: `[nostr]\nrelays = ["${gate.url}"]\nmax_event_age_seconds = ${maxEventAge}\n` })
  reader = await Relay.connect(relay.url)
})
test.after(async () => {
  reader?.close()
  await rd?.stop()
  await gate?.close()
  await relay?.stop()
})

/** The first event on the relay matching `filter`, stored or to come. */
function arrival(filter: Filter): Promise<Event> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.close()
      reject(new Error(`no event for ${JSON.stringify(filter)} within 90 s`))
    }, 90_000)
    const sub = reader.subscribe([filter], {
      onevent(event) {
        clearTimeout(timer)
        sub.close()
        resolve(event)
      },
    })
  })
}

const lines = (pattern: RegExp) => rd.daemon.logs().split('\n').filter(line => pattern.test(line))

test('a product published while the relay is away arrives once it is back, older than the request age', async () => {
  const owner = await rd.wallet()
  const made = await rd.api('POST', '/restaurants', {
    key: owner.adminKey,
    body: { name: 'Outage Diner', slug: `outage-${process.pid}`, currency: 'sat', timezone: 'Europe/Berlin' },
  })
  assert.is(made.status, 201, made.text)
  await arrival({ kinds: [30017], '#d': [made.json.id] })
  assert.is(gate.open(), 1, "the daemon holds one connection to its relay: extension events share the relay transport's")

  const lost = lines(/relay connection lost/).length
  await gate.shut()
  await until(() => lines(/relay connection lost/).length > lost, 'the daemon to notice its relay is gone')
  const item = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: made.json.id, name: 'Soup', price: '700' } })
  assert.is(item.status, 201, item.text)
  const id: string = item.json.published_event_id
  assert.ok(id, 'the item names the event it published')
  // Tried 1, 2 and 4 s apart so far: at the next try, 8 s on, the product is older than the request age.
  await until(() => lines(new RegExp(`"eventId":"${id}".*"retryInMs":8000`)).length > 0, 'the fourth retry to be planned', 60_000)
  await gate.reopen()

  const product = await arrival({ ids: [id] })
  assert.ok(verifyEvent(product))
  assert.is(product.kind, 30018)
  assert.ok(Math.floor(Date.now() / 1000) - product.created_at > maxEventAge, 'the product arrived older than the request age')
  assert.is(lines(new RegExp(`gave up publishing.*${id}`)).length, 0)
  // It came through the relay transport's link (connected again, or it could not have): no other connection is open.
  assert.is(gate.open(), 1, "still one connection: the retries used the relay transport's")
})

test.run()
