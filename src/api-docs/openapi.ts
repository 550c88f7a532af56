// The daemon's HTTP API as an OpenAPI 3.1 document, generated from the operation catalogue (the one description the
// transports, the validator and docs/operations.md are made from): every operation with an HTTP route, its path and
// query parameters, its JSON body and answer as JSON Schema (zod's own conversion, draft 2020-12, which OpenAPI 3.1
// uses), who may call it, and how it answers errors in its dialect. Operations served only over Nostr are left out.
import { z } from '../vendor/zod.js'
import { catalogue, type CatalogueEntry } from '../../schema/catalogue.js'
import { callerNames, pathParameterPattern, type AuthKind, type HttpBinding } from '../../schema/operation.js'

type Schema = Record<string, unknown>

/** Schemas shared by reference (zod names a recursive or repeated part `$defs/__schemaN`), by component name. */
type Components = Record<string, Schema>

/** `value` with every `#/$defs/<key>` reference pointing at `renamed(key)` in the document's components instead. */
function rebase(value: unknown, renamed: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map(item => rebase(item, renamed))
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/') ? `#/components/schemas/${renamed(item.slice(8))}` : rebase(item, renamed),
    ]),
  )
}

/**
 * A JSON Schema of `schema` as the wire sees it (`input`: what a caller may send; `output`: what it gets), its
 * shared parts moved into `components` under names starting with `prefix`, so that any part of it can be placed
 * anywhere in the document.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', prefix: string, components: Components): Schema {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Schema
  const defs = (converted.$defs ?? {}) as Record<string, Schema>
  delete converted.$schema
  delete converted.$defs
  const renamed = (key: string) => `${prefix}.${key}`
  for (const [key, def] of Object.entries(defs)) components[renamed(key)] = rebase(def, renamed) as Schema
  return rebase(converted, renamed) as Schema
}

const bearer = { bearer: [] as string[] }
const walletKey = { walletKey: [] as string[] }
/** Who may call, as OpenAPI security requirements (any one of them); `[{}]`: no credentials needed. */
const security: Record<AuthKind, Schema[] | undefined> = {
  guest: [{}],
  user: [bearer],
  admin: [bearer],
  metrics: [bearer],
  app: [bearer],
  operator: [bearer],
  walletInvoice: [walletKey],
  walletAdmin: [walletKey],
  member: [bearer, walletKey],
  guestOrWallet: [{}, walletKey],
  // Nostr only: never on an HTTP route.
  guestPub: undefined,
  nwcConnection: undefined,
  clinkRequester: undefined,
}


/** `/a/:id/b/{name}` → `/a/{id}/b/{name}` and the parameter names. */
function pathOf(binding: HttpBinding): { path: string; names: string[] } {
  const names: string[] = []
  const path = binding.path.replace(pathParameterPattern, (_, colon?: string, brace?: string) => {
    const name = (colon ?? brace)!
    names.push(name)
    return `{${name}}`
  })
  return { path, names }
}

const pubError: Schema = {
  type: 'object',
  properties: { status: { const: 'ERROR' }, reason: { type: 'string' } },
  required: ['status', 'reason'],
}
const detailError: Schema = {
  type: 'object',
  properties: { detail: { description: 'what was refused and why: a text, or a list of field errors for 422' } },
  required: ['detail'],
}

function operationObject(entry: CatalogueEntry, binding: HttpBinding, pathNames: string[], components: Components): Schema {
  const input = jsonSchema(entry.input, 'input', `${entry.name}.input`, components)
  const fields = (input.properties ?? {}) as Record<string, Schema>
  const required = new Set((input.required ?? []) as string[])
  const inQuery = new Set(binding.query ?? [])
  const parameters = [
    ...pathNames.map(name => ({ name, in: 'path', required: true, schema: fields[name] ?? { type: 'string' } })),
    ...[...inQuery].map(name => ({ name, in: 'query', required: required.has(name), schema: fields[name] ?? { type: 'string' } })),
  ]
  const body = binding.body ?? 'fields'
  let requestBody: Schema | undefined
  if (body === 'whole' && binding.bodyField) {
    requestBody = { required: required.has(binding.bodyField), content: { 'application/json': { schema: fields[binding.bodyField] ?? {} } } }
  } else if (body === 'fields') {
    const inBody = Object.keys(fields).filter(name => !pathNames.includes(name) && !inQuery.has(name))
    if (inBody.length > 0) {
      const bodyRequired = inBody.filter(name => required.has(name))
      const schema: Schema = { type: 'object', properties: Object.fromEntries(inBody.map(name => [name, fields[name]])) }
      if (bodyRequired.length > 0) schema.required = bodyRequired
      if (typeof input.title === 'string') schema.title = input.title
      requestBody = { required: bodyRequired.length > 0, content: { 'application/json': { schema } } }
    }
  }

  const produces = (entry as { produces?: string }).produces
  const output: Schema =
    produces === 'application/json' ? { type: 'object' } : produces ? { type: 'string' } : jsonSchema(entry.output, 'output', `${entry.name}.output`, components)
  const responses: Record<string, Schema> = {}
  if (entry.dialect === 'pub') {
    // Lightning.Pub's envelope: HTTP 200 either way, `status` says which.
    const ok: Schema = { allOf: [{ type: 'object', properties: { status: { const: 'OK' } }, required: ['status'] }, output] }
    responses['200'] = {
      description: 'OK (`status` "OK" and the answer) or refused (`status` "ERROR" and a reason)',
      content: { [produces ?? 'application/json']: { schema: produces ? output : { oneOf: [ok, pubError] } } },
    }
  } else {
    responses[String(binding.status ?? 200)] = { description: 'the answer', content: { [produces ?? 'application/json']: { schema: output } } }
    responses.default = { description: 'refused: 400/422 bad input, 401, 403, 404, 409, 429 (Retry-After), 5xx', content: { 'application/json': { schema: detailError } } }
  }
  const aliases = ((entry as { aliases?: readonly { path?: string }[] }).aliases ?? []).flatMap(a => (a.path ? [a.path] : []))
  return {
    operationId: entry.name,
    summary: entry.summary,
    description: `Callers: ${callerNames[entry.auth]}.${entry.nostr ? ' Also over Nostr (kind 21000) as `rpcName` ' + entry.name + '.' : ''}` +
      (aliases.length > 0 ? ` Also answers at ${aliases.map(a => `\`${a}\``).join(', ')}.` : ''),
    tags: [entry.area],
    ...(security[entry.auth] ? { security: security[entry.auth] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  }
}

export interface OpenApi {
  openapi: string
  info: Schema
  servers: Schema[]
  components: Schema
  paths: Record<string, Record<string, Schema>>
}

/** The OpenAPI 3.1 document of every operation with an HTTP route; `version` is the package's. */
export function openApiDocument(version: string): OpenApi {
  const paths: Record<string, Record<string, Schema>> = {}
  const schemas: Components = {}
  for (const entry of catalogue as readonly CatalogueEntry[]) {
    const binding = (entry as { http?: HttpBinding }).http
    if (!binding || !security[entry.auth]) continue
    const { path, names } = pathOf(binding)
    const item = (paths[path] ??= {})
    item[binding.method.toLowerCase()] = operationObject(entry, binding, names, schemas)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'relaypay',
      version,
      description:
        'A relay-native Lightning payments daemon, wire-compatible with Lightning.Pub. Payments operations answer in ' +
        'Lightning.Pub\'s envelope (HTTP 200, `status` "OK" or "ERROR"); the others answer real status codes with ' +
        '`{"detail": …}` on errors. The same operations are served over Nostr (kind 21000), which this document does ' +
        'not describe.',
    },
    servers: [{ url: '/' }],
    components: {
      schemas,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'a user, app, metrics or admin token, as the operation says' },
        walletKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: "a wallet's invoice or admin key" },
      },
    },
    paths,
  }
}
