// docs/operations.md, generated from the catalogue (`npm run docs`); a test fails when the file is stale.
import { catalogue, type CatalogueEntry } from '../../schema/catalogue.js'
import type { z } from 'zod'
import { describeType, fieldsOf, titleOf } from '../../schema/describe.js'
import { callerNames } from '../../schema/operation.js'
import { openApiDocument, type OpenApi } from '../api-docs/index.js'
import { packageVersion } from '../version/index.js'
import { contractFiles, handlerFiles } from './operation-files.js'

/** The HTTP API as an OpenAPI 3.1 document, as the daemon serves it at GET /api/openapi.json. */
export const openApi = (): OpenApi => openApiDocument(packageVersion())


export function operationsReference(): string {
  const lines: string[] = [
    '# Operations reference',
    '',
    'Generated from the operation catalogue (`schema/catalogue.ts`) by `npm run docs`; do not edit by hand.',
    '',
    `${catalogue.length} operations. Payments operations (dialect \`pub\`) answer HTTP 200 with`,
    '`{"status":"OK",…}` or `{"status":"ERROR","reason":…}`; the others (dialect `detail`) answer real status',
    'codes with `{"detail":…}` on errors. Over Nostr (kind 21000) an operation is called by its name as `rpcName`.',
    '',
  ]
  const areas = new Map<string, CatalogueEntry[]>()
  for (const entry of catalogue as readonly CatalogueEntry[]) {
    const list = areas.get(entry.area) ?? []
    list.push(entry)
    areas.set(entry.area, list)
  }
  lines.push('## Contents', '')
  for (const area of areas.keys()) lines.push(`- [${area}](#${area.toLowerCase().replace(/[^a-z0-9]+/g, '-')})`)
  lines.push('')
  const handlers = handlerFiles(catalogue.map(entry => entry.name))
  const contracts = contractFiles(catalogue.map(entry => entry.name))
  for (const [area, entries] of areas) {
    lines.push(`## ${area}`, '')
    for (const entry of entries) {
      lines.push(...describeOperation(entry, handlers.get(entry.name) ?? [], contracts.get(entry.name) ?? []))
    }
  }
  return lines.join('\n')
}

function describeOperation(entry: CatalogueEntry, handlers: readonly string[], contracts: readonly string[]): string[] {
  const lines = [`### ${entry.name}`, '', entry.summary, '']
  const facts: string[] = []
  if (entry.http) {
    facts.push(`\`${entry.http.method} ${entry.http.path}\``)
    if (entry.http.query?.length) facts.push(`query: ${entry.http.query.map(q => `\`${q}\``).join(', ')}`)
  }
  facts.push(`auth: ${callerNames[entry.auth]}`)
  facts.push(`dialect: ${entry.dialect}`)
  if (entry.nostr) facts.push('also over Nostr')
  const codec = (entry as { nostrCodec?: { kind: number; request: string } }).nostrCodec
  if (codec) facts.push(`Nostr kind ${codec.kind} only, as \`${codec.request}\` (no HTTP route)`)
  if (entry.stream) facts.push('stream')
  if (entry.batch) facts.push('batch')
  if (entry.extension) facts.push(`extension: ${entry.extension}`)
  if (entry.produces) facts.push(`produces ${entry.produces}`)
  for (const alias of entry.aliases ?? []) {
    facts.push(`alias: ${[alias.name, alias.path && `\`${alias.path}\``].filter(Boolean).join(' ')}`)
  }
  if (handlers.length > 0) facts.push(`handler: ${handlers.map(file => `\`${file}\``).join(', ')}`)
  if (contracts.length > 0) facts.push(`contract: ${contracts.map(file => `\`${file}\``).join(', ')}`)
  lines.push(facts.map(fact => `- ${fact}`).join('\n'), '')
  lines.push(...messageTable('Input', entry.input), ...messageTable('Output', entry.output))
  return lines
}

function messageTable(label: string, schema: z.ZodType): string[] {
  const fields = fieldsOf(schema)
  const name = titleOf(schema)
  if (fields.length === 0) return [`${label}: ${name ?? describeType(schema)}${name === 'Empty' ? '' : ' (no fields)'}`, '']
  return [
    `${label}: ${name ?? 'object'}`,
    '',
    '| field | type | presence |',
    '|---|---|---|',
    ...fields.map(f => `| \`${f.name}\` | ${f.type.replace(/\|/g, '\\|')} | ${f.presence} |`),
    '',
  ]
}
