// What every answer to a fuzzed request must look like, whatever was sent: one of the documented error shapes of
// the operation's dialect (docs/operations.md; the pub dialect is upstream's), a documented status, and nothing a
// caller should never see — a stack trace, SQL or SQLite's words, a path of the build, a JavaScript error message,
// or the generic answer that means a handler threw something unexpected.
import type { CatalogueEntry } from '../../../schema/catalogue.js'

/** Statuses of the detail dialect (src/bus/errors.ts, plus 413 for bodies over the limit and 404/405 of routing). */
const detailStatuses = new Set([200, 201, 204, 400, 401, 403, 404, 405, 409, 413, 422, 429, 501, 502, 503])
/** Answers of the HTTP layer before any operation is chosen, the same for both dialects. */
const transportRefusals: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
}
/** The only documented 500s: the model registry's transcription and model download failures. */
const documented500 = /^(Transcription failed|Model download failed): /

/** Text that must never reach a caller. Fuzzed inputs never contain these, so an echo cannot trip them. */
const leaks: [string, RegExp][] = [
  ['stack frame', /\bat (?:async )?[\w$.<>\[\] ]*\(?(?:file:\/\/|node:|\/)[^)\s]*:\d+:\d+/],
  ['build path', /\/work\/|\/build\/(?:src|schema|bin|test)\/|file:\/\/\//],
  ['SQL error', /SQLITE_[A-Z]+|SqliteError|no such (?:table|column)|near "[^"]*": syntax error|constraint failed|database is locked/],
  ['SQL text', /\b(?:SELECT|INSERT INTO|UPDATE|DELETE FROM)\b[^"]{0,80}\b(?:FROM|VALUES|SET|WHERE)\b/],
  [
    'JavaScript error',
    /Cannot read propert|Cannot set propert|is not a function|is not iterable|is not defined|Maximum call stack|Invalid array length|out of memory|\[object Object\]|TypeError|RangeError|ReferenceError/,
  ],
]

/** What an answer's text shows that it should not (empty when nothing). */
export function leaksIn(text: string): string[] {
  return leaks.filter(([, pattern]) => pattern.test(text)).map(([what]) => `${what} in the answer`)
}

/** A reply in upstream's dialect (over the relay): `{status: "OK", …}` or `{status: "ERROR", reason}`. */
export function checkPubReply(reply: Record<string, unknown>): string[] {
  const problems = leaksIn(JSON.stringify(reply))
  if (reply.status === 'ERROR') problems.push(...checkReason(reply.reason))
  else if (reply.status !== 'OK') problems.push('reply without status OK/ERROR')
  return problems
}

/** The generic answer of src/bus/dispatcher.ts and the HTTP server for an exception nobody expected. */
export const unexpectedError = /^internal error\b/

export interface HttpAnswer {
  status: number
  contentType: string
  text: string
}

/** Violations of the oracle by one HTTP answer (empty when it is fine). */
export function checkHttpAnswer(entry: CatalogueEntry | undefined, method: string, answer: HttpAnswer): string[] {
  const problems = leaksIn(answer.text)
  if (method === 'OPTIONS') {
    if (![204, 404].includes(answer.status)) problems.push(`OPTIONS answered ${answer.status}`)
    return problems
  }
  if (method === 'HEAD') {
    if (answer.status >= 500 && answer.status !== 501 && answer.status !== 503) problems.push(`HEAD answered ${answer.status}`)
    return problems
  }
  const raw = entry?.produces !== undefined && !answer.contentType.startsWith('application/json')
  if (raw) {
    if (answer.status >= 300) problems.push(`${answer.status} with a ${answer.contentType} body`)
    return problems
  }
  if (!answer.contentType.startsWith('application/json')) problems.push(`content-type ${answer.contentType || 'missing'}`)
  let body: unknown
  try {
    body = JSON.parse(answer.text)
  } catch {
    return [...problems, 'the body is not JSON']
  }
  const object = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined
  if (transportRefusals[answer.status] !== undefined && object?.detail === transportRefusals[answer.status]) return problems
  if (entry?.dialect === 'pub') {
    if (answer.status !== 200) problems.push(`pub dialect answered ${answer.status}`)
    if (object?.status === 'ERROR') problems.push(...checkReason(object.reason))
    else if (object?.status !== 'OK') problems.push(`pub answer without status OK/ERROR`)
    return problems
  }
  if (!detailStatuses.has(answer.status) && !(answer.status === 500 && documented500.test(String(object?.detail)))) {
    problems.push(`undocumented status ${answer.status}`)
  }
  if (answer.status >= 400) problems.push(...checkReason(object?.detail))
  return problems
}

/** An error message: a non-empty string that is not the generic unexpected-error answer. */
export function checkReason(reason: unknown): string[] {
  if (typeof reason !== 'string' || reason.length === 0) return [`error without a message: ${JSON.stringify(reason)}`]
  if (unexpectedError.test(reason)) return [`unexpected exception: ${reason}`]
  return []
}

/** Log lines the daemon writes only when something unexpected was thrown (each is a hole). */
export const unexpectedLogLines = [
  'operation failed unexpectedly',
  'http request failed outside the dispatcher',
  'request event handling failed',
  'could not record request events',
  'uncaught',
  'unhandled',
]

/** The unexpected-exception lines of a daemon's log, shortened for a report. */
export function unexpectedInLog(log: string): string[] {
  return log
    .split('\n')
    .filter(line => unexpectedLogLines.some(marker => line.includes(marker)))
    .map(line => line.slice(0, 2000))
}
