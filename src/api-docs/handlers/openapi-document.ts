// OpenApiDocument: the API's own description, rendered from the catalogue once per process on a helper thread at
// the first request, then served from memory as it is.
import { Worker } from 'node:worker_threads'
import type { HandlerTable } from '../../bus/index.js'
import { packageVersion } from '../../version/index.js'

/** The document as JSON text, rendered on a thread of its own. */
function renderOffThread(version: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../render-worker.js', import.meta.url), { workerData: { version } })
    worker.once('message', (text: string) => resolve(text))
    worker.once('error', reject)
    worker.once('exit', code => reject(new Error(`the OpenAPI thread exited (code ${code}) without the document`)))
  })
}

export function apiDocsHandlers(): HandlerTable {
  let rendered: Promise<string> | undefined
  return {
    OpenApiDocument: async () => {
      rendered ??= renderOffThread(packageVersion()).catch(err => {
        rendered = undefined // the next request tries again
        throw err
      })
      return { contentType: 'application/json; charset=utf-8', body: await rendered }
    },
  }
}
