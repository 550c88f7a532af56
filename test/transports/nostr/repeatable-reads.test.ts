// Operations the catalogue marks `repeatable` are run over Nostr without the exactly-once claim and without a stored
// reply (transports/nostr/inbound.ts), which is sound only if they write nothing. Each one is called here for the
// first time on a wallet (so a lazy "create on first read" would show) and every table of the books (SQLite or
// PostgreSQL) is compared before and after: equal, the request journal included. A write is the control: it
// changes them.
import { test } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { catalogue } from '../../../schema/catalogue.js'
import { openBooks } from '../../support/books.js'
import { startDaemon, type TestDaemon } from '../../support/daemon.js'
import { appProfile, PubClient } from '../../support/pub-client.js'
import { NwcTestClient } from '../../support/nwc-client.js'

let daemon: TestDaemon
let client: PubClient

/** What each repeatable operation is called with; one missing here fails the test, so a new mark is checked too. */
const inputs = (invoice: string): Record<string, Record<string, unknown>> => ({
  UserHealth: {},
  GetUserInfo: {},
  GetUserOperations: {
    latestIncomingInvoice: { ts: 0, id: 0 }, latestOutgoingInvoice: { ts: 0, id: 0 }, latestIncomingTx: { ts: 0, id: 0 },
    latestOutgoingTx: { ts: 0, id: 0 }, latestIncomingUserToUserPayment: { ts: 0, id: 0 },
    latestOutgoingUserToUserPayment: { ts: 0, id: 0 }, max_size: 10,
  },
  DecodeInvoice: { invoice },
  GetPaymentState: { invoice },
  GetDebitAuthorizations: {},
  GetManageAuthorizations: {},
})

/** The NIP-47 methods marked repeatable, by operation: their method name and params. */
const nwcInputs = (invoice: string): Record<string, [string, Record<string, unknown>]> => ({
  NwcLookupInvoice: ['lookup_invoice', { invoice }],
  NwcListTransactions: ['list_transactions', { limit: 5 }],
  NwcGetBalance: ['get_balance', {}],
  NwcGetInfo: ['get_info', {}],
})

/** Every row of every table, as sorted JSON texts (some tables have no rowid). */
async function snapshot(): Promise<Record<string, string[]>> {
  const books = openBooks(daemon.dataDir, { readonly: true })
  try {
    const tables = await books.many<{ name: string }>(
      books.engine === 'postgres'
        ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    )
    const rows: Record<string, string[]> = {}
    for (const { name } of tables) rows[name] = (await books.many(`SELECT * FROM "${name}"`)).map(row => JSON.stringify(row)).sort()
    return rows
  } finally {
    await books.close()
  }
}

test.before(async () => {
  daemon = await startDaemon({})
  const { relays, pubkey } = appProfile(daemon.dataDir)
  client = await PubClient.connect({ relays, appPubkey: pubkey })
})
test.after(async () => {
  client?.close()
  await daemon?.stop()
})

test('each repeatable operation, called for the first time, leaves every table as it was', async () => {
  // The wallet is made by its first request, a write; its invoice gives the invoice reads something to read, and
  // its NWC connection (a write too) the NIP-47 reads.
  const { invoice } = await client.ok('NewInvoice', { amountSats: 21, memo: 'repeatable reads' })
  const { connection_uri: uri } = await client.ok('CreateNwcConnection', { name: 'reads' })
  const nwc = await NwcTestClient.connect(uri, appProfile(daemon.dataDir).relays[0])
  const marked = catalogue.filter(entry => (entry as { repeatable?: boolean }).repeatable === true).map(entry => entry.name)
  assert.ok(marked.includes('GetUserInfo') && marked.includes('NwcGetBalance'), marked.join())
  const given = inputs(invoice)
  const nip47 = nwcInputs(invoice)
  for (const name of marked) assert.ok(name in given || name in nip47, `${name} is marked repeatable: give it an input here`)
  const before = await snapshot()
  assert.ok('nostr_requests' in before && before.nostr_requests!.length >= 1, 'the journal is among the tables, with the write in it')
  try {
    for (const name of marked) {
      if (name in nip47) {
        const [method, params] = nip47[name]!
        const response = await nwc.send(nwc.buildRequest(method, params))
        assert.is(response.error, null, `${name}: ${JSON.stringify(response)}`)
        continue
      }
      const reply = await client.call(name, given[name])
      assert.ok(reply.status === 'OK' || name === 'GetPaymentState', `${name}: ${JSON.stringify(reply)}`)
    }
  } finally {
    nwc.close()
  }
  const after = await snapshot()
  for (const table of Object.keys(before)) assert.equal(after[table], before[table], `${table} changed`)
  // The control: a write changes the books.
  await client.ok('UpdateCallbackUrl', { url: 'https://callbacks.invalid/x' })
  assert.not.equal(await snapshot(), after)
})

test.run()
