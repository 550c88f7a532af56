// The daemon's rooms in the order they started, stopped in reverse: what started later depends on what started
// earlier (the transports on the dispatcher, the dispatcher on the rooms, the rooms on the books and the node), so
// the last started stops first. The table of start steps (start-table.ts) pushes each step's stop here as the step
// starts; a start that fails half-way stops what it had started the same way, and a stop that throws is logged
// without keeping the rooms below it running.
import type { Logger } from 'pino'

export interface RoomStack {
  /** `stop` runs once the rooms started after this one have stopped, when the daemon stops or its start fails. */
  started(name: string, stop: () => unknown): void
  /** Stops every room started, the last first; once, however often it is called. */
  stopAll(): Promise<void>
}

export function roomStack(log: Logger): RoomStack {
  const rooms: { name: string; stop: () => unknown }[] = []
  let stopping: Promise<void> | undefined
  return {
    started(name, stop) {
      rooms.push({ name, stop })
    },
    stopAll: () =>
      (stopping ??= (async () => {
        for (let room = rooms.pop(); room; room = rooms.pop()) {
          try {
            await room.stop()
          } catch (err) {
            log.error({ err, room: room.name }, 'a room failed to stop; stopping the others')
          }
        }
      })()),
  }
}
