// Reads a request body with a size limit. The limit is enforced while streaming, so an oversized upload is
// refused without buffering it.
import type { IncomingMessage } from 'node:http'
import { OperationError } from '../../bus/index.js'

export async function readBody(req: IncomingMessage, limitBytes: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0)
  if (declared > limitBytes) throw tooLarge(limitBytes)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limitBytes) throw tooLarge(limitBytes)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Parses a JSON body; an empty body is `undefined`. */
export function parseJson(text: string): unknown {
  if (text.trim().length === 0) return undefined
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new OperationError('invalid_input', `malformed JSON body: ${(err as Error).message}`)
  }
}

function tooLarge(limitBytes: number): OperationError {
  return new OperationError('limit_exceeded', `request body too large: the limit is ${limitBytes} bytes`, { status: 413 })
}
