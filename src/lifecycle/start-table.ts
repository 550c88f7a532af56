// The composition root as an ordered table: each step starts with what the steps before it provided, gives back
// how it stops (if it does) and what it provides to the steps after it. The table starts forward and stops in
// reverse (lifecycle/room-stack.ts): what started later depends on what started earlier, so it stops first. A start
// that fails half-way stops what had started, the last first, and the failure is thrown on unchanged.
//
// Each step extends the context by its own values, and the type of the context grows with it: a step can only name
// what an earlier step provided, so a reordering that leaves a value missing fails to compile.
import type { Logger } from 'pino'
import { roomStack, type RoomStack } from './room-stack.js'

/** What a step's start gives back: its stop, when it has something to stop, and the values it provides. */
export type Started = Record<string, unknown> & { stop?: (() => unknown) | undefined }

/** The values a step provides to the steps after it (everything it gave back but its stop). */
export type Provided<S extends Started> = Omit<S, 'stop'>

/** One step of the start: `start` runs once every step before it has started, with what they provided. */
export interface Step<C extends object, S extends Started> {
  name: string
  start(context: C): S | Promise<S>
}

export interface Running<C extends object> {
  /** Everything the steps provided, on top of the base the table started from. */
  context: C
  /** Stops every step that started, the last first; once, however often it is called. */
  stopAll(): Promise<void>
}

/** A table read top to bottom: `B` is what its start is given, `C` what its steps have provided so far. */
export interface StartTable<B extends object, C extends object> {
  /** The next step; its stop (if it gives one) is named `name` in the log when it throws. */
  step<S extends Started>(name: Step<C, S>['name'], start: Step<C, S>['start']): StartTable<B, C & Provided<S>>
  /** Several steps kept elsewhere (a part of the start with its own table), in their order, at this place. */
  steps<D extends object>(more: (table: StartTable<B, C>) => StartTable<B, D>): StartTable<B, D>
  /** Starts every step in order; a failed step stops those started before it and rethrows its error. */
  start(base: B, log: Logger): Promise<Running<C>>
}

type Run<B, C> = (base: B, rooms: RoomStack) => Promise<C>

/** An empty table, started with `B`. */
export function startTable<B extends object>(): StartTable<B, B> {
  return tableOf<B, B>(async base => base)
}

function tableOf<B extends object, C extends object>(run: Run<B, C>): StartTable<B, C> {
  const table: StartTable<B, C> = {
    step: (name, start) =>
      tableOf(async (base, rooms) => {
        const context = await run(base, rooms)
        const { stop, ...provided } = await start(context)
        if (stop) rooms.started(name, stop)
        return { ...context, ...provided }
      }),
    steps: more => more(table),
    start: async (base, log) => {
      const rooms = roomStack(log)
      try {
        return { context: await run(base, rooms), stopAll: rooms.stopAll }
      } catch (err) {
        await rooms.stopAll()
        throw err
      }
    },
  }
  return table
}
