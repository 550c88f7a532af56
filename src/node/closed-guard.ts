// One guard for both backends: once a backend is closed, every call fails clearly (node_unavailable) instead of
// reaching gRPC clients or a database that are shut.
import type { LightningNode } from './lightning-node.js'

/** The node's calls that answer with a Promise and must not run after close(). */
export type GuardedCalls = Omit<LightningNode, 'settlementsAfter' | 'close' | 'mock'>

/** The same calls, written plainly: a part that answers at once (the embedded node) need not return a Promise. */
type PlainCalls = { [K in keyof GuardedCalls]: Plain<NonNullable<GuardedCalls[K]>> }
type Plain<F> = F extends (...args: infer A) => infer R ? (...args: A) => R | Awaited<R> : never

/** `calls` as async calls that check `open` first: a call after close rejects with what `open` throws. */
export function whileOpen(open: () => void, calls: PlainCalls): GuardedCalls {
  const guarded: Record<string, (...args: unknown[]) => Promise<unknown>> = {}
  for (const [name, call] of Object.entries(calls) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    guarded[name] = async (...args) => {
      open()
      return call(...args)
    }
  }
  return guarded as unknown as GuardedCalls
}
