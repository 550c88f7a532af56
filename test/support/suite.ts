// uvu's suite, with its hooks' errors told. uvu runs a suite's tests inside a try whose `finally` returns, so an error
// thrown by a before or after hook is dropped: the file printed "(0 / 2)" with no reason and exited 0 (the runner saw
// only the count). Here each hook's error is printed with its stack, the process exits non-zero, and the error is
// thrown on to uvu as before. Test files import `suite` (and `test`) from here instead of from 'uvu'.
import { suite as uvuSuite, type Callback, type Test } from 'uvu'

type Hook<T> = (fn: Callback<T>) => void

// uvu sets the exit code from its own count when it ends, over any set before; this runs after it.
let hookFailed = false
process.on('exit', () => {
  if (hookFailed) process.exitCode = 1
})

function told<T>(suiteName: string, where: string, register: Hook<T>): Hook<T> {
  return fn =>
    register(async context => {
      try {
        await fn(context)
      } catch (err) {
        process.stderr.write(`\n${where} hook of '${suiteName}' failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
        hookFailed = true
        throw err
      }
    })
}

export function suite<T = Record<string, unknown>>(name = '', state?: T): Test<T> {
  const s = uvuSuite<T>(name, state)
  const before = Object.assign(told(name, 'before', s.before), { each: told(name, 'before.each', s.before.each) })
  const after = Object.assign(told(name, 'after', s.after), { each: told(name, 'after.each', s.after.each) })
  return Object.assign(s, { before, after }) as Test<T>
}

/** The default suite, as uvu's `test`. */
export const test = suite()
