// Heap limits for the daemon's long-lived helper threads (WAL checkpoints, the relay's event store, signatures).
// Each handles small messages and keeps almost nothing, but a worker's young generation may grow like the main
// thread's (16 MB semi-spaces) under a burst of allocations; 4 MB bounds what each can add to the daemon's
// resident memory under load.
import type { ResourceLimits } from 'node:worker_threads'

export const smallWorker: ResourceLimits = { maxYoungGenerationSizeMb: 4 }
