// A preload (`node --import`) that makes the packages named in RELAYPAY_TEST_BLOCK_MODULES (comma separated) fail to
// load, as a native addon that did not build or a wasm module that cannot start would: a test starts the real daemon
// with it to see what the daemon does without them. `name@part` blocks the package only for importers whose URL
// contains `part` (other rooms may need the same package for other work).
import { register } from 'node:module'

const blocked = (process.env.RELAYPAY_TEST_BLOCK_MODULES ?? '').split(',').filter(Boolean)
if (blocked.length > 0) {
  const hooks = `
    const blocked = ${JSON.stringify(blocked)}
    export async function resolve(specifier, context, next) {
      const hit = entry => {
        const [name, part] = entry.split('@')
        const named = specifier === name || specifier.startsWith(name + '/')
        return named && (!part || (context.parentURL ?? '').includes(part))
      }
      if (blocked.some(hit)) {
        throw new Error('Cannot find module ' + specifier + ' (blocked by the test)')
      }
      return next(specifier, context)
    }`
  register(`data:text/javascript,${encodeURIComponent(hooks)}`)
}
