// A listener that cannot open its port, told as the setting to change: "port 1776 is in use: set [http] port or
// RELAYPAY_HTTP_PORT". The daemon throws it as a ConfigError, which `relaypay start` prints as one line.
import { ConfigError } from './config-error.js'

/** A ConfigError for `err` when it is a listen failure of the port `key` (`section.key`) picks; else `err`. */
export function listenProblem(err: unknown, key: string, flag?: string): unknown {
  const { code, port, address } = (err ?? {}) as { code?: string; port?: number; address?: string }
  const [section, name] = key.split('.') as [string, string]
  const settings = `set [${section}] ${name}${flag ? `, ${flag}` : ''} or RELAYPAY_${section.toUpperCase()}_${name.toUpperCase()}`
  if (code === 'EADDRINUSE') return new ConfigError(`port ${port} is in use: ${settings}`)
  if (code === 'EACCES') return new ConfigError(`port ${port} needs privileges this process does not have: ${settings}`)
  if (code === 'EADDRNOTAVAIL') {
    return new ConfigError(`address ${address} is not one of this machine's: set [${section}] host or RELAYPAY_${section.toUpperCase()}_HOST`)
  }
  return err
}

/** Awaits a listener's start, turning a listen failure into the setting to change. */
export async function listening<T>(start: Promise<T>, key: string, flag?: string): Promise<T> {
  try {
    return await start
  } catch (err) {
    throw listenProblem(err, key, flag)
  }
}
