// Operation name → catalogue entry and handler. Registration refuses unknown names and second registrations, so a
// typo or a double wiring fails at start instead of at the first call.
import type { CatalogueEntry, OperationName } from '../../schema/catalogue.js'
import type { Handler, HandlerTable } from './handler.js'
import { OperationError } from './errors.js'

export interface RegisteredOperation {
  entry: CatalogueEntry
  handler: Handler<OperationName>
  implemented: boolean
}

export interface Registry {
  register(table: HandlerTable, owner: string): void
  /**
   * Ends registration. With `requireAll` (the daemon) an operation nobody registered is a wiring fault and throws,
   * naming each one; otherwise (tests of a few handlers) those answer "not implemented" and their names come back.
   */
  seal(opts?: { requireAll?: boolean }): string[]
  lookup(nameOrAlias: string): RegisteredOperation | undefined
  entries(): RegisteredOperation[]
}

export function createRegistry(catalogue: readonly CatalogueEntry[]): Registry {
  const byName = new Map<string, CatalogueEntry>()
  const aliases = new Map<string, string>()
  for (const entry of catalogue) {
    if (byName.has(entry.name)) throw new Error(`catalogue lists operation ${entry.name} twice`)
    byName.set(entry.name, entry)
    for (const alias of entry.aliases ?? []) if (alias.name) aliases.set(alias.name, entry.name)
  }
  const handlers = new Map<string, { handler: Handler<OperationName>; owner: string }>()
  const table = new Map<string, RegisteredOperation>()
  let sealed = false

  return {
    register(newHandlers, owner) {
      if (sealed) throw new Error(`${owner} registered handlers after start`)
      for (const [name, handler] of Object.entries(newHandlers)) {
        if (!handler) continue
        if (!byName.has(name)) throw new Error(`${owner} registers a handler for ${name}, which is not in the catalogue`)
        const previous = handlers.get(name)
        if (previous) throw new Error(`${owner} registers ${name}, already registered by ${previous.owner}`)
        handlers.set(name, { handler: handler as Handler<OperationName>, owner })
      }
    },
    seal(opts = {}) {
      const missing = [...byName.keys()].filter(name => !handlers.has(name))
      if (opts.requireAll && missing.length > 0) {
        throw new Error(`${missing.length} catalogue operation(s) have no handler: ${missing.join(', ')}`)
      }
      sealed = true
      for (const [name, entry] of byName) {
        const found = handlers.get(name)
        table.set(name, {
          entry,
          handler: found?.handler ?? notImplemented(name),
          implemented: found !== undefined,
        })
      }
      return missing
    },
    lookup(nameOrAlias) {
      return table.get(nameOrAlias) ?? table.get(aliases.get(nameOrAlias) ?? '')
    },
    entries: () => [...table.values()],
  }
}

function notImplemented(name: string): Handler<OperationName> {
  return async () => {
    throw new OperationError('not_implemented', `not implemented: ${name}`)
  }
}
