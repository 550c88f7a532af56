// Which operations refuse an input field they do not know, over the whole catalogue: relaypay's
// own operations and the extensions' refuse it (test/bus/unknown-fields.test.ts shows the answer over HTTP), the
// operations of Lightning.Pub's wire set accept it (newer clients may send more), and so do the requests of other
// protocols the daemon speaks on their own Nostr kinds (NIP-47, CLINK), whose clients also send fields of later
// versions. Upstream's operations are the project's fixture of the specification (test/fixtures/spec/pub-spec.json).
// The default is the dispatcher's (src/bus/dispatcher.ts): 'ignore' in the pub dialect, 'refuse' in the detail one.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { catalogue } from '../../schema/catalogue.js'
import { repoRoot } from '../support/paths.js'

const test = suite('unknown input fields: policy per operation')

const spec = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/spec/pub-spec.json'), 'utf8')) as {
  seedOperations: { name: string }[]
  operationIndex: { rpcName: string; seedName?: string }[]
}
/** Operations of upstream's next version (its dashboard branch), served already: its clients may send more too. */
const nextVersion = ['GetUsersAdminInfo', 'GetUserOperationsFromAdmin', 'GetAssetsAndLiabilitiesV2']
const upstream = new Set([
  ...spec.seedOperations.map(op => op.name),
  ...spec.operationIndex.flatMap(op => [op.rpcName, op.seedName ?? op.rpcName]),
  ...nextVersion,
])

type Entry = (typeof catalogue)[number] & { unknownFields?: 'refuse' | 'ignore'; nostrCodec?: unknown }
const entries = catalogue as readonly Entry[]
const policy = (entry: Entry) => entry.unknownFields ?? (entry.dialect === 'pub' ? 'ignore' : 'refuse')
const isUpstream = (entry: Entry) =>
  upstream.has(entry.name) || ((entry as { aliases?: readonly { name?: string }[] }).aliases ?? []).some(alias => alias.name !== undefined && upstream.has(alias.name))

test("relaypay's own operations and the extensions' refuse unknown fields", () => {
  const lenient = entries.filter(entry => !isUpstream(entry) && !entry.nostrCodec && policy(entry) !== 'refuse').map(entry => entry.name)
  assert.equal(lenient, [], 'operations of our own that would drop a misspelt field silently')
  // Enough of both to mean something: the extensions (detail dialect) and our own of the pub dialect.
  assert.ok(entries.filter(entry => entry.dialect === 'detail' && policy(entry) === 'refuse').length > 50)
  assert.ok(['CreateNwcConnection', 'UpdateNwcConnection', 'SetLightningAddress'].every(name => policy(entries.find(e => e.name === name)!) === 'refuse'))
})

test("Lightning.Pub's operations, NIP-47 and CLINK requests accept them", () => {
  const strict = entries.filter(entry => (isUpstream(entry) || entry.nostrCodec) && policy(entry) !== 'ignore').map(entry => entry.name)
  assert.equal(strict, [], 'operations of a wire set other clients speak that would refuse a newer client')
  assert.ok(entries.filter(isUpstream).length > 90, 'the upstream list was read')
})

test.run()
