// The API describing itself: the HTTP operations as an OpenAPI 3.1 document, generated from this catalogue, for
// integrators' tools (client generators, API explorers). Ours, not upstream's.
import { operation } from '../operation.js'
import { Empty, json, message, text } from '../dsl.js'

/** An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0). */
export const OpenApiDocument = message('OpenApiDocument', {
  openapi: text(),
  info: json(),
  servers: json(),
  components: json(),
  paths: json(),
})

export const apiDocsOperations = [
  operation({
    name: 'OpenApiDocument', area: 'api', auth: 'guest', dialect: 'detail',
    http: { method: 'GET', path: '/api/openapi.json', body: 'none' },
    repeatable: true,
    input: Empty, output: OpenApiDocument,
    summary: 'Every HTTP operation of this daemon as an OpenAPI 3.1 document, generated from the operation catalogue (also `relaypay docs --openapi`).',
  }),
]
