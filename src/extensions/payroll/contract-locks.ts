// One lock per contract in this process (docs/payroll.md, "Concurrency"): a tick, pay-now, pause, resume, update
// and delete of one contract run one after another, in arrival order. Several daemons on one database are not
// serialised by this; the ledger's claim is what keeps them from paying a period twice.

export interface ContractLocks {
  /** Runs `work` once every earlier holder of `contractId`'s lock has finished. */
  with<T>(contractId: string, work: () => Promise<T>): Promise<T>
}

export function contractLocks(): ContractLocks {
  const tails = new Map<string, Promise<void>>()
  return {
    async with(contractId, work) {
      const previous = tails.get(contractId) ?? Promise.resolve()
      let release!: () => void
      const released = new Promise<void>(resolve => (release = resolve))
      const tail = previous.then(() => released)
      tails.set(contractId, tail)
      await previous
      try {
        return await work()
      } finally {
        release()
        // The last holder leaves no entry behind, so the map does not grow with every contract ever touched.
        if (tails.get(contractId) === tail) tails.delete(contractId)
      }
    },
  }
}
