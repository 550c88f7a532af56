// The route table answers the same through its literal-path map as a scan of every route in order would: for every
// catalogue path, with and without a trailing slash, under every method.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { catalogue } from '../../schema/catalogue.js'
import { buildRoutes, type Route } from '../../src/transports/http/routes.js'

const test = suite('HTTP routes')

/** The scan the table must agree with: first route in table order whose pattern and method match, else 405/404. */
function scan(routes: Route[], method: string, pathname: string) {
  const allowed: string[] = []
  for (const route of routes) {
    const found = route.pattern.exec(pathname)
    if (!found) continue
    if (route.method !== method) {
      allowed.push(route.method)
      continue
    }
    const params: Record<string, string> = {}
    route.params.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1]!)))
    return { route, params }
  }
  return allowed.length > 0 ? { allowed } : undefined
}

test('every catalogue path resolves as the ordered scan resolves it', () => {
  const table = buildRoutes(catalogue)
  let checked = 0
  for (const route of table.routes) {
    const concrete = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\}/g, 'x1')
    for (const pathname of [concrete, `${concrete}/`, `${concrete}//`]) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
        const got = table.match(method, pathname)
        const want = scan(table.routes, method, pathname)
        assert.equal(got, want, `${method} ${pathname}`)
        checked++
      }
    }
  }
  assert.ok(checked > 100)
})

test('a literal path wins over a parameter route, and a wrong method is a 405 listing the right one', () => {
  const table = buildRoutes(catalogue)
  const health = table.match('GET', '/api/health')
  assert.ok(health && 'route' in health && health.route.entry.name === 'Health')
  const wrong = table.match('DELETE', '/api/admin/app/add')
  assert.equal(wrong, { allowed: ['POST'] })
})

test.run()
