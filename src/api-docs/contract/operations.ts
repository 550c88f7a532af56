// The API describing itself, served by this room: the HTTP operations as an OpenAPI 3.1 document, generated from the
// catalogue, for integrators' tools (client generators, API explorers). Ours, not upstream's.
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { RawBody } from '../../../schema/messages/host.js'

export const apiDocsOperations = [
  operation({
    name: 'OpenApiDocument', area: 'api', auth: 'guest', dialect: 'detail',
    http: { method: 'GET', path: '/api/openapi.json', body: 'none' },
    // Rendered once, off the main thread, and served as it is (about 300 KB): a stranger's request costs no render.
    input: Empty, output: RawBody, produces: 'application/json',
    summary: 'Every HTTP operation of this daemon as an OpenAPI 3.1 document, generated from the operation catalogue (also `relaypay docs --openapi`).',
  }),
]
