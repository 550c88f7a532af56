// Renders the OpenAPI document on a thread of its own: converting every schema of the catalogue takes a few hundred
// milliseconds, which a stranger's first request must not take from the thread that moves money.
import { parentPort, workerData } from 'node:worker_threads'
import { openApiDocument } from './openapi.js'

parentPort!.postMessage(JSON.stringify(openApiDocument((workerData as { version: string }).version)))
