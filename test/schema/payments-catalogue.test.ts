// The payments-service part of the catalogue checked against the documents it was written from: the payments
// service's Endpoints tables, and upstream's operation index and message tables, as extracted into the project's own
// fixture test/fixtures/spec/pub-spec.json (its "source" line says from where and when). A typo in a path, a lost
// `optional`, a field dropped from a message or a wrong nostr flag fails here, naming the place.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { catalogue } from '../../schema/catalogue.js'
import * as messages from '../../schema/messages/index.js'
import { repoRoot } from '../support/paths.js'

interface DocField {
  name: string
  proto: string
  presence: string
}
interface DocMessage {
  name: string
  seedName?: string
  fields: DocField[]
}
interface SeedOperation {
  name: string
  auth: string
  nostr: boolean
  method: string
  path: string
  query: string[]
  request: string
  response: string
  stream: boolean
  batch: boolean
}
interface IndexRow {
  rpcName: string
  seedName?: string
  method?: string
  path?: string
  query: string[]
  request: string
  response: string
  stream: boolean
  nostr: boolean
}
interface PubSpec {
  source: string
  seedOperations: SeedOperation[]
  operationIndex: IndexRow[]
  batchUser: { requestField?: string; responseField?: string }
  messagesAnnounced: number
  enums: { name: string; values: string[] }[]
  messages: DocMessage[]
}
const spec: PubSpec = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/spec/pub-spec.json'), 'utf8'))

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',')
const show = (names: readonly string[]) => `[${[...names].sort().join(', ')}]`

// ---- the catalogue side -------------------------------------------------------------------------------------

const payments = catalogue.filter(entry =>
  ['admin', 'metrics', 'guest', 'guest-pub', 'app', 'user'].includes(entry.area),
)
function findEntry(name: string) {
  return catalogue.find(entry => entry.name === name || (entry.aliases ?? []).some(alias => alias.name === name))
}
function titleOf(schema: z.ZodType): string | undefined {
  return schema.meta()?.title as string | undefined
}
function shapeOf(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  return schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : undefined
}
const fieldNames = (schema: z.ZodType) => Object.keys(shapeOf(schema) ?? {})

/** Every exported zod message, by its export name (a test checks that it equals the message's own name). */
const zodMessages = new Map<string, z.ZodObject>(
  Object.entries(messages).filter((pair): pair is [string, z.ZodObject] => pair[1] instanceof z.ZodObject),
)

// ---- the documents side -------------------------------------------------------------------------------------

const docMessages = spec.messages
const docMessageByName = new Map(docMessages.map(message => [message.name, message]))
/** Upstream type name → the name our schema uses (the specification's Node* names for upstream's Lnd*). */
const schemaName = (upstream: string) => docMessageByName.get(upstream)?.seedName ?? upstream

/** The JSON properties of a message: plain fields, plus one property per oneof group. */
function wireProperties(message: DocMessage): string[] {
  const names = new Set<string>()
  for (const field of message.fields) names.add(field.presence.startsWith('oneof:') ? field.presence.slice(6) : field.name)
  return [...names]
}

const enumValues = new Map(spec.enums.map(entry => [entry.name, entry.values]))

// ---- type checks on zod schemas -----------------------------------------------------------------------------

/** Why `schema` is not the JSON form of proto type `proto`, or undefined when it is. */
function typeMismatch(schema: z.ZodType, proto: string): string | undefined {
  const def = schema.def as { type: string; format?: string }
  const scalar: Record<string, () => boolean> = {
    string: () => def.type === 'string',
    bool: () => def.type === 'boolean',
    int64: () => def.type === 'number' && def.format === 'safeint',
    int32: () => def.type === 'number' && def.format === 'safeint',
    double: () => def.type === 'number' && def.format === undefined,
    float: () => def.type === 'number' && def.format === undefined,
  }
  if (scalar[proto]) return scalar[proto]() ? undefined : `expected ${proto}, found zod ${def.type}${def.format ? `/${def.format}` : ''}`
  const values = enumValues.get(proto)
  if (values) {
    if (!(schema instanceof z.ZodEnum)) return `expected enum ${proto}, found zod ${def.type}`
    if (titleOf(schema) !== proto) return `expected enum ${proto}, found enum ${titleOf(schema)}`
    return sameSet(schema.options as string[], values) ? undefined : `enum ${proto} values ${show(schema.options as string[])} ≠ ${show(values)}`
  }
  const expected = schemaName(proto)
  if (!(schema instanceof z.ZodObject)) return `expected message ${expected}, found zod ${def.type}`
  return titleOf(schema) === expected ? undefined : `expected message ${expected}, found ${titleOf(schema)}`
}

/** The inner schema of an `optional(...)` field (a preprocess pipe into ZodOptional), or undefined. */
function unwrapOptional(schema: z.ZodType): z.ZodType | undefined {
  const def = schema.def as { type: string; out?: z.ZodType }
  if (def.type !== 'pipe' || !(def.out instanceof z.ZodOptional)) return undefined
  return def.out.def.innerType as z.ZodType
}

/** Problems of one documented field (or oneof group) against the zod property that should carry it. */
function fieldProblems(where: string, property: z.ZodType, presence: string, fields: DocField[]): string[] {
  const field = fields[0]
  const kind = (property.def as { type: string }).type
  const check = (schema: z.ZodType, proto: string, label = where) => {
    const why = typeMismatch(schema, proto)
    return why ? [`${label}: ${why}`] : []
  }
  switch (presence) {
    case 'R':
      if (unwrapOptional(property)) return [`${where}: required (R) but declared optional`]
      return check(property, field.proto)
    case 'opt': {
      const inner = unwrapOptional(property)
      return inner ? check(inner, field.proto) : [`${where}: optional (opt) but declared ${kind}, not optional(...)`]
    }
    case 'rep':
      return property instanceof z.ZodArray ? check(property.element as z.ZodType, field.proto) : [`${where}: repeated (rep) but declared ${kind}, not list(...)`]
    case 'map': {
      const value = /^map<string,(\w+)>$/.exec(field.proto)?.[1]
      if (!value) return [`${where}: unreadable map type ${field.proto}`]
      return property instanceof z.ZodRecord ? check(property.valueType as z.ZodType, value) : [`${where}: map but declared ${kind}, not map(...)`]
    }
    default: {
      // oneof group: a discriminated union of {type: member, member: value}.
      const def = property.def as { type: string; discriminator?: string; options?: z.ZodType[] }
      if (def.type !== 'union' || def.discriminator !== 'type' || titleOf(property) !== 'oneof') {
        return [`${where}: ${presence} but declared ${kind}, not oneof({...})`]
      }
      const members = new Map<string, z.ZodType>()
      for (const option of def.options ?? []) {
        const shape = shapeOf(option) ?? {}
        const member = Object.keys(shape).find(key => key !== 'type')
        if (member) members.set(member, shape[member])
      }
      const expected = fields.map(f => f.name)
      if (!sameSet([...members.keys()], expected)) return [`${where}: oneof members ${show([...members.keys()])} ≠ ${show(expected)}`]
      return fields.flatMap(f => check(members.get(f.name)!, f.proto, `${where}.${f.name}`))
    }
  }
}

// ---- the payments endpoints ---------------------------------------------------------------------------------

const seedOperations = spec.seedOperations

/** Where our input/output message deliberately differs from the specification's type name, and why. */
const seedTypeDeviations: Record<string, { input?: string; output?: string }> = {
  // Upstream clients send these smaller request shapes, so OfferConfig's other fields cannot be required.
  AddUserOffer: { input: 'OfferCreateRequest' },
  UpdateUserOffer: { input: 'OfferUpdateRequest' },
  // The batch's real body and answer: `{requests: [...]}` in, `{responses: [...]}` out, not Empty → Empty.
  BatchUser: { input: 'BatchUserRequest', output: 'BatchUserResponse' },
}
/** Wallet-host user operations (the extensions' wallets and keys) that live beside the specification's. */
const walletHostUserOperations = ['GetWalletKeys', 'RotateWalletKeys', 'CreateWallet', 'EnableExtension', 'DisableExtension']

/**
 * Our additions to upstream's shapes, each with what it is for. Added fields are optional, so upstream clients
 * see nothing change.
 */
const additions = {
  // human-readable Lightning addresses and the LNURL-channel flow (LUD-02); upstream's next version's admin views;
  // paying out to LNURLs and Lightning addresses (the wallet page's Send); an app's wallet page links for its users
  operations: [
    'SetLightningAddress', 'GetLnurlChannelInfo', 'HandleLnurlChannel', 'GetUsersAdminInfo', 'GetUserOperationsFromAdmin', 'GetAssetsAndLiabilitiesV2',
    'ResolveLnurlPay', 'GetLnurlPayInvoice', 'AppCreateWalletLink', 'AppRevokeWalletLink',
  ],
  // LUD-12 comments
  query: { HandleLnurlPay: ['comment'] } as Record<string, string[]>,
  // upstream's next version: whose operations are read
  inputs: { GetUserOperations: ['user_id'] } as Record<string, string[]>,
  // NodeGetInfo says when test mode (`[node] mock`) is on; upstream's next version names whose operations are read,
  // and the wallet a tracked operation of the node belongs to
  fields: {
    LnurlPayInfoResponse: ['commentAllowed'], NodeGetInfoResponse: ['mock'],
    GetUserOperationsRequest: ['user_id'], GetUserOperationsResponse: ['user_id'], TrackedOperation: ['user_id'],
  } as Record<string, string[]>,
}
const withoutAdded = (names: readonly string[], added: readonly string[] | undefined) =>
  names.filter(name => !(added ?? []).includes(name))

const seed = suite('the payments endpoints')

seed('the specification tables were read', () => {
  assert.match(spec.source, /^Extracted on 2026-11-25 from the specification \(seeds\/000_c90667e3864e4952\.txt/)
  assert.is(seedOperations.length, 98, 'the specification tables list the same 98 operations as the upstream index')
  assert.ok(seedOperations.every(op => op.auth && op.method && op.path), 'a specification row lost its auth, method or path')
})

seed('every specified operation is in the catalogue with its method, path, auth, query, stream, nostr and batch flags', () => {
  const problems: string[] = []
  for (const op of seedOperations) {
    const entry = catalogue.find(e => e.name === op.name)
    if (!entry) {
      problems.push(`${op.name}: missing from the catalogue`)
      continue
    }
    const http = entry.http
    if (http?.method !== op.method) problems.push(`${op.name}: method ${http?.method} ≠ spec ${op.method}`)
    if (http?.path !== op.path) problems.push(`${op.name}: path ${http?.path} ≠ spec ${op.path}`)
    if (entry.auth !== op.auth) problems.push(`${op.name}: auth ${entry.auth} ≠ spec ${op.auth}`)
    if (!sameSet(withoutAdded(http?.query ?? [], additions.query[op.name]), op.query)) problems.push(`${op.name}: query ${show(http?.query ?? [])} ≠ spec ${show(op.query)}`)
    if (!!entry.stream !== op.stream) problems.push(`${op.name}: stream ${!!entry.stream} ≠ spec ${op.stream}`)
    if (!!entry.nostr !== op.nostr) problems.push(`${op.name}: nostr ${!!entry.nostr} ≠ spec ${op.nostr}`)
    if (!!entry.batch !== op.batch) problems.push(`${op.name}: batch ${!!entry.batch} ≠ spec ${op.batch}`)
    if (entry.dialect !== 'pub') problems.push(`${op.name}: dialect ${entry.dialect}, payments operations answer in 'pub'`)
    if (op.method === 'GET' && http?.body !== 'none') problems.push(`${op.name}: a GET operation must ignore the body`)
    if (!entry.summary.trim()) problems.push(`${op.name}: empty summary`)
    const takesParams = op.query.length > 0 || op.path.includes(':')
    const input = seedTypeDeviations[op.name]?.input ?? (takesParams ? undefined : op.request)
    const output = seedTypeDeviations[op.name]?.output ?? op.response
    if (input && titleOf(entry.input) !== input) problems.push(`${op.name}: input ${titleOf(entry.input)} ≠ spec ${input}`)
    if (titleOf(entry.output) !== output) problems.push(`${op.name}: output ${titleOf(entry.output)} ≠ spec ${output}`)
  }
  assert.ok(problems.length === 0, `\n${problems.join('\n')}`)
})

seed('the payments areas hold nothing beyond the specification and the wallet-host user operations', () => {
  const known = new Set([...seedOperations.map(op => op.name), ...walletHostUserOperations, ...additions.operations])
  const extra = payments.filter(entry => !known.has(entry.name)).map(entry => `${entry.name} (${entry.area})`)
  assert.equal(extra, [], `unexpected operations: ${extra.join(', ')}`)
  const names = catalogue.map(entry => entry.name)
  const twice = names.filter((name, i) => names.indexOf(name) !== i)
  assert.equal(twice, [], `operation names declared twice: ${twice.join(', ')}`)
})

seed.run()

// ---- upstream's operation index (from the fixture) ----------------------------------------------------------

const indexRows = spec.operationIndex
// The Notes under the index give BatchUser's real body and answer (its table row says Empty → Empty).
const batchRequestField = spec.batchUser.requestField
const batchResponseField = spec.batchUser.responseField

const index = suite("upstream's operation index")

index('the index was read', () => {
  assert.is(indexRows.length, 98, 'the index announces 98 rpcs')
  assert.is(batchRequestField, 'requests')
  assert.is(batchResponseField, 'responses')
})

index('every upstream rpc maps to an entry with the same flags, route and field sets', () => {
  const problems: string[] = []
  for (const row of indexRows) {
    const entry = findEntry(row.rpcName)
    if (!entry) {
      problems.push(`${row.rpcName}: no catalogue entry or alias answers to it`)
      continue
    }
    const name = `${row.rpcName}${entry.name === row.rpcName ? '' : ` (${entry.name})`}`
    if (row.seedName && entry.name !== row.seedName) problems.push(`${name}: the specification names it ${row.seedName}`)
    if (!!entry.nostr !== row.nostr) problems.push(`${name}: nostr ${!!entry.nostr} ≠ upstream ${row.nostr}`)
    if (!!entry.stream !== row.stream) problems.push(`${name}: stream ${!!entry.stream} ≠ upstream ${row.stream}`)
    if (entry.http?.method !== row.method) problems.push(`${name}: method ${entry.http?.method} ≠ upstream ${row.method}`)
    const paths = [entry.http?.path, ...(entry.aliases ?? []).map(alias => alias.path)]
    if (!paths.includes(row.path)) problems.push(`${name}: upstream path ${row.path} is neither its path nor an alias`)

    const pathParams = [...(row.path ?? '').matchAll(/:(\w+)/g)].map(m => m[1])
    const request = docMessageByName.get(row.request)
    const response = docMessageByName.get(row.response)
    if (!request || !response) {
      problems.push(`${name}: request ${row.request} or response ${row.response} has no message table`)
      continue
    }
    const wantIn = entry.batch ? [batchRequestField!] : [...wireProperties(request), ...row.query, ...pathParams]
    const wantOut = entry.batch ? [batchResponseField!] : wireProperties(response)
    const hasIn = withoutAdded(fieldNames(entry.input), [...(additions.query[entry.name] ?? []), ...(additions.inputs[entry.name] ?? [])])
    const hasOut = withoutAdded(fieldNames(entry.output), additions.fields[titleOf(entry.output) ?? ''])
    if (!sameSet(hasIn, wantIn)) problems.push(`${name}: input fields ${show(hasIn)} ≠ upstream ${show(wantIn)}`)
    if (!sameSet(hasOut, wantOut)) problems.push(`${name}: output fields ${show(hasOut)} ≠ upstream ${show(wantOut)}`)
  }
  assert.ok(problems.length === 0, `\n${problems.join('\n')}`)
})

index.run()

// ---- upstream's message tables (from the fixture) -----------------------------------------------------------

const tables = suite("upstream's message tables")

tables('every message table was read', () => {
  assert.is(docMessages.length, spec.messagesAnnounced, `the Messages section announces ${spec.messagesAnnounced} tables`)
})

tables('every exported message carries its export name', () => {
  const renamed = [...zodMessages].filter(([exportName, schema]) => titleOf(schema) !== exportName)
  assert.equal(renamed.map(([exportName, schema]) => `${exportName} is named ${titleOf(schema)}`), [])
})

tables('every message has exactly the documented fields with the documented presence and types', () => {
  const problems: string[] = []
  for (const message of docMessages) {
    const name = schemaName(message.name)
    const schema = zodMessages.get(name)
    if (!schema) {
      problems.push(`${name}: no zod message of that name`)
      continue
    }
    const shape = shapeOf(schema)!
    const want = wireProperties(message)
    const have = Object.keys(shape)
    for (const missing of want.filter(p => !have.includes(p))) problems.push(`${name}.${missing}: missing`)
    for (const extra of have.filter(p => !want.includes(p))) {
      if (!additions.fields[name]?.includes(extra)) problems.push(`${name}.${extra}: not in the table`)
      else if (!(shape[extra] as { safeParse(v: unknown): { success: boolean } }).safeParse(undefined).success) {
        problems.push(`${name}.${extra}: an added field must be optional`)
      }
    }
    for (const property of want.filter(p => have.includes(p))) {
      const fields = message.fields.filter(f => f.name === property || f.presence === `oneof:${property}`)
      const presence = fields[0].presence
      problems.push(...fieldProblems(`${name}.${property}`, shape[property], presence, fields))
    }
  }
  assert.ok(problems.length === 0, `\n${problems.join('\n')}`)
})

tables('enums carry exactly the documented value names', () => {
  const problems: string[] = []
  for (const [name, values] of enumValues) {
    const schema = (messages as Record<string, unknown>)[name]
    if (!(schema instanceof z.ZodEnum)) problems.push(`${name}: no enum exported`)
    else if (!sameSet(schema.options as string[], values)) problems.push(`${name}: ${show(schema.options as string[])} ≠ ${show(values)}`)
  }
  assert.ok(problems.length === 0, `\n${problems.join('\n')}`)
})

tables.run()
