// The API's own description: the OpenApiDocument operation (handlers/openapi-document.ts) and `relaypay docs
// --openapi`, both generated from the catalogue (openapi.ts).
export { openApiDocument, type OpenApi } from './openapi.js'
export { apiDocsHandlers } from './handlers/openapi-document.js'
