// The API's own description (the OpenApiDocument operation and `relaypay docs --openapi`): generated from the
// catalogue once per process, on first request, then served from memory.
import type { Handler, HandlerTable } from '../bus/index.js'
import { packageVersion } from '../version/index.js'
import { openApiDocument, type OpenApi } from './openapi.js'

export { openApiDocument, type OpenApi }

export function apiDocsHandlers(): HandlerTable {
  let document: OpenApi | undefined
  const OpenApiDocument: Handler<'OpenApiDocument'> = async () => (document ??= openApiDocument(packageVersion()))
  return { OpenApiDocument }
}
