// How log lines are written, in one place for the daemon, its relay thread and `relaypay relay`: JSON lines (one
// object a line, for a collector) or, for a person at a terminal, one readable line each: time, level, message and
// the fields. `[log] format` chooses; "auto" is readable when stdout is a terminal and JSON otherwise (a service
// manager, a pipe, a file). A ground-floor room: it imports no room of the daemon.
import { createRequire } from 'node:module'
import { pino, type DestinationStream, type Logger, type LoggerOptions } from '../vendor/pino.js'

export type LogFormat = 'auto' | 'json' | 'pretty'

/** What a logger writes, decided once in the main thread (a worker's stdout is never a terminal) and handed on. */
export interface LogStyle {
  readable: boolean
  colours: boolean
}

export function logStyle(format: LogFormat, stdout: { isTTY?: boolean } = process.stdout): LogStyle {
  const terminal = stdout.isTTY === true
  const readable = format === 'pretty' || (format === 'auto' && terminal)
  return { readable, colours: readable && terminal && process.env.NO_COLOR === undefined }
}

/** A pino logger writing to stdout in `style`; pino-pretty is loaded only for readable lines. */
export function createLogger(options: LoggerOptions, style: LogStyle = { readable: false, colours: false }): Logger {
  if (!style.readable) return pino(options)
  const pretty = createRequire(import.meta.url)('pino-pretty') as (opts: Record<string, unknown>) => DestinationStream
  // Synchronous, like pino's own stdout: a line is written before the next one is made, and none is lost at exit.
  const stream = pretty({ sync: true, colorize: style.colours, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' })
  return pino(options, stream)
}
